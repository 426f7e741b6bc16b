package main

// The checks of the path most phones take: no cgroup to hold a run's tree
// (the nocgroup check) and a user without privilege (shell-user, as adb
// shell's uid 2000).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// endLimit is how soon after its command started the tree of corepin
// exec --timeout 1s must be gone, as a tree that ends at its SIGTERM is.
// The check also says how soon corepin returned after the command
// started, and with its own start: under TCG on a busy host a Go
// program's start and its work after the tree's end take seconds.
const endLimit = 1500 * time.Millisecond

// treeStarted waits until the file marker holds the PIDs a command wrote
// there, or until corepin has exited (then the file is read once more),
// and returns when they were read.
func treeStarted(ctx context.Context, marker string, exited <-chan struct{}) (time.Time, []int) {
	read := func() []int {
		data, _ := os.ReadFile(marker)
		var pids []int
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				pids = append(pids, n)
			}
		}
		return pids
	}
	for ctx.Err() == nil {
		if pids := read(); len(pids) == 2 {
			return time.Now(), pids
		}
		select {
		case <-exited:
			return time.Now(), read()
		case <-time.After(2 * time.Millisecond):
		}
	}
	return time.Now(), read()
}

// running says whether the process pid runs: it is there and not a
// zombie (an ended process its parent has not yet reaped).
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// treeReport is the part of corepin exec --report the nocgroup check
// reads.
type treeReport struct {
	Child struct {
		TimedOut bool    `json:"timed_out"`
		Signal   *string `json:"signal"`
	} `json:"child"`
	Tree struct {
		Mechanism string `json:"mechanism"`
		NoCgroup  string `json:"no_cgroup"`
		Subreaper bool   `json:"subreaper"`
		Ended     int    `json:"ended"`
		Left      int    `json:"left"`
	} `json:"tree"`
	Coverage *struct {
		TreeSource      string `json:"tree_source"`
		ResidencySource string `json:"residency_source"`
	} `json:"coverage"`
	// Sharing and the watcher's run and wait are said when the check
	// fails on a sharing verdict: what the judge weighed.
	Sharing json.RawMessage `json:"sharing"`
	Watch   struct {
		RunS  float64 `json:"run_s"`
		WaitS float64 `json:"wait_s"`
	} `json:"watch"`
}

// cgroupMounts lists the cgroup file systems of /proc/self/mounts.
func cgroupMounts() []string {
	data, _ := os.ReadFile("/proc/self/mounts")
	var out []string
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 2 && (f[2] == "cgroup" || f[2] == "cgroup2") {
			out = append(out, f[1])
		}
	}
	return out
}

// processesNamed lists the PIDs whose comm is name.
func processesNamed(name string) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/comm")
	var out []int
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil && strings.TrimSpace(string(data)) == name {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			out = append(out, pid)
		}
	}
	return out
}

