package main

// The host side of the checks and tests: build corepin, this tool and the
// test binaries for the guest's architecture, boot each shape once, and
// print the table of shape × check.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"
)

// build holds the binaries for one guest architecture.
type build struct {
	corepin, tool string
	manifest      string // test binaries, "" when none were built
	testDir       string // their folder, this run's own
}

// remove deletes the run's test binaries.
func (b build) remove() {
	if b.testDir != "" {
		os.RemoveAll(b.testDir)
	}
}

// moduleRoot is the folder of corepin's go.mod.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" || strings.TrimSpace(string(out)) == os.DevNull {
		return "", fmt.Errorf("run this from corepin's source tree (go env GOMOD: %v)", err)
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// buildFor cross-builds static binaries for arch into the cache, under a
// folder of their own for this source tree: corepin, this tool, and the
// test binaries of the packages tests, each with the flags own gives its
// package (a pattern such as ./cmd/corepin) before any others.
func buildFor(ctx context.Context, arch string, tests []string, own map[string][]string) (build, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return build{}, err
	}
	cache, err := cacheDir()
	if err != nil {
		return build{}, err
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "build", fmt.Sprintf("%x", sum[:6]), arch)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return build{}, err
	}
	env := append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
	gobuild := func(args ...string) error {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, bytes.TrimSpace(out))
		}
		return nil
	}
	b := build{corepin: filepath.Join(dir, "corepin"), tool: filepath.Join(dir, "machines")}
	if err := gobuild("build", "-o", b.corepin, "./cmd/corepin"); err != nil {
		return build{}, err
	}
	if err := gobuild("build", "-o", b.tool, "./test/machines"); err != nil {
		return build{}, err
	}
	if len(tests) == 0 {
		return b, nil
	}
	// The packages with tests, and where each runs.
	list := func(pkgs []string) (string, error) {
		cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-f", "{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{.Dir}}{{end}}"}, pkgs...)...)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("go list %s: %w", strings.Join(pkgs, " "), err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	out, err := list(tests)
	if err != nil {
		return build{}, err
	}
	pkgFlags := map[string][]string{}
	for pattern, flags := range own {
		s, err := list([]string{pattern})
		if err != nil {
			return build{}, err
		}
		for _, line := range strings.Split(s, "\n") {
			pkg, _, _ := strings.Cut(line, " ")
			pkgFlags[pkg] = append(pkgFlags[pkg], flags...)
		}
	}
	// A folder of this run's own: two runs from one tree must not delete
	// each other's binaries.
	testDir, err := os.MkdirTemp(dir, "tests-")
	if err != nil {
		return build{}, err
	}
	b.testDir = testDir
	if err := os.Chmod(testDir, 0o755); err != nil { // for a guest whose tests run as another user
		b.remove()
		return build{}, err
	}
	var bins []testBinary
	for _, line := range strings.Split(out, "\n") {
		pkg, pdir, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name := strings.ReplaceAll(strings.TrimPrefix(pkg, "corepin.dev/corepin/"), "/", "_") + ".test"
		bin := testBinary{Pkg: pkg, Dir: pdir, Bin: filepath.Join(testDir, name)}
		bin.Flags = pkgFlags[pkg]
		bins = append(bins, bin)
	}
	// One go test -c per package, so that packages of the same name (two
	// main packages) do not clash; go's build cache makes them cheap.
	for _, bin := range bins {
		if err := gobuild("test", "-c", "-o", bin.Bin, bin.Pkg); err != nil {
			b.remove()
			return build{}, err
		}
	}
	b.manifest = filepath.Join(testDir, "tests.json")
	data, _ := json.MarshalIndent(bins, "", "  ")
	return b, os.WriteFile(b.manifest, data, 0o644)
}

// applicable lists the checks that mean something on shape s.
func applicable(s shape) []string {
	var out []string
	for _, c := range checks {
		if c.applies(s) {
			out = append(out, c.name)
		}
	}
	return out
}

