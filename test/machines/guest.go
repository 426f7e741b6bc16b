package main

// The guest side: "machines guest" runs inside a booted shape, runs the
// truth checks and the project's test binaries it is given, prints what it
// finds and writes results.json to the share for the host.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// guestResults is what one boot reports back.
type guestResults struct {
	Shape   string        `json:"shape"`
	Kernel  string        `json:"kernel"` // uname -r in the guest
	Checks  []checkResult `json:"checks"`
	Tests   []testResult  `json:"tests"`
	Elapsed float64       `json:"elapsed_s"`
}

// A testBinary is one package's test binary and the folder it runs in, so
// that it finds its testdata as under go test.
type testBinary struct {
	Pkg string `json:"pkg"`
	Dir string `json:"dir"`
	Bin string `json:"bin"`
	// Flags are the shape's own for this package (-test.short), before
	// those of -testflags.
	Flags []string `json:"flags,omitempty"`
}

type testResult struct {
	Pkg     string  `json:"pkg"`
	OK      bool    `json:"ok"`
	Seconds float64 `json:"seconds"`
	Flags   string  `json:"flags,omitempty"`  // the shape's own flags for the package
	Output  string  `json:"output,omitempty"` // the end of a failing package's output
	// Slow are the package's tests that took slowTest or longer, slowest
	// first: where a guest's time goes.
	Slow []testTime `json:"slow,omitempty"`
}

// A testTime is one top-level test's time as go test -v reports it.
type testTime struct {
	Test    string  `json:"test"`
	Result  string  `json:"result"` // PASS, FAIL or SKIP
	Seconds float64 `json:"seconds"`
}

// slowTest is the time from which a test is named among a package's slow
// ones.
const slowTest = 10 * time.Second

func cmdGuest(ctx context.Context, args []string) int {
	fs := newFlags("guest")
	corepin := fs.String("corepin", "", "the corepin binary to check")
	checkList := fs.String("checks", "", "comma-separated checks to run")
	manifest := fs.String("tests", "", "a JSON list of test binaries to run")
	testFlags := fs.String("testflags", "", "extra flags for every test binary, space-separated")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	if os.Getenv("MACHINE_SHAPE") == "" {
		fmt.Fprintln(os.Stderr, "machines guest: not inside a guest (no MACHINE_SHAPE)")
		return exitUsage
	}
	start := time.Now()
	res := guestResults{Shape: os.Getenv("MACHINE_SHAPE")}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		res.Kernel = strings.TrimSpace(string(data))
	}
	s, _ := lookupShape(res.Shape)
	fmt.Printf("== %s, kernel %s, CPUs online %s\n", res.Shape, res.Kernel, sysList("online"))
	if *checkList != "" {
		tmp, err := os.MkdirTemp("", "checks-")
		if err != nil {
			return fail("%v", err)
		}
		c := &checker{ctx: ctx, corepin: *corepin, shape: s, tmp: tmp}
		for _, name := range strings.Split(*checkList, ",") {
			r := runCheck(c, name)
			fmt.Printf("%-8s %-7s %s\n", r.Check, r.Status, r.Evidence)
			res.Checks = append(res.Checks, r)
		}
	}
	if *manifest != "" {
		tests, err := runTests(ctx, *manifest, strings.Fields(*testFlags))
		if err != nil {
			return fail("%v", err)
		}
		res.Tests = tests
	}
	res.Elapsed = time.Since(start).Seconds()
	out := os.Getenv("MACHINE_OUT")
	if out != "" {
		data, _ := json.MarshalIndent(res, "", "  ")
		if err := os.WriteFile(filepath.Join(out, "results.json"), data, 0o644); err != nil {
			return fail("writing the results: %v", err)
		}
	}
	for _, r := range res.Checks {
		if r.Status == statusFailed {
			return 1
		}
	}
	for _, t := range res.Tests {
		if !t.OK {
			return 1
		}
	}
	return 0
}

func runCheck(c *checker, name string) (r checkResult) {
	for _, ch := range checks {
		if ch.name == name {
			defer func() {
				if p := recover(); p != nil {
					r = failed(name, "the check panicked: %v", p)
				}
			}()
			r = ch.run(c)
			r.Check = name
			return r
		}
	}
	return failed(name, "no such check")
}

