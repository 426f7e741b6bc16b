//go:build linux && cgo

package cgotest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/nobody"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

func requireRoot(t *testing.T) {
	t.Helper()
	if !sched.NiceLowering().Supported {
		t.Skip("needs CAP_SYS_NICE (run the tests as root): " + sched.NiceLowering().Evidence)
	}
}

// target is the exact CPU corepin chooses here ("prime"), and the CPUs
// this process may use.
func target(t *testing.T) (int, cpuset.Set) {
	t.Helper()
	topo, err := topology.ReadForSelection("/")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := topo.Select("prime")
	if err != nil {
		t.Fatal(err)
	}
	return tg.ExactCPU, topo.Usable()
}

// normalized decodes a report and removes what differs between two runs of
// the same request: the thread id, and the CPU a thread with a wide mask
// happened to be on when it was read back.
func normalized(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("report %s: %v", data, err)
	}
	delete(m, "tid")
	rb, _ := m["readback"].(map[string]any)
	if cpus, _ := rb["cpus"].([]any); len(cpus) > 1 {
		rb["cpu"] = "any of " + fmt.Sprint(cpus)
		if acc, _ := m["accept"].(map[string]any); acc != nil {
			why, _ := acc["why"].(string)
			acc["why"] = onCPU.ReplaceAllString(why, "on CPU _ with")
			acc["why"] = onCPUComma.ReplaceAllString(acc["why"].(string), "is on CPU _,")
		}
	}
	return m
}

var (
	onCPU      = regexp.MustCompile(`on CPU \d+ with`)
	onCPUComma = regexp.MustCompile(`is on CPU \d+,`)
)

func TestPickTargetAsCorepinDoes(t *testing.T) {
	cpu, _ := target(t)
	if got := pickTarget(); got != cpu {
		t.Errorf("corepin_pick_target = %d, corepin's prime target = %d", got, cpu)
	}
}

func TestRulesParseAsTheGoSession(t *testing.T) {
	for _, text := range []string{"exact", "soft", "any", " soft+step<=2+nice<=-10 ", "exact+uclamp-min>=1024", "any+qos=user-interactive",
		"any+qos=QOS_USER_INTERACTIVE", "soft+policy=fifo", "", "strict", "exact+color=red", "exact+step", "soft+qos=fast", "exact+nice<=x",
		"exact+policy>=fifo", "exact+qos<=5", "any+nice=+3", "soft+policy=normal", "soft+policy=FIFO", "any+policy=sched_other"} {
		r, goErr := session.ParseRule(text)
		got, ok := parseRule(text)
		if ok != (goErr == nil) {
			t.Errorf("rule %q: C accepts it %v, Go says %v", text, ok, goErr)
			continue
		}
		if ok && got != r.String() {
			t.Errorf("rule %q reads as %q in C and %q in Go", text, got, r.String())
		}
	}
}

// TestReportGolden holds the C library to the Go session: for each
// scripted request the two reports are equal once thread ids are removed
// (keys, read-backs, every step's errno and message, restore verdicts).
func TestReportGolden(t *testing.T) {
	requireRoot(t)
	cpu, _ := target(t)
	for _, sc := range scripts(cpu) {
		t.Run(sc.name, func(t *testing.T) {
			c, g, err := bothReports(sc)
			if err != nil {
				t.Fatal(err)
			}
			if tainted() {
				clearTaint()
				t.Errorf("the C library is tainted after %s", sc.name)
			}
			cm, gm := normalized(t, c), normalized(t, g)
			if !reflect.DeepEqual(cm, gm) {
				t.Errorf("reports differ\nC:  %s\nGo: %s", c, g)
			}
			if rs, _ := cm["restore"].(map[string]any); rs["ok"] != true {
				t.Errorf("restore: %v", rs)
			}
		})
	}
}