// bootChecks boots s once and runs the checks (and tests) in it.
func bootChecks(ctx context.Context, s shape, kern string, b build, names []string, testFlags string, w io.Writer) (guestResults, int, error) {
	argv := []string{b.tool, "guest", "-corepin", b.corepin, "-checks", strings.Join(names, ",")}
	if b.manifest != "" {
		argv = append(argv, "-tests", b.manifest, "-testflags", testFlags)
	}
	var res guestResults
	gomodcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	root, _ := moduleRoot(ctx)
	modcache := strings.TrimSpace(string(gomodcache))
	g := guestRun{
		shape: s, kernel: kern, dir: root, stdout: w, log: os.Stderr, limit: 40 * time.Minute,
		expose: []string{filepath.Dir(b.corepin), modcache},
		// The tests find the module cache read-only, no network, and no Go
		// toolchain on PATH: building anything under TCG takes minutes, so
		// tests that would run go skip that part, as they do where go is
		// missing.
		env: []string{"GOMODCACHE=" + modcache, "GOPROXY=off", "GOFLAGS=-mod=mod", "GOCACHE=/tmp/gocache",
			"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"},
		results: func(share string) error {
			data, err := os.ReadFile(filepath.Join(share, "out", "results.json"))
			if err == nil {
				err = json.Unmarshal(data, &res)
			}
			if os.IsNotExist(err) {
				return nil
			}
			return err
		},
	}
	status, err := g.boot(ctx, argv)
	return res, status, err
}

func cmdCheck(ctx context.Context, args []string) int {
	fs := newFlags("check")
	name := fs.String("shape", "smt8", "the machine shape")
	kern := fs.String("kernel", "", "boot this kernel instead of the shape's")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	s, err := lookupShape(*name)
	if err != nil {
		return fail("%v", err)
	}
	names := fs.Args()
	if len(names) == 0 {
		names = applicable(s)
	}
	b, err := buildFor(ctx, kernels[kernelOf(s, *kern)].arch, nil, nil)
	if err != nil {
		return fail("%v", err)
	}
	_, status, err := bootChecks(ctx, s, *kern, b, names, "", os.Stdout)
	if err != nil {
		return fail("%v", err)
	}
	return status
}

func cmdTest(ctx context.Context, args []string) int {
	fs := newFlags("test")
	name := fs.String("shape", "smt8", "the machine shape")
	kern := fs.String("kernel", "", "boot this kernel instead of the shape's")
	flags := fs.String("testflags", "", "flags for every test binary, such as '-test.run TestX -test.v'")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	s, err := lookupShape(*name)
	if err != nil {
		return fail("%v", err)
	}
	pkgs := fs.Args()
	if len(pkgs) == 0 {
		pkgs = testPackages(s, "")
	}
	b, err := buildFor(ctx, kernels[kernelOf(s, *kern)].arch, pkgs, s.testFlags())
	if err != nil {
		return fail("%v", err)
	}
	defer b.remove()
	_, status, err := bootChecks(ctx, s, *kern, b, nil, *flags, os.Stdout)
	if err != nil {
		return fail("%v", err)
	}
	return status
}

func kernelOf(s shape, override string) string {
	if override != "" {
		return override
	}
	return s.kernel
}

