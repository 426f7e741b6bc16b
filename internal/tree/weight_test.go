package tree

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/sched"
)

func TestNiceWeight(t *testing.T) {
	// The kernel's own figures (sched_prio_to_weight), out of range
	// clamped as sched_setattr clamps a nice value.
	for n, want := range map[int]int{-50: 88761, -20: 88761, -10: 9548, -1: 1277, 0: 1024, 1: 820, 10: 110, 19: 15, 40: 15} {
		if got := NiceWeight(n); got != want {
			t.Errorf("NiceWeight(%d) = %d, want %d", n, got, want)
		}
	}
	// Each step of nice is about 1.25 times the next, all the way.
	for n := -20; n < 19; n++ {
		if r := float64(NiceWeight(n)) / float64(NiceWeight(n+1)); r < 1.2 || r > 1.3 {
			t.Errorf("nice %d weighs %.3f times nice %d", n, r, n+1)
		}
	}
}

func TestPriorityScope(t *testing.T) {
	for _, c := range []struct {
		attr      sched.Attr
		autogroup bool
		weighted  bool
		scope     string
	}{
		{sched.Attr{Policy: sched.Normal, Nice: -20}, true, true, ScopeAutogroup},
		{sched.Attr{Policy: sched.Batch, Nice: 10}, true, true, ScopeAutogroup},
		{sched.Attr{Policy: sched.Normal, Nice: -20}, false, false, ScopeNoAutogroup},
		{sched.Attr{Policy: sched.FIFO, Priority: 10}, true, false, ScopeRealtime},
		{sched.Attr{Policy: sched.RR, Priority: 1}, false, false, ScopeRealtime},
		{sched.Attr{Policy: sched.Idle}, true, false, ScopeAutogroup},
		{sched.Attr{Policy: sched.Normal}, true, false, ""},
		{sched.Attr{Policy: sched.Normal}, false, false, ""},
	} {
		weighted, scope := priorityScope(c.attr, c.autogroup)
		if weighted != c.weighted || scope != c.scope {
			t.Errorf("%+v with autogroup %v: weighted %v, scope %q; want %v, %q", c.attr, c.autogroup, weighted, scope, c.weighted, c.scope)
		}
	}
}

func TestAutogroup(t *testing.T) {
	dir := t.TempDir()
	if on, ev := Autogroup(fsroot.Root(dir)); on || !strings.Contains(ev, "CONFIG_SCHED_AUTOGROUP") {
		t.Errorf("without the file: %v, %q", on, ev)
	}
	p := filepath.Join(dir, autogroupFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]bool{"1\n": true, "0\n": false} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if on, ev := Autogroup(fsroot.Root(dir)); on != want || !strings.Contains(ev, p) {
			t.Errorf("%q: %v, %q", text, on, ev)
		}
	}
}
