package system

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
	"corepin.dev/corepin/results/evidence"
)

// The test binary doubles as a process that tunes a fixture tree and ends
// itself after a number of writes, as a SIGKILL or a crash would end it.
func TestMain(m *testing.M) {
	for env, helper := range helpers {
		if v := os.Getenv(env); v != "" {
			os.Exit(helper(v))
		}
	}
	os.Exit(m.Run())
}

// helpers are the roles the test binary can play, by environment variable.
var helpers = map[string]func(string) int{"COREPIN_SYSTEM_TEST_DIE": dieDuringTune}

// dieDuringTune runs a full tune of ROOT with its journal at JOURNAL and
// exits with status 3 right after write number N.
func dieDuringTune(spec string) int {
	parts := strings.SplitN(spec, ":", 3)
	n, _ := strconv.Atoi(parts[2])
	writes := 0
	m := &Machine{Root: fsroot.Root(parts[0]), Journal: parts[1], write: func(path string, data []byte) error {
		err := writeFile(path, data)
		if writes++; writes == n {
			os.Exit(3)
		}
		return err
	}}
	changes, err := Plan(mustRead(nil, string(m.Root), cpuset.Of(1)), fullRequest(cpuset.Of(1)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := m.Session("test tune").Apply(context.Background(), changes); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

var fixtures = []string{"intel-pstate", "acpi-cpufreq", "amd-pstate-epp", "phone-4-3-1"}

func fullRequest(cpus cpuset.Set) evidence.TuneRequest {
	return evidence.TuneRequest{CPUs: cpus, NoBoost: true, IRQs: true, Idle: true}
}

func mustRead(tb testing.TB, root string, cpus cpuset.Set) *evidence.Facts {
	f, err := Read(fsroot.Root(root), cpus)
	if err != nil {
		if tb == nil {
			panic(err)
		}
		tb.Fatal(err)
	}
	return f
}

// copyTree copies a fixture machine into a new temporary folder, links
// included, and returns the copy's root.
func copyTree(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("testdata", "machines", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		case d.IsDir():
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// snapshot maps every file and link of a tree to its content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "-> " + target
		case d.IsDir():
			out[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, want, got map[string]string) {
	t.Helper()
	for k, v := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: gone", k)
		} else if g != v {
			t.Errorf("%s: %q, want %q", k, g, v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: new", k)
		}
	}
}

func TestTuneThenResetLeavesTheTreeAsItWas(t *testing.T) {
	t.Parallel()
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := copyTree(t, name)
			m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "journal.json")}
			before := snapshot(t, root)
			target := cpuset.Of(1)
			req := fullRequest(target)
			if name == "phone-4-3-1" {
				req.NoBoost = false // it has no boost switch (see TestTuneRefusesWhatTheMachineCannotDo)
			}
			changes, err := Plan(mustRead(t, root, target), req)
			if err != nil {
				t.Fatal(err)
			}
			res, err := m.Session("test").Apply(t.Context(), changes)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Done) != len(changes) {
				t.Errorf("%d changes done of %d: refused %v", len(res.Done), len(changes), res.Refused)
			}
			after := mustRead(t, root, target)
			for _, c := range after.Checks {
				if c.Important && !c.Good {
					t.Errorf("after tune, still bad: %s: %s", c.Item, c.Value)
				}
			}
			if _, err := os.Stat(m.JournalPath()); err != nil {
				t.Errorf("no journal while tuned: %v", err)
			}
			rep, err := m.Reset(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Restored) != len(res.Done) {
				t.Errorf("restored %d of %d", len(rep.Restored), len(res.Done))
			}
			sameTree(t, before, snapshot(t, root))
			if _, err := os.Stat(m.JournalPath()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("journal left after a full reset: %v", err)
			}
		})
	}
}

func TestPlanOrder(t *testing.T) {
	t.Parallel()
	f := mustRead(t, "testdata/machines/intel-pstate", cpuset.Of(2))
	changes, err := Plan(f, evidence.TuneRequest{CPUs: cpuset.Of(2), NoBoost: true, Freq: "base"})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, c := range changes {
		order = append(order, filepath.Base(c.Path)+"="+c.Value)
	}
	// The governor comes first: writing it resets no_turbo. Going down
	// from 4.7 GHz, min is written before max.
	want := "scaling_governor=performance no_turbo=1 energy_performance_preference=performance scaling_min_freq=2400000 scaling_max_freq=2400000 perf_event_max_sample_rate=1"
	if got := strings.Join(order, " "); got != want {
		t.Errorf("plan\n got %s\nwant %s", got, want)
	}
}

