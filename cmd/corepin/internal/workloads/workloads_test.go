package workloads

import (
	"strings"
	"testing"
)

func TestQuickWorkloadsAreValid(t *testing.T) {
	for _, w := range All() {
		r, err := w.Run(Quick)
		if err != nil || !r.Valid {
			t.Errorf("%s: %+v, %v", w.Name, r, err)
		}
		if r.Seconds <= 0 || w.Reference[Quick] <= 0 || w.Reference[Full] <= w.Reference[Quick] {
			t.Errorf("%s: seconds %v, references %v", w.Name, r.Seconds, w.Reference)
		}
	}
}

func TestFullWorkloadsAreValid(t *testing.T) {
	if testing.Short() {
		t.Skip("full sizes take about a second each")
	}
	// One at a time they take 7–13 s here; side by side they share
	// whatever CPUs go test leaves free.
	for _, w := range All() {
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			if r, err := w.Run(Full); err != nil || !r.Valid {
				t.Errorf("%+v, %v", r, err)
			}
		})
	}
}

// The checks must be able to fail: a wrong answer is reported, not scored.
func TestChecksCatchWrongAnswers(t *testing.T) {
	if r, _ := check(fib(10) == 56, "fib(10)", "want 56"); r.Valid || r.Why != "want 56" {
		t.Errorf("a wrong answer passed: %+v", r)
	}
	var b board
	nodes, games := 0, 0
	b[4] = 1 // start from a position that is not empty: other counts
	b.minimax(-1, &nodes, &games)
	if nodes == 549_946 {
		t.Error("the node count does not depend on the position")
	}
	if _, err := builtinFib.Run("huge"); err == nil || !strings.Contains(err.Error(), "unknown size") {
		t.Errorf("unknown size: %v", err)
	}
	if _, ok := ByName("nope"); ok {
		t.Error("ByName found a workload that does not exist")
	}
}

// The built-in workloads are handed out as copies: changing one changes
// nothing for the next caller.
func TestAllReturnsCopies(t *testing.T) {
	first := All()
	first[0].Reference[Quick] = 99
	first[0].Name = "changed"
	if again := All(); again[0].Name != "fib" || again[0].Reference[Quick] == 99 {
		t.Errorf("a change to a returned workload reached the next caller: %+v", again[0])
	}
}