func cmdMatrix(ctx context.Context, args []string) int {
	fs := newFlags("matrix")
	only := fs.String("shapes", "", "comma-separated shapes (default: every shape whose kernel can be had)")
	tests := fs.String("tests", "", "comma-separated shapes that also run the test suite")
	packages := fs.String("packages", "", "comma-separated packages whose tests run in the -tests shapes (default: the shape's own list, else ./...)")
	verbose := fs.Bool("v", false, "show each guest's output as it runs")
	if ok, code := parseFlags(fs, args); !ok {
		return code
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	} else {
		for _, n := range shapeNames() {
			if kernels[shapes[n].kernel].built {
				if _, err := prepareKernel(ctx, shapes[n].kernel); err != nil {
					fmt.Fprintf(os.Stderr, "machines: leaving out %s: %v\n", n, err)
					continue
				}
			}
			names = append(names, n)
		}
	}
	withTests := map[string]bool{}
	for _, n := range strings.Split(*tests, ",") {
		if n != "" {
			withTests[n] = true
		}
	}
	builds := map[string]build{}
	defer func() {
		for _, b := range builds {
			b.remove()
		}
	}()
	var rows []matrixRow
	code := 0
	for _, n := range names {
		s, err := lookupShape(n)
		if err != nil {
			return fail("%v", err)
		}
		arch := kernels[s.kernel].arch
		key := arch
		var pkgs []string
		if withTests[n] {
			pkgs = testPackages(s, *packages)
			key = arch + "+" + strings.Join(pkgs, ",") + " " + fmt.Sprint(s.testFlags())
		}
		b, ok := builds[key]
		if !ok {
			if b, err = buildFor(ctx, arch, pkgs, s.testFlags()); err != nil {
				return fail("%v", err)
			}
			builds[key] = b
		}
		start := time.Now()
		var w io.Writer = io.Discard
		if *verbose {
			w = os.Stdout
		}
		fmt.Fprintf(os.Stderr, "machines: %s …\n", n)
		res, status, err := bootChecks(ctx, s, "", b, applicable(s), "", w)
		row := matrixRow{shape: n, res: res, seconds: time.Since(start).Seconds()}
		if err != nil {
			row.err = err.Error()
			code = 1
		} else if status != 0 {
			code = 1
		}
		rows = append(rows, row)
	}
	printMatrix(os.Stdout, rows)
	return code
}

// testPackages are the packages whose tests run in s: those asked for,
// else the shape's own, else all.
func testPackages(s shape, asked string) []string {
	switch {
	case asked != "":
		return strings.Split(asked, ",")
	case len(s.packages) > 0:
		return s.packages
	}
	return []string{"./..."}
}

type matrixRow struct {
	shape   string
	res     guestResults
	seconds float64
	err     string
}

// printMatrix prints shape × check, then each cell's evidence.
func printMatrix(w io.Writer, rows []matrixRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	header := []string{"SHAPE", "KERNEL"}
	for _, c := range checks {
		header = append(header, c.name)
	}
	header = append(header, "tests", "time")
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		cells := []string{r.shape, orUnknown(r.res.Kernel)}
		for _, c := range checks {
			cell := "-"
			for _, cr := range r.res.Checks {
				if cr.Check == c.name {
					cell = cr.Status
				}
			}
			cells = append(cells, cell)
		}
		tests := "-"
		if len(r.res.Tests) > 0 {
			failedPkgs := 0
			for _, t := range r.res.Tests {
				if !t.OK {
					failedPkgs++
				}
			}
			tests = fmt.Sprintf("%d/%d ok", len(r.res.Tests)-failedPkgs, len(r.res.Tests))
		}
		cells = append(cells, tests, fmt.Sprintf("%.0fs", r.seconds))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range rows {
		if r.err != "" {
			fmt.Fprintf(w, "%s: %s\n", r.shape, r.err)
		}
		for _, cr := range r.res.Checks {
			fmt.Fprintf(w, "%s %s %s: %s\n", r.shape, cr.Check, cr.Status, cr.Evidence)
		}
		if len(r.res.Tests) > 0 {
			var times []string
			for _, t := range r.res.Tests {
				pkg := strings.TrimPrefix(t.Pkg, "corepin.dev/corepin/")
				if t.Flags != "" {
					pkg += " (" + t.Flags + ")"
				}
				times = append(times, fmt.Sprintf("%s %.0fs", pkg, t.Seconds))
			}
			fmt.Fprintf(w, "%s tests: %s\n", r.shape, strings.Join(times, ", "))
			var slow []string
			for _, t := range r.res.Tests {
				for _, st := range t.Slow {
					slow = append(slow, fmt.Sprintf("%s %s %.0fs", strings.TrimPrefix(t.Pkg, "corepin.dev/corepin/"), st.Test, st.Seconds))
				}
			}
			if len(slow) > 0 {
				fmt.Fprintf(w, "%s tests of %.0f s or more: %s\n", r.shape, slowTest.Seconds(), strings.Join(slow, ", "))
			}
		}
		for _, t := range r.res.Tests {
			if !t.OK {
				fmt.Fprintf(w, "%s tests FAIL %s:\n%s\n", r.shape, t.Pkg, t.Output)
			}
		}
	}
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