// nocgroup checks that without any cgroup mounted a timeout still ends
// the whole tree at once, by its process group and corepin's subreaping,
// and that a command too short to judge gets no coverage warning.
func (c *checker) nocgroup() checkResult {
	const name = "nocgroup"
	if m := cgroupMounts(); len(m) > 0 {
		return failed(name, "cgroup file systems are mounted: %s", strings.Join(m, ", "))
	}
	if pids := processesNamed("sleep"); len(pids) > 0 {
		return failed(name, "sleep already runs (%v) before the check", pids)
	}
	var p problems
	report := filepath.Join(c.tmp, "timeout.json")
	ctx, cancel := context.WithTimeout(c.ctx, time.Minute)
	defer cancel()
	// The shell says its PID and its background sleep's in a file once
	// both run, and then runs (or execs, as dash does) its last sleep: the
	// check follows those PIDs instead of scanning /proc for the command,
	// which under TCG can take longer than the tree lives.
	marker := filepath.Join(c.tmp, "tree.pids")
	cmd := exec.CommandContext(ctx, c.corepin, "exec", "--report", report, "--timeout", "1s", "--",
		"sh", "-c", `sleep 30 & echo $$ $! > "$0"; sleep 30`, marker)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	// The check polls the tree's PIDs every 2 ms: off the target, so
	// that only the command's own time is on it.
	t, err := c.target()
	if err != nil {
		return failed(name, "%v", err)
	}
	startCmd, restore, err := offTarget(t)
	if err != nil {
		return failed(name, "%v", err)
	}
	defer restore()
	start := time.Now()
	if err := startCmd(cmd); err != nil {
		return failed(name, "%v", err)
	}
	exited := make(chan struct{})
	go func() { err = cmd.Wait(); close(exited) }()
	began, tree := treeStarted(ctx, marker, exited)
	seen := len(tree) == 2
	// The tree is gone when neither of its PIDs runs.
	var gone time.Duration
	for ; seen && ctx.Err() == nil; time.Sleep(2 * time.Millisecond) {
		if !slices.ContainsFunc(tree, running) {
			gone = time.Since(began)
			break
		}
	}
	<-exited
	took, total := time.Since(began), time.Since(start)
	restore()
	left := processesNamed("sleep")
	code := -1
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err == nil {
		code = 0
	}
	if code != 128+15 {
		p.add("corepin exec --timeout 1s exited %d (%v), want 143 (SIGTERM): %s", code, err, strings.TrimSpace(errOut.String()))
	}
	if !seen {
		p.add("the command never wrote its PIDs (read %v; looked for %.2f s; corepin returned %.2f s after its start)", tree, began.Sub(start).Seconds(), total.Seconds())
	} else if gone > endLimit {
		p.add("the tree of corepin exec --timeout 1s was gone %.2f s after it started, want within %.1f s", gone.Seconds(), endLimit.Seconds())
	}
	if len(left) > 0 {
		p.add("the tree's sleep processes %v still run after corepin returned", left)
	}
	var rep treeReport
	if data, err := os.ReadFile(report); err != nil {
		p.add("report: %v", err)
	} else if err := json.Unmarshal(data, &rep); err != nil {
		p.add("report: %v", err)
	}
	tr := rep.Tree
	if tr.Mechanism != "process-group" || !tr.Subreaper || tr.NoCgroup == "" || tr.Left != 0 || tr.Ended < 2 {
		p.add("tree %+v: want the process group and the subreaper, the reason there is no cgroup, both sleeps ended and nothing left", tr)
	}
	// The sleeps corepin ended are the work's: nothing else took the
	// target, and nothing is said to have.
	if said := errOut.String(); strings.Contains(said, "others took") || strings.Contains(said, "shared") {
		p.add("corepin exec --timeout 1s of a shell and its background sleep says the target was shared: %s; the report's sharing %s, watch %+v", strings.TrimSpace(said), rep.Sharing, rep.Watch)
	}
	if !rep.Child.TimedOut || rep.Child.Signal == nil || *rep.Child.Signal != "SIGTERM" {
		p.add("child %+v: want timed out by SIGTERM", rep.Child)
	}
	if cov := rep.Coverage; cov == nil || cov.TreeSource != "rusage" || cov.ResidencySource != "sampled" {
		p.add("coverage %+v: want the tree's time from rusage and the residency sampled", cov)
	}
	// A command of a few milliseconds is too short to judge: no word of
	// what its samples cover, or of its residency.
	_, trueErr, trueCode := c.corepinRun("exec", "--", "true")
	if trueCode != 0 || strings.Contains(trueErr, "warning") {
		p.add("corepin exec -- true: exit %d, want 0 and no warning: %s", trueCode, strings.TrimSpace(trueErr))
	}
	return p.result(name, fmt.Sprintf("no cgroup mounted; exec --timeout 1s of a shell and its background sleep: the tree gone %.2f s after it started, corepin returned after %.2f s (%.2f s with its own start), exit %d, %d ended by %s (%s), no sleep left; no sharing warning; exec -- true: no warning",
		gone.Seconds(), took.Seconds(), total.Seconds(), code, tr.Ended, tr.Mechanism, tr.NoCgroup))
}

// shellCapsView is the part of corepin caps --json the shell-user check
// reads.
type shellCapsView struct {
	UID          int    `json:"uid"`
	Affinity     bool   `json:"affinity"`
	NiceLowering bool   `json:"nice_lowering"`
	Realtime     bool   `json:"realtime"`
	UclampRaise  bool   `json:"uclamp_raise"`
	Containment  string `json:"containment"`
}

