package account

import (
	"strings"
	"testing"

	"corepin.dev/corepin/results/evidence"
)

// The command corepin ended at its timeout is not counted among what it
// left running: `sh -c 'sleep 30 & sleep 30'` under --timeout leaves two.
func TestSummaryCountsWhatTheCommandLeft(t *testing.T) {
	for _, c := range []struct {
		tree evidence.TreeReport
		want string
	}{
		{evidence.TreeReport{Ended: 3, EndedCommand: true}, "; ended 2 process(es) the command left running; timed out"},
		{evidence.TreeReport{Ended: 1, EndedCommand: true}, "; timed out"},
		{evidence.TreeReport{Ended: 2}, "; ended 2 process(es) the command left running; timed out"},
	} {
		r := &evidence.Scheduling{}
		r.Tree, r.Child.TimedOut = &c.tree, true
		var b strings.Builder
		summarizeEnd(&b, r)
		if b.String() != c.want {
			t.Errorf("%+v: %q, want %q", c.tree, b.String(), c.want)
		}
	}
}