func TestLockFrequency(t *testing.T) {
	t.Parallel()
	f := mustRead(t, "testdata/machines/phone-4-3-1", cpuset.Of(7))
	p := f.CPUFreq.Policy(7)
	for _, tc := range []struct {
		freq string
		want string // kHz, or part of the error
	}{
		{"max", "2841600"},
		{"", "2841600"},
		{"50%", "844800"},  // 1420800 snaps down to the table's 844800
		{"90%", "2419200"}, // 2557440 snaps down
		{"2419200", "2419200"},
		{"base", "driver qcom-cpufreq-hw gives no base"},
		{"100000", "is below the hardware minimum"},
		{"0%", "want a percentage"},
		{"fast", "want max, base"},
	} {
		khz, err := lockFrequency(p, tc.freq, false)
		got := strconv.FormatInt(khz, 10)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("--freq %q: %q, want %q", tc.freq, got, tc.want)
		}
	}
}

// kernelWrites models cpufreq's refusal of a min above the max and a max
// below the min (EINVAL), on top of a fixture tree.
func kernelWrites(path string, data []byte) error {
	base := filepath.Base(path)
	if base == "scaling_min_freq" || base == "scaling_max_freq" {
		v, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		readSibling := func(name string) int64 {
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(path), name))
			n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			return n
		}
		if base == "scaling_min_freq" && v > readSibling("scaling_max_freq") {
			return &os.PathError{Op: "write", Path: path, Err: unix.EINVAL}
		}
		if base == "scaling_max_freq" && v < readSibling("scaling_min_freq") {
			return &os.PathError{Op: "write", Path: path, Err: unix.EINVAL}
		}
	}
	return writeFile(path, data)
}

func TestMinAboveCurrentMaxSucceedsByOrder(t *testing.T) {
	t.Parallel()
	root := copyTree(t, "acpi-cpufreq")
	before := snapshot(t, root)
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json"), write: kernelWrites}
	target := cpuset.Of(0)
	tune := func(s *Session, freq string) {
		t.Helper()
		changes, err := Plan(mustRead(t, root, target), evidence.TuneRequest{CPUs: target, Freq: freq})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Apply(t.Context(), changes); err != nil {
			t.Fatalf("--freq %s: %v", freq, err)
		}
	}
	first := m.Session("first")
	tune(first, "1200000") // max comes down to 1.2 GHz
	second := &Session{m: m, owner: Owner{PID: first.owner.PID, Start: first.owner.Start + 1}, command: "second"}
	tune(second, "max") // min goes to 3 GHz, above the current max: max first
	f := mustRead(t, root, target)
	if p := f.CPUFreq.Policy(0); *p.MinKHz != 3000000 || *p.MaxKHz != 3000000 {
		t.Fatalf("min %d max %d, want 3000000 both", *p.MinKHz, *p.MaxKHz)
	}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))
}

func TestSecondTuneKeepsTheFirstOldValues(t *testing.T) {
	t.Parallel()
	root := copyTree(t, "phone-4-3-1")
	before := snapshot(t, root)
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
	target := cpuset.Of(7)
	first := m.Session("first")
	changes, _ := Plan(mustRead(t, root, target), evidence.TuneRequest{CPUs: target, Freq: "50%"})
	if _, err := first.Apply(t.Context(), changes); err != nil {
		t.Fatal(err)
	}
	tunedOnce := snapshot(t, root)
	second := &Session{m: m, owner: Owner{PID: first.owner.PID, Start: first.owner.Start + 1}, command: "second"}
	changes, _ = Plan(mustRead(t, root, target), evidence.TuneRequest{CPUs: target, Freq: "max", IRQs: true})
	if _, err := second.Apply(t.Context(), changes); err != nil {
		t.Fatal(err)
	}
	j, err := ReadJournal(m.JournalPath())
	if err != nil || j == nil || len(j.Layers) != 2 {
		t.Fatalf("journal after two tunes: %+v, %v", j, err)
	}
	// The second session undoes its own changes alone.
	if _, err := second.Reset(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, tunedOnce, snapshot(t, root))
	// A second tune again, then a full reset: the first old values return.
	if _, err := second.Apply(t.Context(), changes); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))
}