// shellUser checks that a user without privilege is told up front what a
// run gets (caps) and that its priority could not be raised (run, once),
// and that every run completes with the mechanism that held its tree
// named.
func (c *checker) shellUser() checkResult {
	const name = "shell-user"
	want := c.shape.uid
	if os.Geteuid() != want {
		return failed(name, "the check runs as uid %d, not %d", os.Geteuid(), want)
	}
	var p problems
	if eff := statusField("/proc/self/status", "CapEff"); strings.Trim(eff, "0") != "" {
		p.add("CapEff %s: want no capability", eff)
	}
	online := sysList("online")
	t := online[len(online)-1]
	_, affErr := tool(c.ctx, "taskset", "-c", strconv.Itoa(t), "true")
	_, rtErr := tool(c.ctx, "chrt", "-f", "1", "true")
	_, niceErr := tool(c.ctx, "renice", "-n", "-1", "-p", strconv.Itoa(os.Getpid()))
	out, errOut, code := c.corepinRun("caps", "--json")
	var v shellCapsView
	if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
		return failed(name, "corepin caps --json: exit %d: %s", code, strings.TrimSpace(errOut))
	}
	if v.UID != want || v.Affinity != (affErr == nil) || v.Realtime != (rtErr == nil) || v.NiceLowering != (niceErr == nil) {
		p.add("caps %+v; taskset -c %d: %v, chrt -f 1: %v, renice -n -1: %v", v, t, affErr, rtErr, niceErr)
	}
	if v.UclampRaise || v.Containment != "process-group" {
		p.add("caps says uclamp raise %v and containment %q: want no and the process group", v.UclampRaise, v.Containment)
	}
	text, _, _ := c.corepinRun("caps")
	if !strings.Contains(text, "a run's priority cannot be raised here") {
		p.add("corepin caps does not say the priority cannot be raised:\n%s", text)
	}
	// The quick suite: the runs are said, once, to keep their priority,
	// and each names what held its tree.
	dir, err := os.MkdirTemp(c.tmp, "run-")
	if err != nil {
		return failed(name, "%v", err)
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.corepin, "run", "--quick", "--out", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	said := strings.Count(stderr.String(), "the runs' priority could not be raised")
	if said != 1 {
		p.add("corepin run --quick said %d times that the priority could not be raised, want once (%v): %s", said, runErr, lastLines(stderr.String(), 5))
	}
	if !strings.Contains(stderr.String(), "held by its process group and corepin's subreaping") {
		p.add("corepin run --quick does not say that the process group held the runs' trees")
	}
	runs, mechanisms, err := runMechanisms(dir)
	if err != nil {
		p.add("%v (%v): %s", err, runErr, lastLines(stderr.String(), 5))
	}
	for m, n := range mechanisms {
		if m != "process-group" {
			p.add("%d run(s) held by %q", n, m)
		}
	}
	return p.result(name, fmt.Sprintf("uid %d without capabilities: caps says affinity %v, nice below 0 %v, realtime %v, uclamp raise %v, %s; run --quick: %d runs, each held by the process group, the priority said once",
		v.UID, v.Affinity, v.NiceLowering, v.Realtime, v.UclampRaise, v.Containment, runs))
}

// runMechanisms reads run.json under dir: how many runs completed, and
// what held each one's tree.
func runMechanisms(dir string) (int, map[string]int, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*", "run.json"))
	if len(paths) != 1 {
		return 0, nil, fmt.Errorf("%d results folders under %s", len(paths), dir)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return 0, nil, err
	}
	var run struct {
		Benchmarks []struct {
			Name string `json:"name"`
			Runs []struct {
				Error      string `json:"error"`
				Scheduling *struct {
					Tree *struct {
						Mechanism string `json:"mechanism"`
					} `json:"tree"`
				} `json:"scheduling"`
			} `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &run); err != nil {
		return 0, nil, err
	}
	n, mechanisms := 0, map[string]int{}
	var problems []string
	for _, b := range run.Benchmarks {
		if len(b.Runs) == 0 {
			problems = append(problems, b.Name+" has no run")
		}
		for i, r := range b.Runs {
			switch {
			case r.Error != "":
				problems = append(problems, fmt.Sprintf("%s run %d: %s", b.Name, i, r.Error))
			case r.Scheduling == nil || r.Scheduling.Tree == nil:
				mechanisms["(none named)"]++
			default:
				mechanisms[r.Scheduling.Tree.Mechanism]++
			}
			n++
		}
	}
	if len(problems) > 0 {
		return n, mechanisms, fmt.Errorf("runs did not complete: %s", strings.Join(problems, "; "))
	}
	return n, mechanisms, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
