package system

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// stackedSessions are n sessions of one fixture machine, each its own
// process by start time (the first this one).
func stackedSessions(t *testing.T, fixture string, n int) (*Machine, []*Session, string) {
	t.Helper()
	root := copyTree(t, fixture)
	m := &Machine{Root: fsroot.Root(root), Journal: filepath.Join(t.TempDir(), "j.json")}
	me := self()
	var out []*Session
	for i := range n {
		out = append(out, &Session{m: m, owner: Owner{PID: me.PID, Start: me.Start + uint64(i)}, command: "run " + string(rune('A'+i))})
	}
	return m, out, root
}

// Three tunes of the same target's IRQs, one after the other: the first
// moves them, the others rely on the values it set and write nothing;
// whichever ends first leaves them for the others, and the last puts back
// the values from before any tune.
func TestStackedTunesHoldUntilTheLastEnds(t *testing.T) {
	t.Parallel()
	m, s, root := stackedSessions(t, "acpi-cpufreq", 3)
	req := evidence.TuneRequest{CPUs: cpuset.Of(1), IRQs: true}
	before := snapshot(t, root)
	_, first, err := s[0].tune(t.Context(), req)
	if err != nil || len(first.Done) == 0 {
		t.Fatalf("the first tune: %+v, %v", first, err)
	}
	tuned := snapshot(t, root)
	for _, later := range s[1:] {
		_, res, err := later.tune(t.Context(), req)
		if err != nil || len(res.Done) != 0 || len(res.Relied) != len(first.Done) {
			t.Fatalf("a later tune: done %v, relied %v, %v; want %d values relied on", res.Done, res.Relied, err, len(first.Done))
		}
	}
	sameTree(t, tuned, snapshot(t, root))
	// The first ends, then the third: the IRQs stay off the target.
	for _, i := range []int{0, 2} {
		rep, err := s[i].Reset()
		if err != nil || len(rep.Restored) != 0 || len(rep.Kept) != len(first.Done) {
			t.Fatalf("run %d's reset beside a run that relies on its values: %+v, %v", i, rep, err)
		}
		sameTree(t, tuned, snapshot(t, root))
	}
	if lost := (&Tuned{session: s[1]}).Lost(); len(lost) != 0 {
		t.Errorf("the second run lost %v", lost)
	}
	rep, err := s[1].Reset()
	if err != nil || len(rep.Restored) != len(first.Done) {
		t.Fatalf("the last reset: %+v, %v", rep, err)
	}
	sameTree(t, before, snapshot(t, root))
	if j, _ := ReadJournal(m.JournalPath()); j != nil {
		t.Errorf("the journal holds %+v after the last reset", j.Layers)
	}
}

// A tune on top of another, for another target, takes the first's old
// value when the first ends first, so that it puts back the value from
// before both; a system tune that stands until reset is relied on as any
// other, and its reset leaves what a running tune relies on.
func TestStackedTunesHandOver(t *testing.T) {
	t.Parallel()
	_, s, root := stackedSessions(t, "amd-pstate-epp", 2)
	before := snapshot(t, root)
	if _, _, err := s[0].tune(t.Context(), evidence.TuneRequest{CPUs: cpuset.Of(1), IRQs: true}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s[1].tune(t.Context(), evidence.TuneRequest{CPUs: cpuset.Of(1, 2), IRQs: true}); err != nil {
		t.Fatal(err)
	}
	both := snapshot(t, root)
	if _, err := s[0].Reset(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, both, snapshot(t, root))
	if _, err := s[1].Reset(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))

	// A system tune (kept) under a run: the run's end leaves the system
	// tune's values; a reset of the system tune while the run goes on
	// leaves them for the run, which puts them back at its end.
	m, s, root := stackedSessions(t, "intel-pstate", 2)
	before = snapshot(t, root)
	req := evidence.TuneRequest{CPUs: cpuset.Of(1), IRQs: true}
	if _, _, err := s[0].tune(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if err := s[0].edit(func(l *Layer) { l.Kept = true }); err != nil {
		t.Fatal(err)
	}
	tuned := snapshot(t, root)
	if _, _, err := s[1].tune(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if rep, err := m.ResetOwner(t.Context(), s[0].owner); err != nil || len(rep.Restored)+len(rep.Kept) != 0 {
		t.Errorf("the guard's reset of a kept system tune: %+v, %v; want it left", rep, err)
	}
	if _, err := s[1].Reset(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, tuned, snapshot(t, root))
	if _, _, err := s[1].tune(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	rep, err := m.reset(t.Context(), func(l *Layer) bool { return l.Owner == s[0].owner })
	if err != nil || len(rep.Kept) == 0 || len(rep.Restored) != 0 {
		t.Fatalf("system reset under a running tune: %+v, %v", rep, err)
	}
	sameTree(t, tuned, snapshot(t, root))
	if _, err := s[1].Reset(); err != nil {
		t.Fatal(err)
	}
	sameTree(t, before, snapshot(t, root))
}

// A run whose values were written over while it ran says which.
func TestLostTune(t *testing.T) {
	t.Parallel()
	_, s, root := stackedSessions(t, "acpi-cpufreq", 1)
	tuned, err := TuneFor(t.Context(), s[0].m, evidence.TuneRequest{CPUs: cpuset.Of(1), IRQs: true}, "a run")
	if err != nil {
		t.Fatal(err)
	}
	if w := tuned.LostWarning(); w != "" {
		t.Errorf("a tune that held: %q", w)
	}
	irq := filepath.Join(root, "proc/irq/24/smp_affinity_list")
	if err := os.WriteFile(irq, []byte("0-1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w := tuned.LostWarning(); !strings.Contains(w, "proc/irq/24/smp_affinity_list reads 0-1, not 0") {
		t.Errorf("a tune undone under the run: %q", w)
	}
	if err := tuned.Undo(); err != nil {
		t.Fatal(err)
	}
}
