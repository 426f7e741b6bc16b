package system

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// guestLimit bounds one guest's boot and tests; guestTestLimit, its tests
// alone. A guest's tests take about a minute under TCG; both shapes'
// guests, each booted twice, stay under CI's -timeout 30m.
const (
	guestLimit     = 6 * time.Minute
	guestTestLimit = 4 * time.Minute
)

// TestGuests boots guests of the machine matrix and runs the TestGuest
// tests there, with a corepin binary for the run checks: "offline" (Linux
// 6.12, cgroup v2 only, CPU 3 offline) and "hole" (Linux 6.1, which can
// still mount a cgroup v1 cpuset hierarchy; online CPUs 0,2-3). It takes
// a minute or more under TCG, so it runs only when asked: COREPIN_GUESTS=1
// (COREPIN_GUEST_SHAPE picks one shape, COREPIN_GUEST_RUN the tests).
func TestGuests(t *testing.T) {
	if os.Getenv("MACHINE_SHAPE") != "" {
		t.Skip("already inside a guest")
	}
	if os.Getenv("COREPIN_GUESTS") == "" {
		t.Skip("boots a qemu guest for the checks that change the whole machine (minutes under TCG): set COREPIN_GUESTS=1")
	}
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Skip("needs qemu-system-x86_64")
	}
	shapes := []string{"offline", "hole"}
	if s := os.Getenv("COREPIN_GUEST_SHAPE"); s != "" {
		shapes = []string{s}
	}
	// The guest sees the host's files read-only, but a fresh /tmp: the
	// binaries go to /var/tmp.
	dir, err := os.MkdirTemp("/var/tmp", "corepin-system-guest-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	env := os.Environ()
	if strings.HasPrefix(shapes[0], "arm64") {
		env = append(env, "GOARCH=arm64", "CGO_ENABLED=0")
	}
	for _, args := range [][]string{
		{"go", "test", "-c", "-o", filepath.Join(dir, "system.test"), "."},
		{"go", "build", "-o", filepath.Join(dir, "corepin"), "../.."},
	} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run := "^TestGuest"
	if r := os.Getenv("COREPIN_GUEST_RUN"); r != "" {
		run = r
	}
	var failed []string
	for _, shape := range shapes {
		// One guest at a time: each keeps the host's CPUs busy.
		out, err := bootGuest(shape, dir, run)
		if err != nil && guestHung(out) {
			// The guest's kernel stopped answering under TCG: its tests
			// neither ended nor reached their own timeout, which would have
			// said where they waited. One more boot tells that from a guest
			// that hangs every time.
			fmt.Printf("--- the guest %s did not finish and its tests did not time out: booting it once more\n", shape)
			out, err = bootGuest(shape, dir, run)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("in the guest %s: %v\n%s", shape, err, failures(out)))
		}
	}
	// Said last, so that a log cut to its tail still shows why.
	for _, f := range failed {
		t.Error(f)
	}
}

// bootGuest runs the guest tests matching run in a guest of shape and
// returns its log. The guest's tests end at their own timeout, which names
// the tests still running and where they wait, well before the guest's
// limit; the log is shown as it comes, so that a guest that hangs still
// shows how far it got.
func bootGuest(shape, dir, run string) (string, error) {
	cmd := exec.Command("go", "run", "../../../../test/machines", "run", "-shape", shape, "-timeout", guestLimit.String(), "--",
		"env", "COREPIN_BIN="+filepath.Join(dir, "corepin"), filepath.Join(dir, "system.test"),
		"-test.run", run, "-test.v", "-test.timeout", guestTestLimit.String())
	var out bytes.Buffer
	fmt.Printf("--- the guest %s:\n", shape)
	cmd.Stdout = io.MultiWriter(os.Stdout, &out)
	cmd.Stderr = cmd.Stdout
	err := cmd.Run()
	return out.String(), err
}

// guestHung reports whether a guest's log shows it stopped at its limit
// without its tests' own timeout having fired.
func guestHung(log string) bool {
	return strings.Contains(log, "the guest did not finish within") && !strings.Contains(log, "panic: test timed out")
}

// failures is the part of a verbose test log that explains its failures:
// each "--- FAIL" line with the lines logged just before it.
func failures(log string) string {
	lines := strings.Split(log, "\n")
	var out []string
	from := 0
	for i, l := range lines {
		if !strings.Contains(l, "--- FAIL") {
			continue
		}
		start := max(from, i-25)
		out = append(out, lines[start:i+1]...)
		from = i + 1
	}
	if len(out) == 0 && len(lines) > 25 {
		return strings.Join(lines[len(lines)-25:], "\n")
	}
	return strings.Join(out, "\n")
}
