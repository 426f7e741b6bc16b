package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// localTarget is this machine as a device: commands run in sh, copies are
// cp. It can vanish, as a device unplugged does, or hang, as one that
// stops responding does: a command then waits until the caller's context
// ends, and hung records the context's error and deadline.
type localTarget struct {
	gone, hang atomic.Bool
	hung       chan hungCall
}

// hungCall is a call to a hanging device: when it was made, and its
// context's deadline and error when it ended.
type hungCall struct {
	made, deadline time.Time
	err            error
}

func (l *localTarget) String() string { return "local" }
func (l *localTarget) Kind() string   { return "ssh" }
func (l *localTarget) Run(ctx context.Context, command string, stdout, stderr io.Writer) (int, error) {
	if l.gone.Load() {
		return -1, fmt.Errorf("local: no answer within 1s: %w", ErrLost)
	}
	if l.hang.Load() {
		// Nothing comes back until the caller gives up, or, as a client's
		// own timeout would, after a minute.
		made := time.Now()
		select {
		case <-ctx.Done():
		case <-time.After(time.Minute):
		}
		dl, _ := ctx.Deadline()
		l.hung <- hungCall{made, dl, ctx.Err()}
		return -1, fmt.Errorf("local: no answer: %w", ErrLost)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}
func (l *localTarget) Push(ctx context.Context, local, remote string) error {
	return exec.CommandContext(ctx, "cp", local, remote).Run()
}
func (l *localTarget) Pull(ctx context.Context, remote, localDir string) error {
	return exec.CommandContext(ctx, "cp", "-r", remote, localDir).Run()
}
func (l *localTarget) Remove(ctx context.Context, remote string) error {
	return removeWith(ctx, l, remote)
}
func (l *localTarget) Close() error { return nil }

func localDevice(t *testing.T) (*Device, *localTarget) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("needs sh")
	}
	lt := &localTarget{}
	d, err := Connect(context.Background(), lt)
	if err != nil {
		t.Fatal(err)
	}
	d.Folder = t.TempDir()
	d.follow.pollEvery = 20 * time.Millisecond // a local device answers at once
	return d, lt
}

// TestJobFollowsThroughALostLink starts a job that waits for a gate, loses
// the device while following it, and follows it again when the device is
// back: the job went on, its whole output and status come through once.
func TestJobFollowsThroughALostLink(t *testing.T) {
	d, lt := localDevice(t)
	d.follow.lostAfter = 100 * time.Millisecond
	j := d.NewJob(time.Now())
	gate := filepath.Join(t.TempDir(), "gate")
	script := fmt.Sprintf(`echo started; echo to-stderr >&2; while [ ! -e %s ]; do sleep 0.02; done; printf done; exit 4`, gate)
	if err := j.Start(context.Background(), "sh", []string{"-c", script}); err != nil {
		t.Fatal(err)
	}
	lt.gone.Store(true)
	var out, errOut bytes.Buffer
	_, err := j.Follow(context.Background(), &out, &errOut)
	if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "goes on there") {
		t.Fatalf("following a vanished device: %v", err)
	}
	jobs, _ := (&Device{Target: &localTarget{}, Folder: d.Folder}).Jobs(context.Background())
	if len(jobs) != 1 || !jobs[0].Running || jobs[0].ID != j.ID {
		t.Errorf("jobs while the link is down: %+v", jobs)
	}
	lt.gone.Store(false)
	os.WriteFile(gate, nil, 0o644)
	d.follow.lostAfter = time.Minute // a question may take longer than 100 ms on a busy machine
	code, err := j.Follow(context.Background(), &out, &errOut)
	if err != nil || code != 4 {
		t.Fatalf("following again: %d, %v", code, err)
	}
	if out.String() != "started\ndone" || errOut.String() != "to-stderr\n" {
		t.Errorf("output %q, %q", out.String(), errOut.String())
	}
	jobs, _ = d.Jobs(context.Background())
	if len(jobs) != 1 || jobs[0].Status == nil || *jobs[0].Status != 4 {
		t.Errorf("jobs after the end: %+v", jobs)
	}
	if err := j.Remove(context.Background()); err != nil {
		t.Error(err)
	}
	if _, err := j.Follow(context.Background(), io.Discard, io.Discard); !errors.Is(err, errGone) {
		t.Errorf("following a removed job: %v", err)
	}
}

