package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/internal/fakedevice"
	"corepin.dev/corepin/results"
)

// phoneLab is a lab of fake devices (internal/fakedevice) that all call
// themselves localhost: two phones of one model over the shell protocol
// (FAKE01, FAKE02), one over old adb (OLD01) and a HarmonyOS device
// (7001). data holds each device's /data on this machine.
type phoneLab struct {
	*fakedevice.Lab
	data map[string]string
}

func newPhoneLab(t *testing.T) *phoneLab {
	t.Helper()
	if testing.Short() {
		t.Skip("-short leaves out the runs through fake devices")
	}
	l := &phoneLab{Lab: fakedevice.New(t, t.TempDir(), os.Args[0]), data: map[string]string{}}
	phone := func(serial, sdk, release string) map[string]string {
		return map[string]string{"ro.build.version.sdk": sdk, "ro.build.version.release": release, "ro.product.model": "Pixel 7",
			"ro.product.manufacturer": "Google", "ro.serialno": serial}
	}
	l.data["FAKE01"] = l.Add(t, fakedevice.Device{Client: "adb", Serial: "FAKE01", Props: phone("FAKE01", "34", "14")})
	l.data["FAKE02"] = l.Add(t, fakedevice.Device{Client: "adb", Serial: "FAKE02", Props: phone("FAKE02", "34", "14")})
	l.data["OLD01"] = l.Add(t, fakedevice.Device{Client: "adb", Serial: "OLD01", Old: true, Props: phone("OLD01", "23", "6.0")})
	l.data["7001"] = l.Add(t, fakedevice.Device{Client: "hdc", Serial: "7001", Props: map[string]string{
		"const.ohos.apiversion": "12", "const.ohos.fullname": "OpenHarmony-5.0.0.71", "const.product.model": "SGU-AL10", "ohos.boot.sn": "SN7001"}})
	return l
}

