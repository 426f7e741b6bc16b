package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cgroupfs"
)

// running says whether pid runs: a zombie that this test has not reaped
// yet does not.
func running(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err == nil && !strings.Contains(string(data), ") Z ")
}

// freeHostPID is a PID that no process of this namespace has, for the
// namespaced corepin to take: a sweep that read the PID in its cgroup's
// name as one of its own namespace would find it gone.
func freeHostPID(t *testing.T) int {
	t.Helper()
	for pid := 30001; pid < 32000; pid++ {
		if unix.Kill(pid, 0) == unix.ESRCH {
			return pid
		}
	}
	t.Skip("no free PID between 30001 and 32000")
	return 0
}

// TestSweepSparesAnotherNamespacesRun: a corepin exec under `unshare -p
// -f --mount-proc`, whose PID there is free here, runs while corepin topo
// and corepin exec -- true run on this side; its command ends normally
// with 0 at its word. Containers that share the host's cgroup v1
// hierarchy are this case.
func TestSweepSparesAnotherNamespacesRun(t *testing.T) {
	needsRunCgroup(t)
	requireExec(t)
	if os.Geteuid() != 0 {
		t.Skip("unshare -p needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs util-linux's unshare")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ready, stop := filepath.Join(dir, "ready"), filepath.Join(dir, "stop")
	pid := freeHostPID(t)
	// The shell inside makes the namespace's next PID the free one, then
	// starts corepin as a child of its own, which takes it.
	script := `echo ` + strconv.Itoa(pid-1) + ` > /proc/sys/kernel/ns_last_pid && "$0" exec -q -- sh -c 'echo > "$1"; while [ ! -e "$2" ]; do sleep 0.01; done' sh "$1" "$2"`
	ns := exec.Command("unshare", "-p", "-f", "--mount-proc", "sh", "-c", script, exe, ready, stop)
	ns.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ns.Stdout, ns.Stderr = out, out
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Process.Kill(); ns.Wait() })
	said := func() string { data, _ := os.ReadFile(out.Name()); return string(data) }
	waitFor(t, "the namespaced command's readiness marker", func() bool {
		_, err := os.Stat(ready)
		return err == nil || ns.ProcessState != nil
	})
	// Its run cgroup is named for PID pid of another namespace.
	if len(runCgroupsOf(pid)) == 0 {
		t.Fatalf("no run cgroup named for the namespaced corepin's PID %d (the test proves nothing)\n%s", pid, said())
	}
	for _, args := range [][]string{{"topo"}, {"exec", "-q", "--", "true"}} {
		if got, err := corepinProcess(t, args...).CombinedOutput(); err != nil || strings.Contains(string(got), "left by a corepin") {
			t.Errorf("corepin %s: %v\n%s", strings.Join(args, " "), err, got)
		}
	}
	os.WriteFile(stop, nil, 0o644)
	if err := ns.Wait(); err != nil {
		t.Errorf("the namespaced corepin exec: %v, want exit 0\n%s", err, said())
	}
}

// TestSweepSparesAnUnmarkedCgroup: a sleep in a hand-made corepin-99999-1
// cgroup, named as an older corepin named its runs for a PID that does not
// run, outlives corepin version and corepin exec -- true: without
// corepin's mark a cgroup is nobody's to end.
func TestSweepSparesAnUnmarkedCgroup(t *testing.T) {
	needsRunCgroup(t)
	requireExec(t)
	if os.Geteuid() != 0 {
		t.Skip("making cgroups needs root")
	}
	if unix.Kill(99999, 0) != unix.ESRCH {
		t.Skip("PID 99999 runs here")
	}
	homes, err := cgroupfs.RunHomes(fsroot.Host)
	if err != nil || len(homes) == 0 {
		t.Skipf("no cgroup of corepin's own to make one beside: %v", err)
	}
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	for _, home := range homes {
		d := filepath.Join(home, "corepin-99999-1")
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { unix.Rmdir(d) })
		if _, err := os.Stat(filepath.Join(d, "cpuset.mems")); err == nil {
			mems, _ := os.ReadFile(filepath.Join(home, "cpuset.mems"))
			cpus, _ := os.ReadFile(filepath.Join(home, "cpuset.cpus"))
			cgroupfs.Write(filepath.Join(d, "cpuset.mems"), strings.TrimSpace(string(mems)))
			cgroupfs.Write(filepath.Join(d, "cpuset.cpus"), strings.TrimSpace(string(cpus)))
		}
		if err := cgroupfs.Write(filepath.Join(d, "cgroup.procs"), strconv.Itoa(sleep.Process.Pid)); err != nil {
			t.Fatalf("moving the sleep into %s: %v", d, err)
		}
	}
	for _, args := range [][]string{{"version"}, {"exec", "-q", "--", "true"}} {
		got, err := corepinProcess(t, args...).CombinedOutput()
		if err != nil {
			t.Errorf("corepin %s: %v\n%s", strings.Join(args, " "), err, got)
		}
		if !running(sleep.Process.Pid) {
			t.Fatalf("corepin %s ended the sleep in the unmarked corepin-99999-1:\n%s", strings.Join(args, " "), got)
		}
	}
	// Moved back before the cleanup's rmdir, which a member refuses.
	for _, home := range homes {
		cgroupfs.Write(filepath.Join(home, "cgroup.procs"), strconv.Itoa(sleep.Process.Pid))
	}
}
