package system

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// shieldTree is a fixture root with a cgroup v1 cpuset mount (its mount
// point holding a space, as mountinfo escapes it), this process inside a
// shield's cgroup, and two tasks: a kernel thread and a thread of a
// process.
func shieldTree(t *testing.T) fsroot.Root {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/self/mountinfo", "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n35 31 0:32 / /sys/fs/cgroup/cpu\\040set rw - cgroup cgroup rw,cpuset\n")
	write("proc/self/cgroup", "3:cpuset:/corepin-shield-77/inner\n1:cpu:/\n")
	stat := func(pid int, comm string, flags uint64, start int) string {
		return fmt.Sprintf("%d (%s) S 0 0 0 0 -1 %d 0 0 0 0 0 1 0 0 20 0 1 0 %d 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 0\n", pid, comm, flags, start)
	}
	write("proc/2/stat", stat(2, "kthreadd", 2129984, 14))
	write("proc/2/status", "Name:\tkthreadd\nTgid:\t2\nPid:\t2\nCpus_allowed_list:\t0-1\n")
	write("proc/2/task/2/stat", stat(2, "kthreadd", 2129984, 14))
	write("proc/500/stat", stat(500, "a) (b", 4194304, 900))
	write("proc/500/status", "Name:\ta) (b\nTgid:\t500\nPid:\t500\nCpus_allowed_list:\t1\n")
	write("proc/501/stat", stat(501, "worker", 4194368, 901))
	write("proc/501/status", "Name:\tworker\nTgid:\t500\nPid:\t501\nCpus_allowed_list:\t0-1\n")
	for _, tid := range []int{500, 501} {
		os.MkdirAll(filepath.Join(dir, "proc", "500", "task", fmt.Sprint(tid)), 0o755)
	}
	return fsroot.Root(dir)
}

func TestShieldReadsUnderItsRoot(t *testing.T) {
	root := shieldTree(t)
	mount, v2, err := cpusetMount(root)
	if err != nil || v2 || mount != "/sys/fs/cgroup/cpu set" {
		t.Errorf("cpusetMount = %q, %v, %v", mount, v2, err)
	}
	if own := ownCpuset(root); own != "/sys/fs/cgroup/cpu set/corepin-shield-77/inner" {
		t.Errorf("ownCpuset = %q", own)
	}
	if sh := shieldAround(root); sh != "/sys/fs/cgroup/cpu set/corepin-shield-77" {
		t.Errorf("shieldAround = %q", sh)
	}
	if !insideCgroup(root, "/sys/fs/cgroup/cpu set/corepin-shield-77") || insideCgroup(root, "/sys/fs/cgroup/cpu set/corepin-shield-7") {
		t.Error("insideCgroup does not follow the fixture's cgroup")
	}
	tids := allThreads(root)
	slices.Sort(tids)
	if !slices.Equal(tids, []int{2, 500, 501}) {
		t.Errorf("allThreads = %v", tids)
	}
	k, err := readStatus(root, 2)
	if err != nil || !k.kernel || k.start != 14 || k.tgid != 2 {
		t.Errorf("kthreadd: %+v, %v", k, err)
	}
	w, err := readStatus(root, 501)
	if err != nil || w.kernel || w.tgid != 500 || w.cpus != "0-1" || w.start != 901 || w.name != "worker" {
		t.Errorf("worker: %+v, %v", w, err)
	}
	if _, err := readStatus(root, 9); err == nil {
		t.Error("a missing task read")
	}
	if !sameTask(root, evidence.Entry{TID: 501, TaskStart: 901}) || sameTask(root, evidence.Entry{TID: 501, TaskStart: 900}) {
		t.Error("sameTask does not tell a task by its start time")
	}
	// The journal's owner check, on the same tree.
	if !(Owner{PID: 500, Start: 900}).Alive(root) || (Owner{PID: 500, Start: 1}).Alive(root) || (Owner{PID: 9, Start: 900}).Alive(root) {
		t.Error("Owner.Alive does not tell a process by its PID and start time")
	}
}

// A process outside any shield is told so from its own cgroup file alone:
// every command's start asks, and the mount table is read only for a path
// named like a shield.
func TestNoShieldAroundFromTheCgroupFile(t *testing.T) {
	root := shieldTree(t)
	os.WriteFile(root.Path("proc/self/cgroup"), []byte("3:cpuset:/corepin-run-1-1\n1:cpu:/user.slice\n"), 0o644)
	if sh := shieldAround(root); sh != "" {
		t.Errorf("outside a shield: shieldAround = %q", sh)
	}
	os.Remove(root.Path("proc/self/mountinfo"))
	if sh := shieldAround(root); sh != "" {
		t.Errorf("without a mount table: shieldAround = %q", sh)
	}
	if !namesShield(map[string]string{"cpuset": "/corepin-shield-77/inner"}) || namesShield(map[string]string{"": "/corepin-shield"}) {
		t.Error("namesShield does not follow the shield's name")
	}
}
