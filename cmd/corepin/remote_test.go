package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"corepin.dev/corepin/cmd/corepin/internal/remote"
)

// TestRemoteFlags: --on, --keep-remote and --binary are flags of every
// command, before or after its name, up to what belongs to the program
// exec starts.
func TestRemoteFlags(t *testing.T) {
	targets := filepath.Join(t.TempDir(), "lab.txt")
	os.WriteFile(targets, []byte("# the phone lab\nadb:R58M1\n\nhdc:7001 # the tablet\n"), 0o644)
	root := newRootCmd(nil)
	in, err := root.Parse([]string{"--on", "ssh://pi@board", "exec", "--on=adb", "--keep-remote", "--cpu", "1", "--on", "@" + targets,
		"--binary", "/tmp/corepin-arm64", "--", "sh", "--on", "x"})
	if err != nil {
		t.Fatal(err)
	}
	on := root.PersistentFlags().Lookup("on").Value.String()
	if want := "ssh://pi@board,adb,adb:R58M1,hdc:7001"; on != want || !in.Changed("keep-remote") || root.PersistentFlags().Lookup("binary").Value.String() != "/tmp/corepin-arm64" {
		t.Errorf("--on %s, --keep-remote %v, --binary %s", on, in.Changed("keep-remote"), root.PersistentFlags().Lookup("binary").Value)
	}
	if want := []string{"exec", "--cpu", "1", "--", "sh", "--on", "x"}; !reflect.DeepEqual(in.Words(nil), want) {
		t.Errorf("the command's words %q, want %q", in.Words(nil), want)
	}
	if _, err := newRootCmd(nil).Parse([]string{"run", "--on"}); err == nil {
		t.Error("--on without a value: no error")
	}
	if _, err := newRootCmd(nil).Parse([]string{"--on", "@/no/such/file", "topo"}); err == nil {
		t.Error("--on @missing: no error")
	}
}

