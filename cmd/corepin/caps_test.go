package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/cmd/corepin/internal/caps"
	"corepin.dev/corepin/cmd/corepin/internal/spec/standin"
	"corepin.dev/corepin/internal/fakedevice"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/internal/nobody"
)

// TestMain lets the test binary be corepin itself: with COREPIN_AS_CLI set
// it runs the command line it was given. Tests use this to run corepin as
// another user.
func TestMain(m *testing.M) {
	fakedevice.Dispatch() // the test binary as a fake adb or hdc (remote_fake_linux_test.go)
	dispatch(os.Args)     // the helper verbs, as main answers them
	if os.Getenv("COREPIN_EXEC_HELPER") == "widen" {
		widenHelper()
	}
	faultHelper(os.Getenv("COREPIN_FAULT_HELPER")) // fault_test.go
	standin.Dispatch()                             // the test binary as SPEC's runcpu (spec_test.go)
	if os.Getenv("COREPIN_EXEC_HELPER") == "nice10" {
		nice10Helper()
	}
	if os.Getenv("COREPIN_EXEC_HELPER") == "threads" {
		threadsHelper() // watch_threads_test.go
	}
	if os.Getenv("COREPIN_AS_CLI") != "" {
		os.Exit(runWithSignals(os.Args[1:]))
	}
	interrupt.UnignoreHangUp() // the corepin processes the tests start get SIGHUP's default
	code := m.Run()
	runTestCleanup()
	os.Exit(code)
}

func capsJSON(t *testing.T, out string) caps.Capabilities {
	t.Helper()
	var c caps.Capabilities
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("caps --json printed %q: %v", out, err)
	}
	return c
}

func TestCapsAgreesWithUclampset(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	uclampset, err := exec.LookPath("uclampset")
	if err != nil {
		t.Skip("needs uclampset (util-linux) as the independent witness")
	}
	out, errOut, code := corepin(t, "caps", "--json")
	if code != 0 {
		t.Fatalf("caps: exit %d: %s", code, errOut)
	}
	c := capsJSON(t, out)
	// uclampset -m 0 -M 1024 -p PID asks for a clamp on the test process.
	witness := exec.Command(uclampset, "-m", "0", "-M", "1024", "-p", strconv.Itoa(os.Getpid())).Run() == nil
	if c.Uclamp != witness {
		t.Errorf("caps says uclamp=%v, uclampset succeeded=%v (%s)", c.Uclamp, witness, c.Evidence["uclamp"])
	}
	if c.AllowedCPUs < 1 || c.OnlineCPUs < c.AllowedCPUs {
		t.Errorf("allowed %d of %d CPUs", c.AllowedCPUs, c.OnlineCPUs)
	}
}

func TestCapsAsNobodyAgreesWithChrt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	chrt, err := exec.LookPath("chrt")
	if err != nil {
		t.Skip("needs chrt (util-linux)")
	}
	cmd := nobody.Command(t, nobody.Executable(t), "caps", "--json")
	cmd.Env = append(os.Environ(), "COREPIN_AS_CLI=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("caps as nobody: %v", err)
	}
	c := capsJSON(t, string(out))
	witness := nobody.Command(t, chrt, "-f", "1", "true").Run() == nil
	if c.Realtime != witness {
		t.Errorf("caps as nobody says realtime=%v, chrt -f 1 succeeded=%v", c.Realtime, witness)
	}
	if c.Realtime || c.NiceLowering {
		t.Errorf("nobody may use realtime or lower nice: %+v", c)
	}
}

// The evidence quotes what the kernel's files say, and apart from it what
// corepin computed: a reader can tell the file from the conclusion.
func TestCapsEvidenceQuotesTheFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	out, errOut, code := corepin(t, "caps", "--json")
	if code != 0 {
		t.Fatalf("caps: exit %d: %s", code, errOut)
	}
	c := capsJSON(t, out)
	isolated, err := os.ReadFile("/sys/devices/system/cpu/isolated")
	if err != nil {
		t.Skipf("no isolated file: %v", err)
	}
	if want := strconv.Quote(strings.TrimSpace(string(isolated))); !strings.Contains(c.Evidence["isolated"], want) {
		t.Errorf("isolated evidence %q does not quote the file's %s", c.Evidence["isolated"], want)
	}
	status, _ := os.ReadFile("/proc/self/status")
	var allowed string
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			allowed = strings.TrimSpace(v)
		}
	}
	ev := c.Evidence["allowed_cpus"]
	if !strings.Contains(ev, "Cpus_allowed_list "+strconv.Quote(allowed)) || !strings.Contains(ev, "corepin computed") {
		t.Errorf("allowed evidence %q: want the file's Cpus_allowed_list %q quoted and corepin's computation apart", ev, allowed)
	}
}