// TestWitnesses checks the C session's read-back against tools that read
// the kernel by themselves: taskset -p and chrt -p on the TID, and
// /proc/PID/task/TID/status and stat.
func TestWitnesses(t *testing.T) {
	requireRoot(t)
	for _, tool := range []string{"taskset", "chrt"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s (util-linux)", tool)
		}
	}
	cpu, _ := target(t)
	ready, release := make(chan *cSession), make(chan struct{})
	done := make(chan []byte)
	go func() {
		onLockedThread(func() {
			s, err := begin(options{CPU: cpu, Ladder: "geekbench", QoS: -1, Accept: "exact"})
			if err != nil {
				t.Error(err)
				close(ready)
				return
			}
			ready <- s
			<-release
			s.finish()
			done <- s.reportJSON()
			s.free()
		})
	}()
	s, ok := <-ready
	if !ok {
		return
	}
	tid := s.tid()
	var rep evidence.Session
	func() {
		defer close(release)
		out, err := exec.Command("taskset", "-p", strconv.Itoa(tid)).Output()
		if err != nil {
			t.Fatal(err)
		}
		// "pid 123's current affinity mask: 2"
		f := strings.Fields(string(out))
		mask, err := strconv.ParseUint(f[len(f)-1], 16, 64)
		if err != nil || mask != 1<<uint(cpu) {
			t.Errorf("taskset -p %d: %q, want mask %x", tid, out, 1<<uint(cpu))
		}
		out, err = exec.Command("chrt", "-p", strconv.Itoa(tid)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), "SCHED_OTHER") || !strings.Contains(string(out), "priority: 0") {
			t.Errorf("chrt -p %d: %q, want SCHED_OTHER priority 0", tid, out)
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/status", os.Getpid(), tid))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(status), fmt.Sprintf("Cpus_allowed_list:\t%d\n", cpu)) {
			t.Errorf("/proc status of %d does not allow only CPU %d:\n%s", tid, cpu, status)
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/stat", os.Getpid(), tid))
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if nice := fields[19-3]; nice != "-20" && !strings.Contains(string(s.reportJSON()), `"accepted_step":0`) {
			t.Errorf("/proc stat nice of %d = %s, the read-back says -20", tid, nice)
		}
	}()
	if err := json.Unmarshal(<-done, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Readback.ExactAtReadback || rep.Readback.CPU != cpu || !rep.Restore.OK || rep.Ladder.AcceptedStep == 0 {
		t.Errorf("read-back %+v, ladder step %d, restore %+v", rep.Readback, rep.Ladder.AcceptedStep, rep.Restore)
	}
}

// runHelper runs the test binary as a helper, as nobody when asked.
func runHelper(t *testing.T, name string, cpu int, asNobody bool) (c, g map[string]any) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	if asNobody {
		cmd = nobody.Command(t, nobody.Executable(t))
	}
	cmd.Env = append(os.Environ(), "COREPIN_NATIVE_HELPER="+name, "COREPIN_NATIVE_CPU="+strconv.Itoa(cpu))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s: %v\n%s", name, err, out)
	}
	var res struct {
		C, Go json.RawMessage
		Err   string
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("helper %s printed %q: %v", name, out, err)
	}
	if res.Err != "" {
		t.Fatalf("helper %s: %s", name, res.Err)
	}
	return normalized(t, res.C), normalized(t, res.Go)
}

func steps(rep map[string]any) []any {
	l, _ := rep["ladder"].(map[string]any)
	s, _ := l["steps"].([]any)
	return s
}

// TestUnprivilegedMatchesGoSession: as nobody, the steps that need
// privilege fail with the same errnos in both libraries, and both restore
// what they could change.
func TestUnprivilegedMatchesGoSession(t *testing.T) {
	cpu, _ := target(t)
	for _, name := range []string{"geekbench-realtime", "geekbench", "nice5"} {
		t.Run(name, func(t *testing.T) {
			c, g := runHelper(t, name, cpu, true)
			if !reflect.DeepEqual(c, g) {
				cj, _ := json.Marshal(c)
				gj, _ := json.Marshal(g)
				t.Errorf("as nobody the reports differ\nC:  %s\nGo: %s", cj, gj)
			}
			st := steps(c)
			switch name {
			case "geekbench-realtime":
				if first, _ := st[0].(map[string]any); first["errno"] != "EPERM" {
					t.Errorf("FIFO as nobody: %v, want EPERM", first)
				}
				fallthrough
			case "geekbench":
				if last, _ := st[len(st)-1].(map[string]any); last["errno"] != "EPERM" {
					t.Errorf("nice -20 as nobody: %v, want EPERM", last)
				}
			case "nice5":
				// raising nice is allowed, lowering it back is not: both
				// restores fail the same way
				if rs, _ := c["restore"].(map[string]any); rs["ok"] != false {
					t.Errorf("restore of nice 5 as nobody: %v, want a failure", rs)
				}
			}
		})
	}
}

