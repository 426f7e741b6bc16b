package nobody

import (
	"os"
	"path/filepath"
	"testing"
)

// A setpriv that is not util-linux's (busybox's) makes the test skip with
// a message, rather than fail on an option it lacks.
func TestCommandSkipsAForeignSetpriv(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: without it Command skips before looking at setpriv")
	}
	dir := t.TempDir()
	fake := "#!/bin/sh\necho 'BusyBox v1.35.0 (Debian 1:1.35.0-4) multi-call binary.'\nexit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "setpriv"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	ran := false
	t.Run("busybox", func(t *testing.T) {
		Command(t, "true")
		ran = true
	})
	if ran {
		t.Error("Command went on with busybox's setpriv")
	}
}