func TestFailedWriteRollsBack(t *testing.T) {
	t.Parallel()
	root := copyTree(t, "intel-pstate")
	target := cpuset.Of(1)
	changes, err := Plan(mustRead(t, root, target), fullRequest(target))
	if err != nil {
		t.Fatal(err)
	}
	// A directory where the energy preference should be: it cannot be
	// read or written (EISDIR), after the governor and no_turbo were.
	epp := filepath.Join(root, cpufreqDir, "policy1", "energy_performance_preference")
	os.Remove(epp)
	os.Mkdir(epp, 0o755)
	before := snapshot(t, root)
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
	res, err := m.Session("test").Apply(t.Context(), changes)
	if err == nil {
		t.Fatal("a tune through a directory succeeded")
	}
	var we *WriteError
	if !errors.As(err, &we) || !strings.HasSuffix(we.Path, "energy_performance_preference") || !errors.Is(err, unix.EISDIR) {
		t.Errorf("error %v: want the file and EISDIR", err)
	}
	if !strings.Contains(err.Error(), "EISDIR") {
		t.Errorf("the message does not name the errno: %v", err)
	}
	if res.Rollback == nil || len(res.Rollback.Restored) != 2 {
		t.Errorf("rollback %+v, want the governor and no_turbo put back", res.Rollback)
	}
	sameTree(t, before, snapshot(t, root))
	if _, err := os.Stat(m.JournalPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("journal left after a rollback: %v", err)
	}
}

func TestRefusedWriteRollsBack(t *testing.T) {
	t.Parallel()
	root := copyTree(t, "amd-pstate-epp")
	before := snapshot(t, root)
	target := cpuset.Of(1)
	changes, err := Plan(mustRead(t, root, target), fullRequest(target))
	if err != nil {
		t.Fatal(err)
	}
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json"), write: func(path string, data []byte) error {
		switch filepath.Base(path) {
		case "scaling_min_freq":
			return &os.PathError{Op: "write", Path: path, Err: unix.EBUSY}
		case "smp_affinity_list":
			return &os.PathError{Op: "write", Path: path, Err: unix.EIO} // a managed IRQ
		}
		return writeFile(path, data)
	}}
	_, err = m.Session("test").Apply(t.Context(), changes)
	if !errors.Is(err, unix.EBUSY) || !strings.Contains(err.Error(), "scaling_min_freq") {
		t.Errorf("error %v: want scaling_min_freq and EBUSY", err)
	}
	sameTree(t, before, snapshot(t, root))

	// Without the failing min, the IRQs that refuse are reported and the
	// tune goes on.
	m.write = func(path string, data []byte) error {
		if filepath.Base(path) == "smp_affinity_list" {
			return &os.PathError{Op: "write", Path: path, Err: unix.EIO}
		}
		return writeFile(path, data)
	}
	res, err := m.Session("test").Apply(t.Context(), changes)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refused) != 2 || !strings.Contains(res.Refused[0].Error, "EIO") {
		t.Errorf("refused %+v, want the two IRQs with EIO", res.Refused)
	}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))
}

func TestKilledDuringTuneLeavesAJournalThatResets(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	probe := copyTree(t, "intel-pstate")
	changes, _ := Plan(mustRead(t, probe, cpuset.Of(1)), fullRequest(cpuset.Of(1)))
	for _, n := range []int{1, 2, len(changes) / 2, len(changes)} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			root := copyTree(t, "intel-pstate")
			before := snapshot(t, root)
			journal := filepath.Join(t.TempDir(), "j.json")
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), "COREPIN_SYSTEM_TEST_DIE="+root+":"+journal+":"+strconv.Itoa(n))
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("helper: %v: %s", err, out)
			}
			j, err := ReadJournal(journal)
			if err != nil || j == nil {
				t.Fatalf("no journal after the process died: %v", err)
			}
			if len(j.Layers[0].Entries) < n {
				t.Errorf("journal holds %d entries after %d writes", len(j.Layers[0].Entries), n)
			}
			if msg := j.Stale(); !strings.Contains(msg, "the machine is still tuned from `test tune`") || !strings.Contains(msg, "corepin system reset") {
				t.Errorf("stale warning %q", msg)
			}
			m := &Machine{Root: fsroot.Root(root), Journal: journal}
			if _, err := m.Reset(t.Context()); err != nil {
				t.Fatal(err)
			}
			sameTree(t, before, snapshot(t, root))
			if j, _ := ReadJournal(journal); j != nil {
				t.Errorf("journal left: %+v", j)
			}
		})
	}
}