// runTests runs each package's test binary in its folder, as go test does,
// printing go test's lines: with -test.v among the extra flags all of a
// package's output as it comes, else the end of a failing package's.
func runTests(ctx context.Context, manifest string, extra []string) ([]testResult, error) {
	data, err := os.ReadFile(manifest)
	if err != nil {
		return nil, err
	}
	var bins []testBinary
	if err := json.Unmarshal(data, &bins); err != nil {
		return nil, fmt.Errorf("%s: %w", manifest, err)
	}
	verbose := slices.ContainsFunc(extra, func(f string) bool {
		return f == "-test.v" || strings.HasPrefix(f, "-test.v=") && f != "-test.v=false"
	})
	var out []testResult
	for _, b := range bins {
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		// -test.v for each test's time (extra may turn it off again).
		args := append(append([]string{"-test.timeout=9m", "-test.v"}, b.Flags...), extra...)
		cmd := exec.CommandContext(cctx, b.Bin, args...)
		cmd.Dir = b.Dir
		var buf bytes.Buffer
		var w io.Writer = &buf
		if verbose {
			w = io.MultiWriter(os.Stdout, &buf)
		}
		cmd.Stdout, cmd.Stderr = w, w
		err := cmd.Run()
		cancel()
		r := testResult{Pkg: b.Pkg, OK: err == nil, Seconds: time.Since(start).Seconds(), Flags: strings.Join(b.Flags, " "),
			Slow: slowTests(buf.String(), slowTest)}
		if r.OK {
			fmt.Printf("ok  \t%s\t%.1fs%s\n", b.Pkg, r.Seconds, strings.TrimRight(" "+r.Flags, " "))
			for _, st := range r.Slow {
				fmt.Printf("    %s %s %.1fs\n", st.Result, st.Test, st.Seconds)
			}
		} else {
			r.Output = timedOut(buf.String()) + failures(buf.String()) + tail(buf.String(), 30)
			shown := r.Output
			if verbose {
				shown = timedOut(buf.String())
			}
			fmt.Printf("%s--- FAIL\t%s\t%.1fs (%v)\n", shown, b.Pkg, r.Seconds, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// testLine is go test -v's line of a top-level test's end.
var testLine = regexp.MustCompile(`^--- (PASS|FAIL|SKIP): (\S+) \(([0-9.]+)s\)$`)

// slowTests are the top-level tests in go test -v's output that took at
// least min, slowest first.
func slowTests(out string, min time.Duration) []testTime {
	var slow []testTime
	for _, line := range strings.Split(out, "\n") {
		m := testLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		sec, err := strconv.ParseFloat(m[3], 64)
		if err != nil || sec < min.Seconds() {
			continue
		}
		slow = append(slow, testTime{Test: m[2], Result: m[1], Seconds: sec})
	}
	sort.SliceStable(slow, func(i, j int) bool { return slow[i].Seconds > slow[j].Seconds })
	return slow
}

// failures are, in go test -v's output, the lines of each failed
// top-level test from its start to its end: under -test.v the end of the
// output may be other tests'.
func failures(out string) string {
	lines := strings.Split(out, "\n")
	var b strings.Builder
	for i, line := range lines {
		m := testLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil || m[1] != "FAIL" {
			continue
		}
		from := i
		for from > 0 && lines[from] != "=== RUN   "+m[2] {
			from--
		}
		b.WriteString(strings.Join(lines[from:i+1], "\n") + "\n...\n")
	}
	return b.String()
}

// timedOut is, for the output of a test binary that ran past its
// -test.timeout, the lines that name the tests still running; they come
// before the goroutine dump, which the tail of the output is all of.
func timedOut(out string) string {
	i := strings.Index(out, "panic: test timed out")
	if i < 0 {
		return ""
	}
	head := out[i:]
	if j := strings.Index(head, "\ngoroutine "); j >= 0 {
		head = head[:j+1]
	}
	return head + "...\n"
}
