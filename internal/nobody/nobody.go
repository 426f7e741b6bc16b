// Package nobody lets tests run programs, the test binary among them, as
// the unprivileged user nobody, to test corepin's EPERM paths for real.
package nobody

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Command returns a command that runs name with args as nobody (uid and
// gid 65534, no supplementary groups) through setpriv. It skips the test
// where that is impossible: not root, no setpriv, or a setpriv that is not
// util-linux's (busybox's has no --clear-groups).
func Command(tb testing.TB, name string, args ...string) *exec.Cmd {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("needs root to run a program as nobody")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		tb.Skip("needs setpriv (util-linux) to run a program as nobody")
	}
	if out, _ := exec.Command(setpriv, "--version").CombinedOutput(); !strings.Contains(string(out), "util-linux") {
		tb.Skipf("needs util-linux's setpriv to run a program as nobody; %s is another (%s)", setpriv, firstLine(out))
	}
	return exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", name}, args...)...)
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if s == "" {
		return "it prints no version"
	}
	return s
}

// Executable copies the running test binary to a folder nobody may read
// and returns the copy's path; go test keeps its binaries where nobody
// cannot reach them. The folder is removed when the test ends.
func Executable(tb testing.TB) string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(Dir(tb), filepath.Base(exe))
	if err := os.WriteFile(dst, data, 0o755); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// Dir returns a new folder that nobody may write, removed when the test
// ends.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "corepin-nobody-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		tb.Fatal(err)
	}
	return dir
}
