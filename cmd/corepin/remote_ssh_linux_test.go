package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"corepin.dev/corepin/results"
)

// sshServer is OpenSSH's sshd on 127.0.0.1 at a free port, with a host key
// and a user key made for it: a "device" that corepin reaches through the
// real ssh and scp. One serves the whole test binary; no system
// configuration is read or changed (sshd -f names its own file).
type sshServer struct {
	dir    string // keys, configuration, the device's cache folder
	port   int
	spec   string
	config string // the client's ssh -F file
	cache  string // the device's XDG_CACHE_HOME
	log    *lockedBuffer
}

var (
	sshOnce   sync.Once
	sshShared *sshServer
	sshSkip   string
)

// sshEnv asks for the runs through a real sshd. They take about 30 s of
// the package's time (several servers, an arm64 build under qemu-user),
// so go test ./... leaves them to the step of .ci/run that sets it; the
// fake devices' tests (remote_fake_linux_test.go) cover --on without it.
const sshEnv = "COREPIN_SSH"

func sshTarget(t *testing.T) *sshServer {
	t.Helper()
	if testing.Short() {
		t.Skip("-short leaves out the runs through sshd")
	}
	if os.Getenv(sshEnv) == "" {
		t.Skip("the runs through a real sshd need " + sshEnv + "=1 (as .ci/run sets it)")
	}
	sshOnce.Do(func() { sshShared, sshSkip = startSSHD("", "") })
	if sshShared == nil {
		t.Skip(sshSkip)
	}
	return sshShared
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startSSHD starts an sshd; env is added to its sessions' environment
// (NAME=VALUE …) and extra to its configuration. It returns a reason to
// skip when the machine cannot run one.
func startSSHD(env, extra string) (*sshServer, string) {
	const sshd = "/usr/sbin/sshd"
	if _, err := os.Stat(sshd); err != nil {
		return nil, "needs OpenSSH's server (Debian package openssh-server) at " + sshd
	}
	for _, c := range []string{"ssh", "scp", "ssh-keygen"} {
		if _, err := exec.LookPath(c); err != nil {
			return nil, "needs OpenSSH's client (Debian package openssh-client): no " + c
		}
	}
	if os.Geteuid() != 0 {
		return nil, "needs root: sshd logs in as the user it runs as only when that user is root"
	}
	// sshd insists on its privilege separation folder, which the package's
	// service makes at boot; an empty folder under /run.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		return nil, "cannot make /run/sshd: " + err.Error()
	}
	dir, err := os.MkdirTemp("", "corepin-sshd-")
	if err != nil {
		return nil, err.Error()
	}
	atTestExit(func() { os.RemoveAll(dir) })
	for _, key := range []string{"host", "user"} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, key)).CombinedOutput(); err != nil {
			return nil, fmt.Sprintf("ssh-keygen: %v: %s", err, out)
		}
	}
	pub, _ := os.ReadFile(filepath.Join(dir, "user.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o600)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err.Error()
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &sshServer{dir: dir, port: port, spec: fmt.Sprintf("ssh://root@127.0.0.1:%d", port),
		config: filepath.Join(dir, "ssh_config"), cache: filepath.Join(dir, "cache"), log: &lockedBuffer{}}
	os.Mkdir(s.cache, 0o755)
	conf := fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %[2]s/host
PidFile none
AuthorizedKeysFile %[2]s/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
SetEnv XDG_CACHE_HOME=%[3]s %s
%s`, port, dir, s.cache, env, extra)
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(conf), 0o600)
	hostPub, _ := os.ReadFile(filepath.Join(dir, "host.pub"))
	os.WriteFile(filepath.Join(dir, "known_hosts"), []byte(fmt.Sprintf("[127.0.0.1]:%[1]d %[2]s[localhost]:%[1]d %[2]s", port, hostPub)), 0o600)
	os.WriteFile(s.config, []byte(fmt.Sprintf("Host *\n  IdentityFile %[1]s/user\n  IdentitiesOnly yes\n  UserKnownHostsFile %[1]s/known_hosts\n  StrictHostKeyChecking yes\n  LogLevel ERROR\n", dir)), 0o600)

	// sshd goes when the test binary goes: it is started from a thread
	// that lives as long as the process, with a parent-death signal.
	ready := make(chan error)
	go func() {
		runtime.LockOSThread()
		cmd := exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
		cmd.Stdout, cmd.Stderr = s.log, s.log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		err := cmd.Start()
		if err == nil {
			atTestExit(func() { cmd.Process.Kill() })
		}
		ready <- err
		cmd.Wait()
		select {}
	}()
	if err := <-ready; err != nil {
		return nil, "starting sshd: " + err.Error()
	}
	for i := 0; !strings.Contains(s.log.String(), "Server listening"); i++ {
		if i > 500 || strings.Contains(s.log.String(), "rror") {
			return nil, "sshd did not start: " + s.log.String()
		}
		time.Sleep(10 * time.Millisecond) // waiting for its readiness line
	}
	return s, ""
}

var (
	hostOnce sync.Once
	hostBin  string
	hostErr  error
)

// hostCorepin is a static corepin built from this package: the host side,
// and (it fits this machine) the binary it pushes.
func hostCorepin(t *testing.T) string {
	t.Helper()
	hostOnce.Do(func() {
		dir, err := os.MkdirTemp("", "corepin-host-")
		if err != nil {
			hostErr = err
			return
		}
		atTestExit(func() { os.RemoveAll(dir) })
		hostBin = filepath.Join(dir, "corepin")
		cmd := exec.Command("go", "build", "-o", hostBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			hostErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if hostErr != nil {
		t.Skip("building corepin for the host: ", hostErr)
	}
	return hostBin
}

// onHost is a corepin command on the host, in its own folder, reaching
// the server through the test's keys.
func (s *sshServer) onHost(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(hostCorepin(t), args...)
	cmd.Dir = dir
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "COREPIN_ON=") && !strings.HasPrefix(e, "TMPDIR=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, "COREPIN_SSH_CONFIG="+s.config, "TMPDIR="+shortTemp(t))
	return cmd
}

// shortTemp is a temporary folder with a short path, for the ssh master's
// socket.
func shortTemp(t *testing.T) string {
	t.Helper()
	if d, ok := shortTemps.Load(t.Name()); ok {
		return d.(string)
	}
	d, err := os.MkdirTemp("/tmp", "cp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		endMasters(d)
		os.RemoveAll(d)
	})
	shortTemps.Store(t.Name(), d)
	return d
}

var shortTemps sync.Map

// endMasters ends the ssh master connections whose control sockets are
// in the temporary folder d: a run whose link was cut, or that was
// interrupted, may not have ended its own, which ControlPersist would
// keep for a minute after the test.
func endMasters(d string) {
	socks, _ := filepath.Glob(filepath.Join(d, "corepin-ssh-*", "*"))
	for _, sock := range socks {
		exec.Command("ssh", "-S", sock, "-O", "exit", "corepin-test").Run()
	}
}

// result is a finished host command.
type result struct {
	stdout, stderr string
	code           int
}

func (s *sshServer) corepin(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := s.onHost(t, dir, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{out.String(), errOut.String(), cmd.ProcessState.ExitCode()}
	if err != nil && r.code < 0 {
		t.Fatalf("corepin %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// leftOnDevice says whether the job's folder is still on the device.
func (s *sshServer) leftOnDevice(id string) bool {
	_, err := os.Stat(filepath.Join(s.cache, "corepin", "runs", id))
	return id == "" || err == nil
}

// jobID is the run ID the host printed.
func jobID(stderr string) string {
	if m := regexp.MustCompile(`run (\S+) started on`).FindStringSubmatch(stderr); m != nil {
		return m[1]
	}
	return ""
}

// pulledFolders are the results folders in dir/corepin-results.
func pulledFolders(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "corepin-results", "*-*"))
	return m
}

func TestRemoteSSHRunQuick(t *testing.T) {
	t.Parallel()
	s := sshTarget(t)
	dir := t.TempDir()
	// One run of each benchmark: the test is about the device, not the statistics.
	r := s.corepin(t, dir, "--on", s.spec, "run", "--quick", "--runs", "1", "--warmup", "0", "--allow-sharing")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s\nsshd: %s", r.code, r.stdout, r.stderr, s.log.String())
	}
	pulled := pulledFolders(t, dir)
	if len(pulled) != 1 {
		t.Fatalf("pulled %v; stderr:\n%s", pulled, r.stderr)
	}
	for _, f := range []string{"run.json", "summary.csv", "bench.txt", "report.html", "telemetry"} {
		if _, err := os.Stat(filepath.Join(pulled[0], f)); err != nil {
			t.Errorf("pulled folder: %v", err)
		}
	}
	run, err := results.Load(pulled[0])
	if err != nil {
		t.Fatal(err)
	}
	if run.Interrupted || len(run.Benchmarks) < 5 || run.Score == nil {
		t.Errorf("run: interrupted %v, %d benchmarks, score %v", run.Interrupted, len(run.Benchmarks), run.Score)
	}
	// The device's progress came through as lines, one per run.
	if n := len(regexp.MustCompile(`(?m)^\[\d+/\d+\] `).FindAllString(r.stderr, -1)); n < len(run.Benchmarks) {
		t.Errorf("%d progress lines for %d benchmarks:\n%s", n, len(run.Benchmarks), r.stderr)
	}
	// The paths printed are the host's.
	if !strings.Contains(r.stdout, filepath.Join("corepin-results", filepath.Base(pulled[0]))) || strings.Contains(r.stdout, s.cache) {
		t.Errorf("stdout names the device's folder, not the host's:\n%s", r.stdout)
	}
	if out, errOut, code := corepin(t, "report", pulled[0], "--out", filepath.Join(dir, "page.html")); code != 0 {
		t.Errorf("corepin report: exit %d: %s%s", code, out, errOut)
	}
	if s.leftOnDevice(jobID(r.stderr)) {
		t.Errorf("the run's folder stayed on the device (run %q)", jobID(r.stderr))
	}
}

func TestRemoteSSHCommands(t *testing.T) {
	t.Parallel()
	sshTarget(t) // skips where sshd cannot run
	// A server of its own, whose device cache starts empty: the pushes are
	// counted.
	s, skip := startSSHD("", "")
	if s == nil {
		t.Skip(skip)
	}
	dir := t.TempDir()
	first := s.corepin(t, dir, "--on", s.spec, "topo", "--json")
	second := s.corepin(t, dir, "--on", s.spec, "topo", "--json")
	if first.code != 0 || second.code != 0 {
		t.Fatalf("topo --json: exit %d, %d\n%s\n%s", first.code, second.code, first.stderr, second.stderr)
	}
	hash := regexp.MustCompile(`pushed corepin-([0-9a-f]{16})`).FindStringSubmatch(first.stderr)
	if hash == nil || !strings.Contains(second.stderr, "corepin-"+hash[1]+" is already on") || strings.Contains(second.stderr, "pushed") {
		t.Errorf("the binary was not pushed once and then reused:\n%s\n%s", first.stderr, second.stderr)
	}
	if bins, _ := filepath.Glob(filepath.Join(s.cache, "corepin", "corepin-*")); len(bins) != 1 {
		t.Errorf("binaries on the device: %v", bins)
	}
	var topo struct {
		Target struct {
			ExactCPU *int `json:"exact_cpu"`
		} `json:"target"`
	}
	if err := json.Unmarshal([]byte(second.stdout), &topo); err != nil || topo.Target.ExactCPU == nil {
		t.Errorf("topo --json through ssh: %v\n%s", err, second.stdout)
	}
	caps := s.corepin(t, dir, "--on", s.spec, "--keep-remote", "caps", "--json")
	var c map[string]any
	if err := json.Unmarshal([]byte(caps.stdout), &c); caps.code != 0 || err != nil || len(c) == 0 {
		t.Errorf("caps --json through ssh: exit %d, %v\n%s", caps.code, err, caps.stderr)
	}
	// After a normal end nothing of the run is left running there.
	job := filepath.Join(s.cache, "corepin", "runs", jobID(caps.stderr))
	defer os.RemoveAll(job)
	if left := s.processesOf(t, job); len(left) > 0 {
		t.Errorf("processes of the run are left on the device: %v", left)
	}
	ex := s.corepin(t, dir, "--on", s.spec, "exec", "--", "sh", "-c", "echo out; echo err >&2; exit 3")
	if ex.code != 3 || ex.stdout != "out\n" || !strings.Contains(ex.stderr, "err\n") {
		t.Errorf("exec through ssh: exit %d, stdout %q, stderr %q", ex.code, ex.stdout, ex.stderr)
	}
	bad := s.corepin(t, dir, "--on", s.spec, "topo", "--no-such-flag")
	if bad.code != exitUsage || strings.Contains(bad.stderr, "pushed") {
		t.Errorf("a wrong command line went to the device: exit %d\n%s", bad.code, bad.stderr)
	}
}

// gateSuite writes a suite whose benchmark "gate" waits until the file
// gate exists; with quick, a first benchmark that ends at once comes
// before it.
func gateSuite(t *testing.T, dir string, quick bool) (suitePath, gate string) {
	t.Helper()
	gate = filepath.Join(dir, "gate")
	os.WriteFile(filepath.Join(dir, "gate.sh"), []byte("#!/bin/sh\nwhile [ ! -e \"$GATE\" ]; do sleep 0.05; done\necho open\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "quick.sh"), []byte("#!/bin/sh\necho quick\n"), 0o755)
	text := "[settings]\nruns = 1\nwarmup = 0\n\n"
	if quick {
		text += "[[benchmark]]\nname = \"first\"\ncmd = \"./quick.sh\"\n\n"
	}
	text += fmt.Sprintf("[[benchmark]]\nname = \"gate\"\ncmd = \"./gate.sh\"\nenv = { GATE = %q }\n", gate)
	suitePath = filepath.Join(dir, "suite.toml")
	os.WriteFile(suitePath, []byte(text), 0o644)
	return suitePath, gate
}

// started runs a host command and returns once its standard error shows a
// line matching ready; the lines so far and the run's ID come with it.
func started(t *testing.T, cmd *exec.Cmd, ready string) (id string, errOut *lockedBuffer, done chan error) {
	t.Helper()
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	errOut = &lockedBuffer{}
	seen := make(chan string, 1)
	done = make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		re := regexp.MustCompile(ready)
		for sc.Scan() {
			fmt.Fprintln(errOut, sc.Text())
			if m := jobID(sc.Text()); m != "" {
				id = m
			}
			if re.MatchString(sc.Text()) {
				select {
				case seen <- id:
				default:
				}
			}
		}
		done <- cmd.Wait()
	}()
	select {
	case id = <-seen:
	case err := <-done:
		t.Fatalf("ended before %q: %v\n%s", ready, err, errOut.String())
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no %q within 3 minutes\n%s", ready, errOut.String())
	}
	return id, errOut, done
}

// sessionProcesses are the processes of a session on this machine (the
// device side of the loopback target).
func sessionProcesses(sid int) []string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var found []string
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		// A zombie has ended: it waits only for its parent to reap it. The
		// test process may be that parent, having become a subreaper
		// through an in-process corepin run of another test.
		if len(fields) > 3 && fields[3] == strconv.Itoa(sid) && fields[0] != "Z" {
			found = append(found, p+": "+s[:strings.LastIndexByte(s, ')')+1])
		}
	}
	return found
}

// processesOf are the processes left of a kept job: those of its session,
// which the job's wrapper shell leads (it wrote its PID to the session
// file).
func (s *sshServer) processesOf(t *testing.T, job string) []string {
	t.Helper()
	sid, err := os.ReadFile(filepath.Join(job, "session"))
	if err != nil {
		t.Fatalf("the run's session: %v", err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(sid)))
	left := sessionProcesses(n)
	for i := 0; len(left) > 0 && i < 100; i++ { // the wrapper writes the status and then exits
		time.Sleep(50 * time.Millisecond)
		left = sessionProcesses(n)
	}
	return left
}

func TestRemoteSSHInterrupt(t *testing.T) {
	t.Parallel()
	s := sshTarget(t)
	dir := t.TempDir()
	suitePath, _ := gateSuite(t, dir, true)
	cmd := s.onHost(t, dir, "--on", s.spec, "--keep-remote", "run", suitePath, "--allow-sharing")
	id, errOut, done := started(t, cmd, `^\[1/2\] first`)
	cmd.Process.Signal(os.Interrupt)
	<-done
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after Ctrl-C, want 130\n%s", code, errOut.String())
	}
	job := filepath.Join(s.cache, "corepin", "runs", id)
	defer os.RemoveAll(job)
	if left := s.processesOf(t, job); len(left) > 0 {
		t.Errorf("processes of the run are left on the device: %v", left)
	}
	pulled := pulledFolders(t, dir)
	if len(pulled) != 1 {
		t.Fatalf("pulled %v\n%s", pulled, errOut.String())
	}
	run, err := results.Load(pulled[0])
	if err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || len(run.Benchmarks) == 0 || run.Benchmarks[0].Name != "first" || !run.Benchmarks[0].Valid {
		t.Errorf("pulled run: interrupted %v, benchmarks %+v", run.Interrupted, run.Benchmarks)
	}
}

func TestRemoteSSHLinkLost(t *testing.T) {
	t.Parallel()
	s := sshTarget(t)
	dir := t.TempDir()
	suitePath, gate := gateSuite(t, dir, false)
	cmd := s.onHost(t, dir, "--on", s.spec, "run", suitePath, "--allow-sharing")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	id, _, done := started(t, cmd, `run \S+ started on`)
	// Break the link: the host's corepin and every ssh it started,
	// including the master connection, which went to the background.
	check := exec.Command("ssh", "-F", s.config, "-p", strconv.Itoa(s.port),
		"-o", "ControlPath="+filepath.Join(shortTemp(t), "corepin-ssh-"+strconv.Itoa(os.Getuid()), "%C"), "-O", "check", "root@127.0.0.1")
	said, _ := check.CombinedOutput()
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	if m := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(said); m != nil {
		pid, _ := strconv.Atoi(string(m[1]))
		syscall.Kill(pid, syscall.SIGKILL)
	} else {
		t.Errorf("no master connection: %s", said)
	}

	status := s.corepin(t, dir, "--on", s.spec, "status")
	if status.code != 0 || !regexp.MustCompile(regexp.QuoteMeta(id)+`\s+running`).MatchString(status.stdout) {
		t.Fatalf("status after the link broke: exit %d\n%s%s", status.code, status.stdout, status.stderr)
	}
	os.WriteFile(gate, nil, 0o644) // the benchmark ends
	pull := s.corepin(t, dir, "--on", s.spec, "pull", id)
	if pull.code != 0 {
		t.Fatalf("pull: exit %d\n%s%s", pull.code, pull.stdout, pull.stderr)
	}
	pulled := pulledFolders(t, dir)
	if len(pulled) != 1 {
		t.Fatalf("pulled %v\n%s", pulled, pull.stderr)
	}
	run, err := results.Load(pulled[0])
	if err != nil {
		t.Fatal(err)
	}
	if run.Interrupted || len(run.Benchmarks) != 1 || !run.Benchmarks[0].Valid {
		t.Errorf("pulled run: interrupted %v, %+v", run.Interrupted, run.Benchmarks)
	}
	if _, err := os.Stat(filepath.Join(pulled[0], "report.html")); err != nil {
		t.Error(err)
	}
	if s.leftOnDevice(id) {
		t.Errorf("the run's folder stayed on the device (run %q)", id)
	}
	// The killed master left its socket behind; status and pull each
	// started a master of their own there and ended it.
	if left := sshProcessesWith(shortTemp(t)); len(left) > 0 {
		t.Errorf("ssh connections left after status and pull: %v", left)
	}
}

// sshProcessesWith lists the ssh processes whose command line names dir.
func sshProcessesWith(dir string) []string {
	var out []string
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range cmdlines {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(data), "\x00")
		if filepath.Base(args[0]) == "ssh" && strings.Contains(string(data), dir) {
			out = append(out, strings.Join(args, " "))
		}
	}
	return out
}

func TestRemoteSSHRefused(t *testing.T) {
	t.Parallel()
	s := sshTarget(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there now
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := s.onHost(t, t.TempDir(), "--on", fmt.Sprintf("ssh://root@127.0.0.1:%d", port), "topo")
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...) // bounded, in case it hangs
	cmd.Env, cmd.Dir = s.onHost(t, t.TempDir()).Env, t.TempDir()
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatal("corepin --on a refusing host did not end")
	}
	if cmd.ProcessState.ExitCode() != exitFailure || !strings.Contains(string(out), "Connection refused") ||
		!strings.Contains(string(out), fmt.Sprintf("connecting to ssh://root@127.0.0.1:%d", port)) {
		t.Errorf("exit %d: %s", cmd.ProcessState.ExitCode(), out)
	}
}

// TestRemoteSSHSeveral runs one job on two targets at once (the same
// server under two names), each into its own folder, and merges them.
func TestRemoteSSHSeveral(t *testing.T) {
	t.Parallel()
	s := sshTarget(t)
	dir := t.TempDir()
	suitePath, gate := gateSuite(t, dir, true)
	os.WriteFile(gate, nil, 0o644) // open from the start
	other := strings.Replace(s.spec, "127.0.0.1", "localhost", 1)
	r := s.corepin(t, dir, "--on", s.spec, "--on", other, "run", suitePath, "--allow-sharing")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, spec := range []string{s.spec, other} {
		if !strings.Contains(r.stderr, "["+spec+"] corepin: pulled ") {
			t.Errorf("no results pulled from %s:\n%s", spec, r.stderr)
		}
	}
	pulled := pulledFolders(t, dir)
	if len(pulled) != 2 {
		t.Fatalf("pulled %v", pulled)
	}
	m := s.corepin(t, dir, "merge", "--out", filepath.Join(dir, "fleet.html"), pulled[0], pulled[1])
	if m.code != 0 || !strings.Contains(m.stdout, "[2] ") || !strings.Contains(m.stdout, "gate") {
		t.Errorf("merge: exit %d\n%s%s", m.code, m.stdout, m.stderr)
	}
}

// TestRemoteSSHOtherArchitecture reaches an sshd whose shell says
// aarch64 (a uname earlier on its PATH): corepin must not push itself. In
// a folder without corepin's source it says how to make a binary; in
// corepin's module it builds one with GOARCH=arm64, pushes it and, where
// qemu-user and binfmt run arm64 binaries, runs it.
func TestRemoteSSHOtherArchitecture(t *testing.T) {
	t.Parallel()
	sshTarget(t) // skips where sshd cannot run
	wrap := t.TempDir()
	os.WriteFile(filepath.Join(wrap, "uname"), []byte("#!/bin/sh\nif [ \"$1\" = -m ]; then echo aarch64; else exec /bin/uname \"$@\"; fi\n"), 0o755)
	s, skip := startSSHD("PATH="+wrap+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "")
	if s == nil {
		t.Skip(skip)
	}
	r := s.corepin(t, t.TempDir(), "--on", s.spec, "topo", "--json")
	if r.code != exitFailure || !strings.Contains(r.stderr, "no corepin for linux/arm64") ||
		!strings.Contains(r.stderr, "CGO_ENABLED=0 GOOS=linux GOARCH=arm64 go build") || strings.Contains(r.stderr, "pushed") {
		t.Fatalf("without a binary for arm64: exit %d\n%s", r.code, r.stderr)
	}
	enabled, _ := os.ReadFile("/proc/sys/fs/binfmt_misc/qemu-aarch64")
	if !strings.HasPrefix(string(enabled), "enabled") {
		t.Skip("running the arm64 build needs qemu-user-static with binfmt_misc's qemu-aarch64 enabled (update-binfmts --enable qemu-aarch64)")
	}
	module, _ := filepath.Abs("../..")
	r = s.corepin(t, module, "--on", s.spec, "topo", "--json")
	if r.code != 0 || !strings.Contains(r.stderr, "building corepin for linux/arm64") || !strings.Contains(r.stderr, "pushed corepin-") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	bins, _ := filepath.Glob(filepath.Join(s.cache, "corepin", "corepin-*"))
	if len(bins) != 1 {
		t.Fatalf("binaries on the device: %v", bins)
	}
	if f, err := elf.Open(bins[0]); err != nil || f.Machine != elf.EM_AARCH64 {
		t.Errorf("the pushed corepin is not an arm64 binary: %v", err)
	}
	var topo map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &topo); err != nil || topo["cpus"] == nil {
		t.Errorf("topo --json from the arm64 corepin: %v\n%s", err, r.stdout)
	}
}
