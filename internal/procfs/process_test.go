package procfs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/fsroot"
)

// procTree writes a fixture /proc with a stat file for each PID at its
// start time, and the threads of the first.
func procTree(t *testing.T, starts map[int]uint64, threads ...int) fsroot.Root {
	t.Helper()
	dir := t.TempDir()
	first := 0
	for pid, start := range starts {
		if first == 0 || pid < first {
			first = pid
		}
		d := filepath.Join(dir, "proc", fmt.Sprint(pid))
		os.MkdirAll(d, 0o755)
		line := strings.Replace(statLine("w) (x", 1, 2, start, 0), "1234", fmt.Sprint(pid), 1)
		os.WriteFile(filepath.Join(d, "stat"), []byte(line), 0o644)
	}
	for _, tid := range threads {
		os.MkdirAll(filepath.Join(dir, "proc", fmt.Sprint(first), "task", fmt.Sprint(tid)), 0o755)
	}
	os.MkdirAll(filepath.Join(dir, "proc", "self"), 0o755) // not a PID
	return fsroot.Root(dir)
}

func TestProcessIdentity(t *testing.T) {
	root := procTree(t, map[int]uint64{10: 500, 11: 900}, 10, 12)
	p, err := Identify(root, 10)
	if err != nil || p != (Process{PID: 10, Start: 500}) {
		t.Fatalf("Identify = %+v, %v", p, err)
	}
	if !p.Alive(root) || p.Gone(root) {
		t.Errorf("%+v: alive %v, gone %v in its own tree", p, p.Alive(root), p.Gone(root))
	}
	reused := Process{PID: 11, Start: 500} // PID 11 now started at 900
	if reused.Alive(root) || !reused.Gone(root) {
		t.Errorf("a reused PID: alive %v, gone %v", reused.Alive(root), reused.Gone(root))
	}
	free := Process{PID: 99, Start: 500}
	if free.Alive(root) || !free.Gone(root) {
		t.Errorf("a free PID: alive %v, gone %v", free.Alive(root), free.Gone(root))
	}
	if unknown := (Process{PID: 11}); unknown.Gone(root) {
		t.Error("a process without a start time whose PID runs is taken as gone")
	}
	if _, err := Identify(root, 99); !os.IsNotExist(err) {
		t.Errorf("Identify of a free PID: %v, want the missing file", err)
	}
	os.WriteFile(root.Path("proc", "11", "stat"), []byte("11 (short) R 1"), 0o644)
	if p := (Process{PID: 11, Start: 500}); p.Gone(root) || p.Alive(root) {
		t.Error("a stat that cannot be read is taken as telling")
	}
	if pids, err := PIDs(root); err != nil || !slices.Equal(sorted(pids), []int{10, 11}) {
		t.Errorf("PIDs = %v, %v", pids, err)
	}
	if tids, err := Tasks(root, 10); err != nil || !slices.Equal(sorted(tids), []int{10, 12}) {
		t.Errorf("Tasks = %v, %v", tids, err)
	}
}

// TestOwnIdentity: this process is alive by its identity on the real
// kernel, and one with another start time is not.
func TestOwnIdentity(t *testing.T) {
	p, err := Identify(fsroot.Host, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !p.Alive(fsroot.Host) || p.Gone(fsroot.Host) {
		t.Errorf("%+v is not alive", p)
	}
	if q := (Process{PID: p.PID, Start: p.Start + 1}); q.Alive(fsroot.Host) || !q.Gone(fsroot.Host) {
		t.Errorf("%+v is taken for this process", q)
	}
}

func sorted(s []int) []int { slices.Sort(s); return s }

func TestParseStatus(t *testing.T) {
	data, err := os.ReadFile("testdata/status-kthreadd")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ParseStatus(data)
	if err != nil || st.Name != "kthreadd" || st.Tgid != 2 || st.Pid != 2 || st.PPid != 0 || st.CPUsAllowed == "" {
		t.Errorf("kthreadd: %+v, %v", st, err)
	}
	for _, bad := range []string{"", "Tgid:\t1\n", "Name:\tx\nTgid:\tmany\n"} {
		if _, err := ParseStatus([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	// A name with a colon is cut at the first one only.
	if st, err := ParseStatus([]byte("Name:\ta:b\nPid:\t7\n")); err != nil || st.Name != "a:b" || st.Pid != 7 {
		t.Errorf("%+v, %v", st, err)
	}
	own, err := ReadStatus(fsroot.Host, os.Getpid())
	if err != nil || own.Tgid != os.Getpid() || own.CPUsAllowed == "" {
		t.Errorf("own status: %+v, %v", own, err)
	}
}

func TestKernelThread(t *testing.T) {
	for file, kernel := range map[string]bool{"testdata/stat-kthreadd": true, "testdata/stat-cat": false} {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		st, err := ParseTaskStat(data)
		if err != nil || st.Kernel() != kernel {
			t.Errorf("%s: kernel %v (%+v, %v), want %v", file, st.Kernel(), st, err, kernel)
		}
	}
}

func TestBootTime(t *testing.T) {
	boot, err := ParseBootTime([]byte("cpu  1 2 3 4\nbtime 1700000000\nprocesses 5\n"))
	if err != nil || boot.Unix() != 1700000000 {
		t.Errorf("%v, %v", boot, err)
	}
	if got := Started(boot, 250); !got.Equal(boot.Add(2500 * time.Millisecond)) {
		t.Errorf("Started = %v", got)
	}
	for _, bad := range []string{"", "btime x\n", "btime -1\n"} {
		if _, err := ParseBootTime([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if b, err := BootTime(fsroot.Host); err != nil || b.After(time.Now()) {
		t.Errorf("this machine's boot: %v, %v", b, err)
	}
}

func FuzzParseStatus(f *testing.F) {
	for _, name := range []string{"testdata/status-cat", "testdata/status-kthreadd"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("Name:\t\nTgid:\t-1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseStatus(data)
		if err == nil && strings.Contains(st.Name, "\n") {
			t.Errorf("%q: a name over two lines %q", data, st.Name)
		}
	})
}

func FuzzParseBootTime(f *testing.F) {
	f.Add([]byte("cpu  1 2 3 4\nbtime 1700000000\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, err := ParseBootTime(data); err == nil && b.Unix() < 0 {
			t.Errorf("%q: boot %v", data, b)
		}
	})
}
