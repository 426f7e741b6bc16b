package system

import (
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

func TestLockedAndLines(t *testing.T) {
	root := copyTree(t, "phone-4-3-1")
	target := cpuset.Of(7)
	if k := mustRead(t, root, target).LockedKHz(7); k != 0 {
		t.Errorf("an unlocked policy reads as locked at %d", k)
	}
	changes, _ := Plan(mustRead(t, root, target), evidence.TuneRequest{CPUs: target, Freq: "90%"})
	m := &Machine{Root: fsroot.Root(root), Journal: t.TempDir() + "/j.json"}
	res, err := m.Session("test").Apply(t.Context(), changes)
	if err != nil {
		t.Fatal(err)
	}
	f := mustRead(t, root, target)
	if k := f.LockedKHz(7); k != 2419200 {
		t.Errorf("locked at %d, want 2419200", k)
	}
	lines := (&evidence.RunFacts{Start: f, Tuned: &evidence.Tuned{Result: res}}).Lines()
	var all []string
	for _, l := range lines {
		all = append(all, l.Label+": "+l.Value)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"Frequency policy7: qcom-cpufreq-hw performance, min 2419.2 MHz max 2419.2 MHz", "Tuned for the run: 4 changes", "Load: start 0.52"} {
		if !strings.Contains(text, want) {
			t.Errorf("lines lack %q:\n%s", want, text)
		}
	}
	if _, err := m.Reset(t.Context()); err != nil {
		t.Fatal(err)
	}
}