// TestJobFollowGivesUpOnAHangingDevice: a device that stops answering
// without vanishing (its client hangs) is given up as a vanished one is,
// once it has not answered for lostAfter: the hung question is cut off by
// Follow's own deadline, lostAfter after it was asked, not by the client's
// timeout, and the job goes on.
func TestJobFollowGivesUpOnAHangingDevice(t *testing.T) {
	d, lt := localDevice(t)
	d.follow.lostAfter = time.Second // longer than a question takes on a busy machine
	lt.hung = make(chan hungCall, 16)
	j := d.NewJob(time.Now())
	gate := filepath.Join(t.TempDir(), "gate")
	if err := j.Start(context.Background(), "sh", []string{"-c", fmt.Sprintf(`echo started; while [ ! -e %s ]; do sleep 0.02; done`, gate)}); err != nil {
		t.Fatal(err)
	}
	var out lockedWriter
	out.hang = func() { lt.hang.Store(true) } // once the job's first line came: the device answered
	_, err := j.Follow(context.Background(), &out, io.Discard)
	if !errors.Is(err, ErrLost) || !strings.Contains(err.Error(), "no answer for 1s") || !strings.Contains(err.Error(), "goes on there") {
		t.Fatalf("following a hanging device: %v", err)
	}
	select {
	case h := <-lt.hung:
		// The question was cut off by Follow's deadline: lostAfter after
		// it was asked, which was after the device's last answer.
		if l := d.follow.lostAfter; h.err != context.DeadlineExceeded || h.deadline.Before(out.hungAt.Add(l)) || h.deadline.After(h.made.Add(l)) {
			t.Errorf("the hung question ended with %v at deadline %v; want Follow's, %v after it was asked (between %v and %v)",
				h.err, h.deadline, l, out.hungAt, h.made)
		}
	default:
		t.Error("no question to the hanging device ended")
	}
	// The job went on: once the device answers again it ends, and goes.
	lt.hang.Store(false)
	d.follow.lostAfter = time.Minute
	os.WriteFile(gate, nil, 0o644)
	if code, err := j.Follow(context.Background(), io.Discard, io.Discard); err != nil || code != 0 {
		t.Errorf("following again: %d, %v", code, err)
	}
	if err := j.Remove(context.Background()); err != nil {
		t.Error(err)
	}
}

// lockedWriter calls hang when its first byte is written, and notes when.
type lockedWriter struct {
	hang   func()
	hungAt time.Time
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	if w.hang != nil && len(p) > 0 {
		w.hungAt = time.Now()
		w.hang()
		w.hang = nil
	}
	return len(p), nil
}