func TestResetKeepsWhatCannotBePutBack(t *testing.T) {
	t.Parallel()
	root := copyTree(t, "acpi-cpufreq")
	target := cpuset.Of(1)
	changes, _ := Plan(mustRead(t, root, target), evidence.TuneRequest{CPUs: target})
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
	if _, err := m.Session("test").Apply(t.Context(), changes); err != nil {
		t.Fatal(err)
	}
	m.write = func(path string, data []byte) error {
		if filepath.Base(path) == "scaling_governor" {
			return &os.PathError{Op: "write", Path: path, Err: unix.EBUSY}
		}
		return writeFile(path, data)
	}
	rep, err := m.Reset(t.Context())
	if err == nil || !errors.Is(rep.Failed[0], unix.EBUSY) || !strings.Contains(err.Error(), "EBUSY") {
		t.Fatalf("reset: %v, %+v", err, rep)
	}
	j, _ := ReadJournal(m.JournalPath())
	if j == nil || len(j.Layers[0].Entries) != 1 || !strings.HasSuffix(j.Layers[0].Entries[0].Path, "scaling_governor") {
		t.Fatalf("journal after a partial reset: %+v", j)
	}
	m.write = nil
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
	if j, _ := ReadJournal(m.JournalPath()); j != nil {
		t.Errorf("journal left: %+v", j)
	}
}

func FuzzParseInterrupts(f *testing.F) {
	data, _ := os.ReadFile("testdata/machines/intel-pstate/proc/interrupts")
	f.Add(string(data))
	f.Add("CPU0 CPU2\n 1: 3 4 x y\nNMI: 1 2\n")
	f.Fuzz(func(t *testing.T, s string) {
		for n, l := range parseInterrupts(s) {
			if _, err := strconv.Atoi(n); err != nil {
				t.Errorf("IRQ %q is not a number", n)
			}
			_ = l
		}
	})
}

// A reset leaves the changes of a process that still runs to it.
func TestResetLeavesARunningTuneAlone(t *testing.T) {
	t.Parallel()
	root := copyTree(t, "acpi-cpufreq")
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
	target := cpuset.Of(1)
	changes, _ := Plan(mustRead(t, root, target), evidence.TuneRequest{CPUs: target})
	init1 := &Session{m: m, owner: Owner{PID: 1}, command: "a run"}
	if p, err := procfs.Identify(fsroot.Host, 1); err == nil { // PID 1 runs as long as the machine does
		init1.owner.Start = p.Start
	}
	if _, err := init1.Apply(t.Context(), changes); err != nil {
		t.Fatal(err)
	}
	tuned := snapshot(t, root)
	rep, err := m.Reset(t.Context())
	if err != nil || len(rep.Running) != 1 || len(rep.Restored) != 0 {
		t.Fatalf("reset beside a running tune: %+v, %v", rep, err)
	}
	sameTree(t, tuned, snapshot(t, root))
	if _, err := init1.Reset(); err != nil {
		t.Fatal(err)
	}
}

// noCpufreqMachine is a copy of the acpi-cpufreq machine without its
// cpufreq folder, as most VMs are; its files as they are now; and a
// Machine over it whose journal is the test's own.
func noCpufreqMachine(t *testing.T) (root string, before map[string]string, m *Machine) {
	t.Helper()
	root = copyTree(t, "acpi-cpufreq")
	if err := os.RemoveAll(filepath.Join(root, cpufreqDir)); err != nil {
		t.Fatal(err)
	}
	return root, snapshot(t, root), &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
}