// endsWithTheTest makes sure the run id on the device serial, which waits
// for gate, ends with the test however it ends: the gate is opened, the
// device answers again, and the test waits for the run's status there
// (the device's processes outlive its folder, and a run left waiting on
// a removed gate would spin on this machine for good).
func (l *phoneLab) endsWithTheTest(t *testing.T, serial, id, gate string) {
	t.Cleanup(func() {
		for _, client := range []string{"adb", "hdc"} {
			l.Unplug(t, client, serial, false)
			l.Hang(t, client, serial, false)
		}
		os.WriteFile(gate, nil, 0o644)
		status := filepath.Join(l.data[serial], "local", "tmp", "corepin-runs", id, "status")
		for i := 0; i < 600; i++ { // up to a minute
			if _, err := os.Stat(status); err == nil || os.IsNotExist(err) && !exists(filepath.Dir(status)) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("run %s on %s did not end after its gate opened", id, serial)
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// corepin runs the host's corepin in dir, reaching the lab's devices.
func (l *phoneLab) corepin(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(hostCorepin(t), args...)
	cmd.Dir = dir
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "COREPIN_ON=") {
			env = append(env, e)
		}
	}
	cmd.Env = l.Env(env)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{out.String(), errOut.String(), cmd.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		t.Fatalf("corepin %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// quickSuite writes a suite of one benchmark that ends at once.
func quickSuite(t *testing.T, dir string) string {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "quick.sh"), []byte("#!/bin/sh\necho quick\n"), 0o755)
	path := filepath.Join(dir, "suite.toml")
	os.WriteFile(path, []byte("[settings]\nruns = 1\nwarmup = 0\n\n[[benchmark]]\nname = \"quick\"\ncmd = \"./quick.sh\"\n"), 0o644)
	return path
}

// printedFolders are the folders the host printed on standard output,
// by target: "[TARGET] FOLDER" lines with several targets, "FOLDER" with one.
func printedFolders(t *testing.T, dir, stdout string) map[string]string {
	t.Helper()
	got := map[string]string{}
	for line := range strings.Lines(stdout) {
		line = strings.TrimSpace(line)
		spec := ""
		if m := regexp.MustCompile(`^\[(\S+)\] (.*)$`).FindStringSubmatch(line); m != nil {
			spec, line = m[1], m[2]
		}
		if _, dup := got[spec]; dup {
			t.Errorf("%q printed two folders:\n%s", spec, stdout)
		}
		got[spec] = filepath.Join(dir, line)
	}
	return got
}

// TestRemoteFakePhones runs one suite on three phones that all call
// themselves localhost, two of one model, one over old adb (CRLF, no
// exit status), started together with -q: each result lands in a folder
// of its own, named after the phone's serial, says in its host block
// which phone it was, and the line printed for each phone is its folder.
// One phone reached twice (over USB and over the network) is noticed,
// and its two results too land apart and are printed right.
func TestRemoteFakePhones(t *testing.T) {
	t.Parallel()
	l := newPhoneLab(t)
	dir := t.TempDir()
	suitePath := quickSuite(t, dir)
	check := func(r result, specs []string, serial map[string]string) {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		printed := printedFolders(t, dir, r.stdout)
		if len(printed) != len(specs) {
			t.Fatalf("printed %v for %v:\n%s", printed, specs, r.stdout)
		}
		seen := map[string]bool{}
		for _, spec := range specs {
			folder := printed[spec]
			run, err := results.Load(folder)
			if err != nil {
				t.Fatalf("%s: printed %q, which holds no run: %v\n%s", spec, folder, err, r.stdout)
			}
			h := run.Host
			if h.On != spec || h.Serial != serial[spec] || h.Hostname != "localhost" || h.Model != "Google Pixel 7" || !strings.HasPrefix(h.OS, "Android ") {
				t.Errorf("%s: printed %s, whose host block is %+v", spec, folder, h)
			}
			if !strings.Contains(filepath.Base(folder), serial[spec]) || seen[folder] {
				t.Errorf("%s: folder %s", spec, folder)
			}
			seen[folder] = true
			if page, err := os.ReadFile(filepath.Join(folder, "report.html")); err != nil || !strings.Contains(string(page), "serial "+serial[spec]) {
				t.Errorf("%s: the page does not name the phone: %v", spec, err)
			}
		}
	}
	specs := []string{"adb:FAKE01", "adb:FAKE02", "adb:OLD01"}
	// The three "phones" are this machine, three runs at once beside the
	// other packages' tests: --mode soft, because in exact mode a run
	// whose watcher missed its ticks is invalid (measured: 9 of 10 missed
	// once), and what is judged here is where the results land.
	r := l.corepin(t, dir, "--on", specs[0], "--on", specs[1], "--on", specs[2], "run", suitePath, "--allow-sharing", "--mode", "soft", "-q")
	check(r, specs, map[string]string{"adb:FAKE01": "FAKE01", "adb:FAKE02": "FAKE02", "adb:OLD01": "OLD01"})

	l.Alias(t, "adb", "FAKE01", "192.168.1.20:5555")
	specs = []string{"adb:FAKE01", "adb:192.168.1.20:5555"}
	r = l.corepin(t, dir, "--on", specs[0], "--on", specs[1], "run", suitePath, "--allow-sharing", "--mode", "soft", "-q")
	check(r, specs, map[string]string{"adb:FAKE01": "FAKE01", "adb:192.168.1.20:5555": "FAKE01"})
	if !strings.Contains(r.stderr, "are one device (adb:") {
		t.Errorf("one phone reached twice is not noticed:\n%s", r.stderr)
	}
	m := l.corepin(t, dir, append([]string{"merge", "--out", filepath.Join(dir, "fleet.html")}, pulledFolders(t, dir)...)...)
	if m.code != 0 || !strings.Contains(m.stdout, "serial FAKE02, via adb:FAKE02") {
		t.Errorf("merge: exit %d\n%s%s", m.code, m.stdout, m.stderr)
	}
}

// TestRemoteFakeFailedPull: when the results cannot be brought back, -q
// prints no folder (none was written here), the error says how to fetch
// them, and pull does once the device lets it; a kept run that was pulled
// is what clean removes, with old binaries and partial copies.
func TestRemoteFakeFailedPull(t *testing.T) {
	t.Parallel()
	l := newPhoneLab(t)
	dir := t.TempDir()
	suitePath := quickSuite(t, dir)
	l.FailPulls(t, "adb", "FAKE02", true)
	r := l.corepin(t, dir, "--on", "adb:FAKE02", "--keep-remote", "run", suitePath, "--allow-sharing", "-q")
	id := jobID(r.stderr)
	if r.code != exitFailure || r.stdout != "" || id == "" || !strings.Contains(r.stderr, "the results stay on the device: corepin --on adb:FAKE02 pull "+id) {
		t.Fatalf("a failed pull: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if left := pulledFolders(t, dir); len(left) != 0 {
		t.Errorf("folders here after a failed pull: %v", left)
	}
	l.FailPulls(t, "adb", "FAKE02", false)
	pull := l.corepin(t, dir, "--on", "adb:FAKE02", "--keep-remote", "pull", id)
	printed := printedFolders(t, dir, pull.stdout)[""]
	if run, err := results.Load(printed); pull.code != 0 || err != nil || run.Host.Serial != "FAKE02" {
		t.Fatalf("pull: exit %d, %v\n%s%s", pull.code, err, pull.stdout, pull.stderr)
	}
	device := filepath.Join(l.data["FAKE02"], "local", "tmp")
	for _, junk := range []string{"corepin-00000000000000aa", "corepin-00000000000000aa.part-0123abcd"} {
		os.WriteFile(filepath.Join(device, junk), nil, 0o755)
	}
	clean := l.corepin(t, dir, "--on", "adb:FAKE02", "clean")
	if clean.code != 0 || !strings.Contains(clean.stdout, "adb:FAKE02: removed 1 old binary, 1 partial copy and 1 pulled run") {
		t.Errorf("clean: exit %d\n%s%s", clean.code, clean.stdout, clean.stderr)
	}
	var left []string
	entries, _ := os.ReadDir(device)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	runs, _ := os.ReadDir(filepath.Join(device, "corepin-runs"))
	// The binary pushed for the run stays: this corepin's.
	if len(left) != 2 || !regexp.MustCompile(`^corepin-[0-9a-f]{16}$`).MatchString(left[0]) || left[0] == "corepin-00000000000000aa" ||
		left[1] != "corepin-runs" || len(runs) != 0 {
		t.Errorf("left on the device: %v, runs %v", left, runs)
	}
}

// TestRemoteFakeCommands: exec through hdc and old adb passes the
// command's output and status on; --report - prints the report here;
// telemetry --out FILE replaces FILE as it does here; --binary is checked
// before anything is pushed.
func TestRemoteFakeCommands(t *testing.T) {
	t.Parallel()
	l := newPhoneLab(t)
	dir := t.TempDir()
	for _, spec := range []string{"hdc:7001", "adb:OLD01"} {
		ex := l.corepin(t, dir, "--on", spec, "exec", "--", "sh", "-c", `printf '%s\n' "a b" '$x'; exit 3`)
		if ex.code != 3 || !strings.HasPrefix(ex.stdout, "a b\n$x\n") {
			t.Errorf("exec on %s: exit %d, stdout %q\n%s", spec, ex.code, ex.stdout, ex.stderr)
		}
	}
	rep := l.corepin(t, dir, "--on", "adb:FAKE01", "exec", "--report", "-", "--", "true")
	var report struct {
		TID    int `json:"tid"`
		Target struct {
			CPU *int `json:"cpu"`
		} `json:"target"`
	}
	if err := json.Unmarshal([]byte(rep.stdout), &report); rep.code != 0 || err != nil || report.TID == 0 || report.Target.CPU == nil {
		t.Errorf("exec --report -: exit %d, %v\n%s%s", rep.code, err, rep.stdout, rep.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error("exec --report - wrote a file named -")
	}
	csv := filepath.Join(dir, "t.csv")
	os.WriteFile(csv, []byte("old\n"), 0o644)
	tel := l.corepin(t, dir, "--on", "adb:FAKE01", "telemetry", "--duration", "300ms", "--format", "csv", "--out", csv)
	data, _ := os.ReadFile(csv)
	if tel.code != 0 || strings.HasPrefix(string(data), "old") || !strings.Contains(string(data), ",") {
		t.Errorf("telemetry --out an existing file: exit %d, %q\n%s", tel.code, data, tel.stderr)
	}
	if more, _ := filepath.Glob(csv + "-*"); len(more) != 0 {
		t.Errorf("telemetry --out wrote %v", more)
	}
	bad := l.corepin(t, dir, "--on", "adb:FAKE01", "--binary", "/etc/passwd", "topo")
	if bad.code != exitFailure || !regexp.MustCompile(`--binary /etc/passwd cannot run on the device \(android/\S+.*, Android SDK 34\): it is not an ELF executable`).MatchString(bad.stderr) ||
		strings.Contains(bad.stderr, "pushed") {
		t.Errorf("--binary /etc/passwd: exit %d\n%s", bad.code, bad.stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(l.data["FAKE01"], "local", "tmp", "corepin-*.part-*")); len(left) != 0 {
		t.Errorf("left on the device: %v", left)
	}
}

// TestRemoteFakeVanishes unplugs a HarmonyOS device in the middle of a
// run: hdc's own words come back, the run goes on there, and pull fetches
// it once the device is back.
func TestRemoteFakeVanishes(t *testing.T) {
	t.Parallel()
	l := newPhoneLab(t)
	dir := t.TempDir()
	gate := filepath.Join(l.data["7001"], "gate") // /data/gate on the device
	os.WriteFile(filepath.Join(dir, "gate.sh"), []byte("#!/bin/sh\nwhile [ ! -e /data/gate ]; do sleep 0.05; done\necho open\n"), 0o755)
	suitePath := filepath.Join(dir, "suite.toml")
	os.WriteFile(suitePath, []byte("[settings]\nruns = 1\nwarmup = 0\n\n[[benchmark]]\nname = \"gate\"\ncmd = \"./gate.sh\"\n"), 0o644)
	// --lost-after 1s: the host gives up on the device after 1 s, not 20.
	cmd := exec.Command(hostCorepin(t), "--on", "hdc:7001", "--lost-after", "1s", "run", suitePath, "--allow-sharing")
	cmd.Dir, cmd.Env = dir, l.Env(os.Environ())
	id, errOut, done := started(t, cmd, `run \S+ started on`)
	l.endsWithTheTest(t, "7001", id, gate)
	l.Unplug(t, "hdc", "7001", true)
	<-done
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(errOut.String(), "[Fail][E001005] Device not found or connected") ||
		!strings.Contains(errOut.String(), "fetch it when the device is back: corepin --on hdc:7001 pull "+id) {
		t.Fatalf("an unplugged device: exit %d\n%s", code, errOut.String())
	}
	l.Unplug(t, "hdc", "7001", false)
	os.WriteFile(gate, nil, 0o644)
	pull := l.corepin(t, dir, "--on", "hdc:7001", "pull", id)
	folder := printedFolders(t, dir, strings.TrimSpace(lastLine(pull.stdout)))[""]
	run, err := results.Load(folder)
	if pull.code != 0 || err != nil || run.Host.Serial != "SN7001" || run.Host.Model != "SGU-AL10" || run.Host.OS != "OpenHarmony-5.0.0.71" || !strings.HasSuffix(folder, "-SN7001") {
		t.Fatalf("pull: exit %d, %v, folder %s\n%s%s", pull.code, err, folder, pull.stdout, pull.stderr)
	}
}

// TestRemoteFakeHangs: a phone that stops answering without vanishing
// (its adb hangs) is given up once it has not answered for --lost-after,
// as an unplugged one is, not at adb's own timeout; the run goes on there
// and pull fetches it once the phone answers again.
func TestRemoteFakeHangs(t *testing.T) {
	t.Parallel()
	l := newPhoneLab(t)
	dir := t.TempDir()
	gate := filepath.Join(l.data["FAKE02"], "gate") // /data/gate on the phone
	os.WriteFile(filepath.Join(dir, "gate.sh"), []byte("#!/bin/sh\nwhile [ ! -e /data/gate ]; do sleep 0.05; done\necho open\n"), 0o755)
	suitePath := filepath.Join(dir, "suite.toml")
	os.WriteFile(suitePath, []byte("[settings]\nruns = 1\nwarmup = 0\n\n[[benchmark]]\nname = \"gate\"\ncmd = \"./gate.sh\"\n"), 0o644)
	cmd := exec.Command(hostCorepin(t), "--on", "adb:FAKE02", "--lost-after", "1s", "run", suitePath, "--allow-sharing")
	cmd.Dir, cmd.Env = dir, l.Env(os.Environ())
	id, errOut, done := started(t, cmd, `run \S+ started on`)
	l.endsWithTheTest(t, "FAKE02", id, gate)
	l.Hang(t, "adb", "FAKE02", true)
	<-done
	l.Hang(t, "adb", "FAKE02", false)
	// The host's own decision: no answer for --lost-after's 1 s.
	if code := cmd.ProcessState.ExitCode(); code != exitFailure || !strings.Contains(errOut.String(), "no answer for 1s; run "+id+" goes on there") ||
		!strings.Contains(errOut.String(), "fetch it when the device is back: corepin --on adb:FAKE02 pull "+id) {
		t.Fatalf("a hanging phone: exit %d\n%s", code, errOut.String())
	}
	os.WriteFile(gate, nil, 0o644)
	pull := l.corepin(t, dir, "--on", "adb:FAKE02", "pull", id)
	if folder := printedFolders(t, dir, strings.TrimSpace(lastLine(pull.stdout)))[""]; pull.code != 0 || !strings.HasSuffix(folder, "-FAKE02") {
		t.Fatalf("pull: exit %d, folder %s\n%s%s", pull.code, folder, pull.stdout, pull.stderr)
	}
}

// TestRemoteFakeSignals: SIGHUP and SIGTERM during a run on a device end
// the host's corepin with 129 and 143, as they end a run here; the run on
// the device is interrupted, restores and keeps what finished, and comes
// back.
func TestRemoteFakeSignals(t *testing.T) {
	t.Parallel()
	l := newPhoneLab(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "wait.sh"), []byte("#!/bin/sh\nwhile :; do sleep 0.05; done\n"), 0o755)
	suitePath := filepath.Join(dir, "suite.toml")
	os.WriteFile(suitePath, []byte("[settings]\nruns = 1\nwarmup = 0\n\n[[benchmark]]\nname = \"wait\"\ncmd = \"./wait.sh\"\n"), 0o644)
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM} {
		cmd := exec.Command(hostCorepin(t), "--on", "adb:FAKE01", "run", suitePath, "--allow-sharing", "--out", filepath.Join(dir, sig.String()))
		cmd.Dir, cmd.Env = dir, l.Env(os.Environ())
		_, errOut, done := started(t, cmd, `run \S+ started on`)
		cmd.Process.Signal(sig)
		<-done
		if code := cmd.ProcessState.ExitCode(); code != 128+int(sig) {
			t.Errorf("%v during a run on a phone: exit %d, want %d\n%s", sig, code, 128+int(sig), errOut.String())
		}
		pulled, _ := filepath.Glob(filepath.Join(dir, sig.String(), "*", "run.json"))
		if len(pulled) != 1 {
			t.Errorf("%v: brought back %v\n%s", sig, pulled, errOut.String())
			continue
		}
		if run, err := results.Load(filepath.Dir(pulled[0])); err != nil || !run.Interrupted {
			t.Errorf("%v: the run that came back: %v, interrupted %v", sig, err, run != nil && run.Interrupted)
		}
	}
}
