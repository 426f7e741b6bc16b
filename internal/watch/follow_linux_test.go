package watch

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// TestFollow: it ends when the output's reader has gone, saying so, and
// when the watched process has exited, saying not.
func TestFollow(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep to watch: %v", err)
	}
	defer cmd.Process.Kill()
	w, err := Start(context.Background(), Options{PID: cmd.Process.Pid, Period: MinPeriod})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// Bounded, so that a Follow that does not ask gone fails, not hangs.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !w.Follow(ctx, func() bool { return true }) {
		t.Errorf("the reader had gone and Follow did not say so")
	}
	cmd.Process.Kill()
	cmd.Wait()
	if w.Follow(context.Background(), func() bool { return false }) {
		t.Errorf("the process exited and Follow said the reader had gone")
	}
}