// A frequency, a governor or boost off asked for by name where the
// machine has no cpufreq (most VMs), or boost off where it has no boost
// switch, is refused with each request and why, and nothing is written;
// a tune that did not ask for them skips the default governor and lock,
// and says so.
func TestTuneRefusesWhatTheMachineCannotDo(t *testing.T) {
	t.Parallel()
	target := cpuset.Of(1)
	root, before, m := noCpufreqMachine(t)
	_, err := TuneFor(t.Context(), m, evidence.TuneRequest{CPUs: target, Freq: "2000000", Governor: "performance", NoBoost: true, IRQs: true}, "test")
	if err == nil {
		t.Fatal("a frequency lock on a machine without cpufreq was accepted")
	}
	for _, want := range []string{"nothing was changed", "--freq 2000000: this kernel has no cpufreq driver", "--governor performance: ", "--no-boost: "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	sameTree(t, before, snapshot(t, root))
	if _, err := os.Stat(m.JournalPath()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a journal was written: %v", err)
	}

	tuned, err := TuneFor(t.Context(), m, evidence.TuneRequest{CPUs: target, IRQs: true}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if s := tuned.Result.Skipped; len(s) != 1 || !strings.Contains(s[0], "the performance governor and min = max") || !strings.Contains(s[0], "no cpufreq driver") {
		t.Errorf("skipped: %q", s)
	}
	if err := tuned.Undo(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))

	phone := copyTree(t, "phone-4-3-1")
	_, err = Plan(mustRead(t, phone, target), evidence.TuneRequest{CPUs: target, NoBoost: true})
	if err == nil || !strings.Contains(err.Error(), "--no-boost: this machine has no boost switch") {
		t.Errorf("boost off without a boost switch: %v", err)
	}
	if changes, err := Plan(mustRead(t, phone, target), evidence.TuneRequest{CPUs: target}); err != nil || len(changes) == 0 {
		t.Errorf("the phone's default tune: %v, %d changes", err, len(changes))
	}
}

// An IRQ the kernel will not move (as it never moves the x86 timer: EIO)
// is named, with its
// errno, among the tune's refusals, and the rest of the tune holds and is
// put back; a tune whose every change the kernel refused did nothing, and
// fails, leaving no journal behind.
func TestTuneGoesOnPastAnIRQThatCannotMove(t *testing.T) {
	t.Parallel()
	target := cpuset.Of(1)
	root, before, m := noCpufreqMachine(t)
	refuse := func(irqs ...string) {
		m.write = func(path string, data []byte) error {
			if slices.Contains(irqs, filepath.Base(filepath.Dir(path))) && filepath.Base(path) == "smp_affinity_list" {
				return &os.PathError{Op: "write", Path: path, Err: unix.EIO}
			}
			return writeFile(path, data)
		}
	}
	refuse("4")
	tuned, err := TuneFor(t.Context(), m, evidence.TuneRequest{CPUs: target, IRQs: true}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got := UnmovedIRQs(tuned.Result); !slices.Equal(got, []string{"IRQ 4 (ttyS0): the kernel refuses to move it (EIO)"}) {
		t.Errorf("unmoved %q", got)
	}
	moved := false
	for _, d := range tuned.Result.Done {
		moved = moved || d.Path == "proc/irq/24/smp_affinity_list"
	}
	if !moved {
		t.Errorf("IRQ 24 was not moved beside the one that refused: %+v", tuned.Result.Done)
	}
	if err := tuned.Undo(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))

	// Everything else holds already; the IRQs all refuse.
	for path, value := range map[string]string{"proc/sys/kernel/perf_event_max_sample_rate": "1\n", "proc/irq/default_smp_affinity": "1\n"} {
		if err := os.WriteFile(filepath.Join(root, path), []byte(value), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before = snapshot(t, root)
	refuse("4", "24")
	_, err = TuneFor(t.Context(), m, evidence.TuneRequest{CPUs: target, IRQs: true}, "test")
	if err == nil || !strings.Contains(err.Error(), "the tune did nothing") || !strings.Contains(err.Error(), "IRQ 24 (eth0-TxRx-0): the kernel refuses to move it (EIO)") {
		t.Errorf("a tune the kernel refused wholly: %v", err)
	}
	sameTree(t, before, snapshot(t, root))
	if j, _ := ReadJournal(m.JournalPath()); j != nil {
		t.Errorf("journal left: %+v", j)
	}
}