func TestDeviceRequest(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin", "run", "505"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "mcf"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "run", "505", "inp.in"), []byte("1 2 3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ref.out"), []byte("6\n"), 0o644)
	suitePath := filepath.Join(dir, "spec.toml")
	os.WriteFile(suitePath, []byte(`[[benchmark]]
name = "mcf"
cmd = "../../mcf"
args = ["inp.in", "-v"]
dir = "bin/run/505"
  [[benchmark.check]]
  stdout = true
  expected = "ref.out"
`), 0o644)
	for _, c := range []struct {
		args    []string
		dev     []string
		results string
		inputs  []string
	}{
		{[]string{"run", "--quick"}, []string{"run", "--quick", "--out", "{job}/out"}, "corepin-results", nil},
		{[]string{"run", "--out", "lab", suitePath, "--cpu", "3", "-q"}, []string{"run", "{job}/in/spec.toml", "--cpu", "3", "--quiet", "--out", "{job}/out"}, "lab",
			[]string{"bin/run/505/", "spec.toml", "bin/mcf", "bin/run/505/inp.in", "ref.out"}},
		{[]string{"exec", "--cpu", "1", "--", "sh", "-c", "--out x"}, []string{"exec", "--cpu", "1", "--", "sh", "-c", "--out x"}, "", nil},
		{[]string{"exec", "--cpu=1", "stress-ng", "--out", "x"}, []string{"exec", "--cpu", "1", "--", "stress-ng", "--out", "x"}, "", nil},
		{[]string{"experiment", "qos", "--out", filepath.Join(dir, "exp", "qos1")}, []string{"experiment", "qos", "--out", "{job}/out/qos1"}, "", nil},
		{[]string{"exec", "--report=" + filepath.Join(dir, "s.json"), "--", "true"}, []string{"exec", "--report", "{job}/out/s.json", "--", "true"}, "", nil},
		{[]string{"exec", "--report", "-", "--", "true"}, []string{"exec", "--report", "-", "--", "true"}, "", nil},
		{[]string{"telemetry", "--out", filepath.Join(dir, "t.csv"), "--thermal", filepath.Join(dir, "bin", "th.csv")}, []string{"telemetry", "--out", "{job}/out/t.csv", "--thermal", "{job}/out/th.csv"}, "", nil},
		{[]string{"topo", "--json"}, []string{"topo", "--json"}, "", nil},
	} {
		req, err := deviceRequestOf(c.args)
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		var inputs []string
		for _, in := range req.Inputs {
			r := in.Rel
			if in.Dir {
				r += "/"
			}
			inputs = append(inputs, r)
		}
		if !reflect.DeepEqual(req.Args, c.dev) || req.Results != c.results || !reflect.DeepEqual(inputs, c.inputs) {
			t.Errorf("%q:\n device %q, results %q, inputs %q\nwant %q, %q, %q", c.args, req.Args, req.Results, inputs, c.dev, c.results, c.inputs)
		}
		if want := map[string]map[string]string{
			"experiment": {"qos1": filepath.Join(dir, "exp")}, "telemetry": {"t.csv": dir, "th.csv": filepath.Join(dir, "bin")},
		}[c.args[0]]; want != nil && !reflect.DeepEqual(req.Into, want) {
			t.Errorf("%q: into %v, want %v", c.args, req.Into, want)
		}
	}
	for _, bad := range [][]string{{"run", "--no-such"}, {"topo", "--cpu", "x"}, {"nosuch"}, {"experiment"}, {"run", filepath.Join(dir, "missing.toml")},
		{"telemetry", "--out", filepath.Join(dir, "no", "such", "t.csv")}, {"telemetry", "--out", dir},
		{"telemetry", "--out", filepath.Join(dir, "t.csv"), "--thermal", filepath.Join(dir, "bin", "t.csv")}} {
		if _, err := deviceRequestOf(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	// A suite that reaches outside its folder cannot be pushed as it is.
	os.WriteFile(filepath.Join(dir, "bin", "up.toml"), []byte("[[benchmark]]\nname = \"x\"\ncmd = \"./mcf\"\n  [[benchmark.check]]\n  stdout = true\n  expected = \"../ref.out\"\n"), 0o644)
	if _, err := deviceRequestOf([]string{"run", filepath.Join(dir, "bin", "up.toml")}); err == nil || !strings.Contains(err.Error(), "outside the suite's folder") {
		t.Errorf("a suite naming ../: %v", err)
	}
}

// deviceRequestOf is what a command line runs on a device.
func deviceRequestOf(args []string) (remote.Request, error) {
	in, err := newRootCmd(nil).Parse(args)
	if err != nil {
		return remote.Request{}, err
	}
	return deviceRequest(in)
}

func TestRemoteDefaultFromEnv(t *testing.T) {
	t.Setenv(remote.EnvSpec, "ssh://nobody@[::1]:1")
	// report reads files here: $COREPIN_ON does not send it anywhere.
	if _, errOut, code := corepin(t, "report", "/no/such/folder"); code != exitFailure || strings.Contains(errOut, "connecting") {
		t.Errorf("report with $COREPIN_ON: exit %d, %s", code, errOut)
	}
	// topo goes to the device.
	if _, errOut, code := corepin(t, "topo"); code != exitFailure || !strings.Contains(errOut, "connecting to ssh://nobody@[::1]:1") {
		t.Errorf("topo with $COREPIN_ON: exit %d, %s", code, errOut)
	}
	// Help is the same here: it does not go to the device.
	if out, errOut, code := corepin(t, "run", "--help"); code != 0 || !strings.Contains(out, "corepin run") || strings.Contains(errOut, "connecting") {
		t.Errorf("run --help with $COREPIN_ON: exit %d, %s", code, errOut)
	}
	t.Setenv(remote.EnvSpec, "")
	if _, errOut, code := corepin(t, "status"); code != exitUsage {
		t.Errorf("status without --on: exit %d, %s", code, errOut)
	}
}

// TestRemoteADBNoDevice runs the real adb client with no device: corepin
// fails at once with adb's own message. adb's server runs on a port of the
// test's own and is ended after.
func TestRemoteADBNoDevice(t *testing.T) {
	if _, err := exec.LookPath("adb"); err != nil {
		t.Skip("needs adb (Debian package adb)")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	t.Setenv("ANDROID_ADB_SERVER_PORT", port)
	t.Setenv("ANDROID_SERIAL", "")
	t.Cleanup(func() { exec.Command("adb", "kill-server").Run() })
	_, errOut, code := corepin(t, "--on", "adb", "topo")
	if strings.Contains(errOut, "cannot connect to daemon") || strings.Contains(errOut, "server didn't ACK") {
		t.Skipf("the adb client cannot start its server on this machine: %s", errOut)
	}
	if code != exitFailure || !strings.Contains(errOut, "no devices/emulators found") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	_, errOut, code = corepin(t, "--on", "adb:emulator-5554", "topo")
	if code != exitFailure || !strings.Contains(errOut, "emulator-5554") || !strings.Contains(errOut, "not found") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// testCleanup is what the test binary ends or removes once every test has
// run: what tests share (an sshd, a built corepin) outlives each test.
var testCleanup struct {
	sync.Mutex
	funcs []func()
}

func atTestExit(f func()) {
	testCleanup.Lock()
	defer testCleanup.Unlock()
	testCleanup.funcs = append(testCleanup.funcs, f)
}

func runTestCleanup() {
	testCleanup.Lock()
	defer testCleanup.Unlock()
	for _, f := range testCleanup.funcs {
		f()
	}
}

// TestRemoteExitCodes: a command line goes by one exit-code table here
// and with --on: a suite whose content is wrong exits 1, one that cannot
// be read 2, and so does a wrong target; none of them reaches a device.
func TestRemoteExitCodes(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "key.toml")
	os.WriteFile(bad, []byte("[[benchmark]]\nname = \"a\"\ncmd = \"true\"\nrnus = 2\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		say  string
	}{
		{[]string{"run", bad}, exitFailure, `key.toml:4:1: unknown key "benchmark.rnus"`},
		{[]string{"run", filepath.Join(dir, "missing.toml")}, exitUsage, "missing.toml"},
	} {
		_, localErr, local := corepin(t, c.args...)
		_, remoteErr, remote := corepin(t, append([]string{"--on", "adb:NOWHERE"}, c.args...)...)
		if local != c.code || remote != c.code || !strings.Contains(localErr, c.say) || !strings.Contains(remoteErr, c.say) || strings.Contains(remoteErr, "NOWHERE") {
			t.Errorf("%q: exit %d here, %d with --on; want %d\n%s\n%s", c.args, local, remote, c.code, localErr, remoteErr)
		}
	}
	if _, errOut, code := corepin(t, "--on", "adb:a b", "topo"); code != exitUsage || !strings.Contains(errOut, "the serial is letters") {
		t.Errorf("a wrong target: exit %d\n%s", code, errOut)
	}
	targets := filepath.Join(dir, "lab.txt")
	os.WriteFile(targets, []byte("adb:NOWHERE\n"), 0o644)
	if _, errOut, code := corepin(t, "--on", "adb:NOWHERE", "--on", "@"+targets, "topo"); code != exitUsage || !strings.Contains(errOut, `target "adb:NOWHERE" is given twice`) {
		t.Errorf("one target twice: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := corepin(t, "clean"); code != exitUsage || !strings.Contains(errOut, "go with --on TARGET") {
		t.Errorf("clean without --on: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := corepin(t, "--lost-after", "5s", "topo"); code != exitUsage || !strings.Contains(errOut, "go with --on TARGET") {
		t.Errorf("--lost-after without --on: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := corepin(t, "--on", "adb:NOWHERE", "--lost-after", "0s", "topo"); code != exitUsage || !strings.Contains(errOut, "positive duration") {
		t.Errorf("--lost-after 0s: exit %d\n%s", code, errOut)
	}
}