// watchThread finds the one registered thread in a maintenance result.
func watchThread(t *testing.T, data []byte) (map[string]any, map[string]any) {
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal(data, &res); err != nil {
		t.Fatalf("maintenance result %s: %v", data, err)
	}
	threads, _ := res["threads"].([]any)
	if len(threads) != 1 {
		t.Fatalf("maintenance result lists %d threads, want 1: %s", len(threads), data)
	}
	th, _ := threads[0].(map[string]any)
	return res, th
}

func requireTwoCPUs(t *testing.T) int {
	t.Helper()
	cpu, usable := target(t)
	if usable.Len() < 2 {
		t.Skipf("needs two usable CPUs to widen a mask and keep the maintenance off the target (have %s)", usable)
	}
	return cpu
}

// TestMaintenancePutsBackWideningWorker: a worker that widens its own mask
// twice during 300 ms of CPU time is put back by the maintenance
// thread, by TID and through the directed signal.
func TestMaintenancePutsBackWideningWorker(t *testing.T) {
	cpu := requireTwoCPUs(t)
	for _, signal := range []bool{false, true} {
		t.Run(fmt.Sprintf("signal=%v", signal), func(t *testing.T) {
			data, err := runWiden(cpu, 300, 10, signal)
			if err != nil {
				t.Fatal(err)
			}
			res, th := watchThread(t, data)
			ratio, _ := th["on_target_ratio"].(float64)
			if ratio < 0.9 || th["reasserts"].(float64) < 2 || th["compute"] != true {
				t.Errorf("residency %v, re-assertions %v, compute %v; want >= 0.9, >= 2 (one per widening), true: %s", th["on_target_ratio"], th["reasserts"], th["compute"], data)
			}
			if w, ok := th["wait_s"].(float64); !ok || w < 0 {
				t.Errorf("run-queue wait %v", th["wait_s"])
			}
			if wc := res["watcher_cpus"].([]any); len(wc) == 0 || containsCPU(wc, cpu) {
				t.Errorf("the maintenance thread ran on %v, the target is %d", wc, cpu)
			}
			if signal {
				sig, _ := res["signal"].(map[string]any)
				if th["signal_sent"].(float64) < 1 || th["signal_sent"] != th["signal_handled"] || sig["drained"] != true {
					t.Errorf("signal path: sent %v, handled %v, %v", th["signal_sent"], th["signal_handled"], sig)
				}
			}
		})
	}
}

func containsCPU(list []any, cpu int) bool {
	for _, v := range list {
		if int(v.(float64)) == cpu {
			return true
		}
	}
	return false
}

// TestReusedTIDIsLeftAlone: a registration whose start time no longer
// matches its TID's thread (the TID was reused) is never re-asserted.
func TestReusedTIDIsLeftAlone(t *testing.T) {
	cpu := requireTwoCPUs(t)
	data, tid, before, after := runReused(cpu)
	if data == nil {
		t.Fatal("the maintenance thread did not run")
	}
	_, th := watchThread(t, data)
	if th["identity"] != "tid-reused" || th["reasserts"].(float64) != 0 || int(th["tid"].(float64)) != tid {
		t.Errorf("reused TID %d: %v", tid, th)
	}
	if !after.Equal(before) {
		t.Errorf("the thread now holding TID %d had its mask changed from %s to %s", tid, before, after)
	}
	if n, err := sched.GetNice(tid); err == nil && n == 7 {
		t.Errorf("the thread now holding TID %d was reniced", tid)
	}
}
