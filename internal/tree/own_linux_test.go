package tree

import (
	"testing"
	"time"
)

// The forking thread's time counts as corepin's own only once it said it
// left the target, and never where the run's CPU account held it.
func TestOwnOnTarget(t *testing.T) {
	tr := &Tree{ownFrom: time.Millisecond, ownTo: 9 * time.Millisecond}
	if got := tr.ownOnTarget(); got != 0 {
		t.Errorf("before it left: %v, want 0", got)
	}
	tr.wentOff = true
	if got := tr.ownOnTarget(); got != 8*time.Millisecond {
		t.Errorf("after it left: %v, want 8ms", got)
	}
	tr.ownInWork = true
	if got := tr.ownOnTarget(); got != 0 {
		t.Errorf("inside the work's cpuacct: %v, want 0 (the work's)", got)
	}
}