func TestJobFetch(t *testing.T) {
	d, _ := localDevice(t)
	j := d.NewJob(time.Now())
	if err := j.Start(context.Background(), "sh", []string{"-c", "mkdir -p ../out/r1 && echo x > ../out/r1/run.json"}); err != nil {
		t.Fatal(err)
	}
	if code, err := j.Follow(context.Background(), io.Discard, io.Discard); err != nil || code != 0 {
		t.Fatal(code, err)
	}
	names, err := j.Results(context.Background())
	if err != nil || len(names) != 1 || names[0] != "r1" {
		t.Fatalf("results %q, %v", names, err)
	}
	base := t.TempDir()
	os.Mkdir(filepath.Join(base, "r1"), 0o755) // the host has one of that name
	got, err := j.Fetch(context.Background(), "r1", base)
	if err != nil || got != filepath.Join(base, "r1-2") {
		t.Fatalf("fetched to %q, %v", got, err)
	}
	if data, _ := os.ReadFile(filepath.Join(got, "run.json")); string(data) != "x\n" {
		t.Errorf("run.json %q", data)
	}
	if left, _ := filepath.Glob(filepath.Join(base, ".corepin-pull-*")); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// TestJobEndedWithoutStatus follows a job whose wrapper was killed: the
// follower says so instead of waiting for a status that never comes.
func TestJobEndedWithoutStatus(t *testing.T) {
	d, _ := localDevice(t)
	j := d.NewJob(time.Now())
	if err := j.Start(context.Background(), "sh", []string{"-c", "while [ ! -s ../pid ]; do sleep 0.01; done; echo before; kill -9 $PPID"}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	_, err := j.Follow(context.Background(), &out, io.Discard)
	if !errors.Is(err, ErrNoStatus) || out.String() != "before\n" {
		t.Errorf("%v, output %q", err, out.String())
	}
}

// TestJobAbandoned interrupts a job that does not stop (a shell started in
// the background ignores SIGINT) and then stops waiting for it.
func TestJobAbandoned(t *testing.T) {
	d, _ := localDevice(t)
	j := d.NewJob(time.Now())
	if err := j.Start(context.Background(), "sh", []string{"-c", "while :; do sleep 0.05; done"}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		sid, _ := os.ReadFile(filepath.Join(j.Dir, "session"))
		exec.Command("kill", "-9", "--", "-"+strings.TrimSpace(string(sid))).Run()
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // Ctrl-C
	abandon := make(chan struct{})
	close(abandon) // and Ctrl-C again
	j.Abandon = abandon
	if _, err := j.Follow(ctx, io.Discard, io.Discard); !errors.Is(err, ErrAbandoned) {
		t.Errorf("%v", err)
	}
}

// TestJobRunsWithoutNohupAndIgnoresHangUp starts a job on a device whose
// programs are only the few a job needs (no nohup: Debian's busybox has
// none), hangs up on the job's whole session while it waits, and follows
// it to its end: it started, and the hang-up did not end it.
func TestJobRunsWithoutNohupAndIgnoresHangUp(t *testing.T) {
	bin := t.TempDir()
	for _, tool := range []string{"sh", "uname", "id", "mkdir", "cat", "sleep", "mv", "rm", "printf", "setsid", "wc", "tail", "head", "ls", "tr", "grep"} {
		if path, err := exec.LookPath(tool); err == nil {
			os.Symlink(path, filepath.Join(bin, tool))
		}
	}
	t.Setenv("PATH", bin)
	if _, err := exec.LookPath("nohup"); err == nil {
		t.Fatal("nohup is still on the PATH")
	}
	d, _ := localDevice(t)
	j := d.NewJob(time.Now())
	gate := filepath.Join(t.TempDir(), "gate")
	script := fmt.Sprintf(`echo waiting; while [ ! -e %s ]; do sleep 0.02; done; echo through`, gate)
	if err := j.Start(context.Background(), "sh", []string{"-c", script}); err != nil {
		t.Fatalf("starting a job without nohup: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(j.Dir, "session"))
	session, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || session <= 1 {
		t.Fatalf("the job's session file: %q, %v", data, err)
	}
	// The wrapper leads its own process group (setsid), or shares the
	// starting shell's, which is gone by now: signal the group where there
	// is one, else the wrapper and its children one by one.
	if err := syscall.Kill(-session, syscall.SIGHUP); err != nil {
		syscall.Kill(session, syscall.SIGHUP)
		if pid, err := os.ReadFile(filepath.Join(j.Dir, "pid")); err == nil {
			p, _ := strconv.Atoi(strings.TrimSpace(string(pid)))
			syscall.Kill(p, syscall.SIGHUP)
		}
	}
	os.WriteFile(gate, nil, 0o644)
	var out bytes.Buffer
	code, err := j.Follow(context.Background(), &out, io.Discard)
	if err != nil || code != 0 || out.String() != "waiting\nthrough\n" {
		t.Fatalf("after a hang-up: exit %d, %v, output %q", code, err, out.String())
	}
}

// TestJobFetchInto pulls a job's file and folder results over the host's
// as the command would have written them here: the file replaced, the
// folder's files merged in.
func TestJobFetchInto(t *testing.T) {
	d, _ := localDevice(t)
	j := d.NewJob(time.Now())
	if err := j.Start(context.Background(), "sh", []string{"-c", "echo new > ../out/t.csv && mkdir ../out/exp && echo new > ../out/exp/a.json"}); err != nil {
		t.Fatal(err)
	}
	if code, err := j.Follow(context.Background(), io.Discard, io.Discard); err != nil || code != 0 {
		t.Fatal(code, err)
	}
	here := t.TempDir()
	os.WriteFile(filepath.Join(here, "t.csv"), []byte("old\n"), 0o644)
	os.Mkdir(filepath.Join(here, "exp"), 0o755)
	os.WriteFile(filepath.Join(here, "exp", "a.json"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(here, "exp", "other.json"), []byte("kept\n"), 0o644)
	for _, name := range []string{"t.csv", "exp"} {
		if got, err := j.FetchInto(context.Background(), name, here); err != nil || got != filepath.Join(here, name) {
			t.Errorf("%s: fetched to %q, %v", name, got, err)
		}
	}
	for rel, want := range map[string]string{"t.csv": "new\n", "exp/a.json": "new\n", "exp/other.json": "kept\n"} {
		if data, _ := os.ReadFile(filepath.Join(here, rel)); string(data) != want {
			t.Errorf("%s: %q, want %q", rel, data, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(here, "*")); len(left) != 2 {
		t.Errorf("the host's folder holds %v", left)
	}
}

// TestClean leaves a device with what corepin needs: the current binary
// and a running run's, a run not pulled yet, and what is not corepin's.
func TestClean(t *testing.T) {
	d, _ := localDevice(t)
	ctx := context.Background()
	const cur, old, inUse = "corepin-00000000000000aa", "corepin-00000000000000bb", "corepin-00000000000000cc"
	sh, _ := exec.LookPath("sh")
	for _, name := range []string{cur, old, old + ".part-0123abcd", "corepin-notmine", "other-file"} {
		os.WriteFile(filepath.Join(d.Folder, name), nil, 0o755)
	}
	os.Symlink(sh, filepath.Join(d.Folder, inUse))
	start := func(bin, script string) *Job {
		j := d.NewJob(time.Now())
		if err := j.Start(ctx, bin, []string{"-c", script}); err != nil {
			t.Fatal(err)
		}
		return j
	}
	pulled, kept := start("sh", "true"), start("sh", "true")
	for _, j := range []*Job{pulled, kept} {
		if _, err := j.Follow(ctx, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(pulled.Dir, "pulled"), nil, 0o644)
	gate := filepath.Join(t.TempDir(), "gate")
	running := start(filepath.Join(d.Folder, inUse), fmt.Sprintf("while [ ! -e %s ]; do sleep 0.02; done", gate))
	defer func() {
		os.WriteFile(gate, nil, 0o644)
		running.Follow(ctx, io.Discard, io.Discard)
	}()
	c, err := d.Clean(ctx, d.Folder+"/"+cur)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.Binaries, c.Parts, c.Runs) != fmt.Sprintf("[%s] [%s.part-0123abcd] [%s]", old, old, pulled.ID) {
		t.Errorf("removed %v %v %v", c.Binaries, c.Parts, c.Runs)
	}
	if len(c.Kept) != 2 || len(c.Left) != 2 {
		t.Errorf("kept %v, left %+v", c.Kept, c.Left)
	}
	var names []string
	entries, _ := os.ReadDir(d.Folder)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := fmt.Sprint([]string{cur, inUse, "corepin-notmine", "other-file", "runs"}); fmt.Sprint(names) != want {
		t.Errorf("left on the device %v, want %v", names, want)
	}
	if _, err := os.Stat(pulled.Dir); !os.IsNotExist(err) {
		t.Errorf("the pulled run is still there: %v", err)
	}
	for _, j := range []*Job{kept, running} {
		if _, err := os.Stat(j.Dir); err != nil {
			t.Errorf("run %s: %v", j.ID, err)
		}
	}
}

// TestJobEnv starts corepin with words added to its environment, quoted
// for the device's shell.
func TestJobEnv(t *testing.T) {
	d, _ := localDevice(t)
	j := d.NewJob(time.Now())
	j.Env = []string{`COREPIN_DEVICE={"on":"adb:R5 8","model":"it's $HOME"}`}
	if err := j.Start(context.Background(), "sh", []string{"-c", `printf %s "$COREPIN_DEVICE"`}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := j.Follow(context.Background(), &out, io.Discard); err != nil || out.String() != `{"on":"adb:R5 8","model":"it's $HOME"}` {
		t.Errorf("the job's environment: %q, %v", out.String(), err)
	}
	j = d.NewJob(time.Now())
	j.Env = []string{"A B=1"}
	if err := j.Start(context.Background(), "sh", []string{"-c", "true"}); err == nil {
		t.Error("a bad variable name was passed on")
	}
}

// TestSameDevice: one device reached through two targets (USB and IP)
// is noticed by the serial it reports; two devices are not one.
func TestSameDevice(t *testing.T) {
	h := &Host{}
	dev := func(spec, key string) *Device {
		tg, _ := Open(spec, Options{})
		return &Device{Target: tg, Identity: Identity{On: spec, key: key}}
	}
	if h.sameDevice(dev("adb:R58M1", "R58M1")) != "" || h.sameDevice(dev("adb:R58M2", "R58M2")) != "" || h.sameDevice(dev("adb:x", "")) != "" {
		t.Error("two devices taken for one")
	}
	if got := h.sameDevice(dev("adb:192.168.1.20:5555", "R58M1")); got != "adb:R58M1" {
		t.Errorf("the same phone over IP: %q", got)
	}
	// As the probe makes the keys: an Android device and a HarmonyOS one
	// whose serials the specs gave (P1) are two devices, not one.
	h = &Host{}
	for _, c := range []struct{ spec, probe string }{
		{"adb:P1", "machine=aarch64\nkernel=Linux\nsdk=34\nrelease=14\nserialno=\n"},
		{"hdc:P1", "machine=aarch64\nkernel=Linux\nohos=12\nohos_sn=\n"},
	} {
		tg, _ := Open(c.spec, Options{})
		p := parseProbe(c.probe)
		pl, err := p.platform(tg.Kind())
		if err != nil {
			t.Fatal(err)
		}
		if got := h.sameDevice(&Device{Target: tg, Identity: p.identity(tg, pl)}); got != "" {
			t.Errorf("%s is taken for %s", c.spec, got)
		}
	}
}
