package remote

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A Job is one corepin command run on a device, detached from the link
// that started it: it runs in its own session (setsid where the device
// has it) with SIGHUP ignored, with its
// output in files and its exit status written when it ends, so that a
// broken link or a closed laptop does not stop it. Its folder on the
// device holds:
//
//	cmdline   the corepin command line, one word a line
//	session   the job's session (and process group) ID: the wrapper shell's PID
//	pid       corepin's PID, the one Ctrl-C is sent to
//	stdout, stderr
//	status    corepin's exit status, once it ended
//	work/     the working folder; out/ the results; in/ pushed inputs
type Job struct {
	Device *Device
	ID     string
	Dir    string
	// Abandon, once closed after an interrupt, stops Follow from waiting
	// for the job to end (a second Ctrl-C); the job ends on its own.
	Abandon <-chan struct{}
	// Env is added to corepin's environment when Start starts it
	// (NAME=VALUE words).
	Env []string
	// results are the out/ entries the last poll saw once the job ended.
	results []string
}

// followTiming is how a job's follower times its questions; a zero field
// is defaultFollow's.
type followTiming struct {
	// pollEvery is how often the host asks for new output: often enough
	// for a progress bar, rarely enough to cost the device little (each
	// time a shell and a few small processes run there). After a minute
	// it asks once a second.
	pollEvery time.Duration
	// lostAfter is how long the device may fail to answer before the host
	// gives up following (the job goes on).
	lostAfter time.Duration
	// stopWithin is how long an interrupted job has to end.
	stopWithin time.Duration
}

var defaultFollow = followTiming{pollEvery: 400 * time.Millisecond, lostAfter: 20 * time.Second, stopWithin: 2 * time.Minute}

// or is t with its zero fields taken from d.
func (t followTiming) or(d followTiming) followTiming {
	for _, f := range []struct{ v, d *time.Duration }{{&t.pollEvery, &d.pollEvery}, {&t.lostAfter, &d.lostAfter}, {&t.stopWithin, &d.stopWithin}} {
		if *f.v == 0 {
			*f.v = *f.d
		}
	}
	return t
}

// ErrAbandoned says the host stopped waiting for an interrupted job.
var ErrAbandoned = errors.New("stopped waiting for the interrupted run")

// NewJob names a new job; nothing happens on the device yet.
func (d *Device) NewJob(now time.Time) *Job {
	var b [3]byte
	rand.Read(b[:])
	id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
	return &Job{Device: d, ID: id, Dir: d.runs() + "/" + id}
}

// Job is an existing job of the device, by ID.
func (d *Device) Job(id string) (*Job, error) {
	if id == "" || strings.ContainsAny(id, "/") || safePath(id) != nil || strings.HasPrefix(id, ".") {
		return nil, fmt.Errorf("run %q: a run ID is what corepin --on %s status lists", id, d.Target)
	}
	return &Job{Device: d, ID: id, Dir: d.runs() + "/" + id}, nil
}

// run runs a short command on the device and fails on a non-zero status.
func (j *Job) run(ctx context.Context, what, command string, stdout io.Writer) error {
	return runChecked(ctx, j.Device.Target, what, command, stdout)
}

// PushInput copies a local file into the job's in/ folder as rel, and
// returns its device path.
func (j *Job) PushInput(ctx context.Context, local, rel string) (string, error) {
	rel = filepath.ToSlash(filepath.Clean(rel))
	if strings.HasPrefix(rel, "../") || strings.HasPrefix(rel, "/") {
		return "", fmt.Errorf("pushing %s: %s is outside the suite's folder", local, rel)
	}
	dst := j.Dir + "/in/" + rel
	if err := safePath(dst); err != nil {
		return "", fmt.Errorf("pushing %s: %w", local, err)
	}
	parent := dst[:strings.LastIndex(dst, "/")]
	if err := j.run(ctx, "making "+parent, "mkdir -p "+parent, nil); err != nil {
		return "", err
	}
	if err := j.Device.Target.Push(ctx, local, dst); err != nil {
		return "", err
	}
	// Pushed files keep their mode on ssh and adb; make commands runnable
	// on every client.
	if st, err := os.Stat(local); err == nil && st.Mode()&0o111 != 0 {
		if err := j.run(ctx, "chmod "+dst, "chmod 755 "+dst, nil); err != nil {
			return "", err
		}
	}
	return dst, nil
}

// wrapper is the job's own shell: it records the session, starts corepin
// with its output in files, and writes corepin's status when it ends.
// It ignores SIGHUP itself, as nohup would make it, because not every
// device has nohup (Debian's busybox has none); corepin, started with
// SIGHUP ignored, keeps ignoring it (see internal/interrupt).
const wrapper = `trap '' HUP
cd work || exit 1
echo $$ > ../session
"$@" > ../stdout 2> ../stderr < /dev/null &
echo $! > ../pid.part && mv ../pid.part ../pid
wait $!
echo $? > ../status.part && mv ../status.part ../status`

// startWait waits in the job's folder for the wrapper to write corepin's
// PID, and prints it. It stops early when the wrapper, once it has written
// its own PID to session, is gone without writing one; else it waits up to
// 60 s, for a device (or an emulated board) so slow that starting a shell
// takes seconds.
const startWait = "i=0; while [ ! -s pid ] && [ $i -lt 1200 ]; do " +
	"if [ -s session ] && ! kill -0 $(cat session) 2> /dev/null; then break; fi; " +
	"sleep 0.05; i=$((i+1)); done; cat pid"

// Start starts corepin (bin with args) on the device in the job's folder,
// detached from the link, and returns once it runs.
func (j *Job) Start(ctx context.Context, bin string, args []string) error {
	d := j.Dir
	words := append([]string{bin}, args...)
	env := ""
	for _, kv := range j.Env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !validEnvName(name) {
			return fmt.Errorf("starting corepin on %s: %q is not NAME=VALUE", j.Device.Target, kv)
		}
		env += name + "=" + Quote(value) + " "
	}
	cmd := "set -e; mkdir -p " + d + "/work " + d + "/out; cd " + d + "; " +
		"printf '%s\\n' " + QuoteAll(words) + " > cmdline; : > stdout; : > stderr; " +
		"S=; command -v setsid > /dev/null 2>&1 && S=setsid; " +
		"(" + env + "$S sh -c " + Quote(wrapper) + " corepin-job " + QuoteAll(words) + " > /dev/null 2>&1 < /dev/null &); " +
		startWait
	var out strings.Builder
	if err := j.run(ctx, "starting corepin", cmd, &out); err != nil {
		return err
	}
	if _, err := strconv.Atoi(strings.TrimSpace(out.String())); err != nil {
		return fmt.Errorf("starting corepin on %s: it did not start (no PID in %s/pid)", j.Device.Target, d)
	}
	return nil
}

// validEnvName says whether s can be a shell's variable name.
func validEnvName(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// Interrupt sends SIGINT to corepin on the device: it stops the benchmark
// in progress, restores, and writes what finished, as on a terminal.
func (j *Job) Interrupt(ctx context.Context) error {
	return j.run(ctx, "interrupting the run", "cd "+j.Dir+" && [ ! -e status ] && kill -INT $(cat pid) 2> /dev/null; true", nil)
}

// pollState is one answer of the device about a job.
type pollState struct {
	done   bool
	status int
	// dead: the job's wrapper shell is gone and wrote no status (the
	// device restarted, or someone killed the job).
	dead bool
}

// ErrNoStatus says a job ended without writing its status.
var ErrNoStatus = errors.New("corepin on the device ended without a status (killed, or the device restarted)")

// errGone says the job's folder is not on the device.
var errGone = errors.New("no such run on the device")

// poll copies the output written since the offsets and says whether the
// job ended. The device reports the files' sizes first and then sends
// exactly those bytes, so the offsets stay right whatever the link does
// to line ends.
func (j *Job) poll(ctx context.Context, offOut, offErr *int64, stdout, stderr io.Writer) (pollState, error) {
	o, e := *offOut, *offErr
	// The wrapper writes the status before it ends: whether it lives is
	// asked first, so that a status read after is never missed.
	cmd := fmt.Sprintf(`cd %s 2> /dev/null || { echo gone; exit 0; }; w=yes; kill -0 "$(cat session)" 2> /dev/null || w=no; s=$(cat status 2> /dev/null); `+
		`a=$(($(wc -c < stdout))); b=$(($(wc -c < stderr))); r=; [ -n "$s" ] && r=$(ls out 2> /dev/null | tr '\n' ,); echo "s=$s a=$a b=$b r=$r w=$w"; `+
		`tail -c +%d stdout | head -c $((a-%d)); tail -c +%d stderr | head -c $((b-%d))`, j.Dir, o+1, o, e+1, e)
	var out strings.Builder
	if err := j.run(ctx, "following the run", cmd, &out); err != nil {
		return pollState{}, err
	}
	text := out.String()
	head, body, _ := strings.Cut(text, "\n")
	if head == "gone" {
		return pollState{}, fmt.Errorf("run %s on %s: %w", j.ID, j.Device.Target, errGone)
	}
	var st pollState
	var a, b int64
	for _, f := range strings.Fields(head) {
		k, v, _ := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case k == "s" && v != "" && err == nil:
			st.done, st.status = true, int(n)
		case k == "a" && err == nil:
			a = n
		case k == "b" && err == nil:
			b = n
		case k == "r":
			j.results = strings.FieldsFunc(v, func(r rune) bool { return r == ',' })
		case k == "w":
			st.dead = v == "no"
		}
	}
	nOut, nErr := max(a-o, 0), max(b-e, 0)
	if int64(len(body)) != nOut+nErr {
		return pollState{}, fmt.Errorf("following the run on %s: %d bytes of output came, %d were sent: %w", j.Device.Target, len(body), nOut+nErr, ErrLost)
	}
	io.WriteString(stdout, body[:nOut])
	io.WriteString(stderr, body[nOut:])
	*offOut, *offErr = o+nOut, e+nErr
	return st, nil
}

// Follow copies the job's output as it comes until the job ends, and
// returns corepin's exit status there. When ctx ends (Ctrl-C on the host),
// the job is interrupted and followed until it has stopped. When the
// device has not answered for lostAfter (20 s), whether its client fails
// at once (a device unplugged) or hangs (a device that stopped
// responding), Follow returns an error wrapping ErrLost and the job goes
// on.
func (j *Job) Follow(ctx context.Context, stdout, stderr io.Writer) (int, error) {
	var offOut, offErr int64
	var stopBy time.Time
	done := ctx.Done()
	timing := j.Device.follow.or(defaultFollow)
	// Ask soon at first, for a short command, then every pollEvery.
	every := min(50*time.Millisecond, timing.pollEvery)
	started := time.Now()
	answered := started // the device's last answer
	var failed error    // the first failure since then, in the client's words
	for {
		// A question the device does not answer within lostAfter is cut
		// off then, not at the client's own timeout: a hanging device is
		// lost as a vanished one is, within lostAfter and a poll's wait
		// of its last answer, and a slow one has lostAfter to answer.
		pctx, cancel := context.WithTimeout(context.Background(), timing.lostAfter)
		st, err := j.poll(pctx, &offOut, &offErr, stdout, stderr)
		cancel()
		switch {
		case err == nil && st.done:
			return st.status, nil
		case err == nil && st.dead:
			return -1, fmt.Errorf("run %s on %s: %w", j.ID, j.Device.Target, ErrNoStatus)
		case errors.Is(err, errGone):
			return -1, err
		case err != nil && failed == nil:
			failed = err
		case err == nil:
			answered, failed = time.Now(), nil
		}
		if failed != nil && !time.Now().Before(answered.Add(timing.lostAfter)) {
			return -1, fmt.Errorf("%w (no answer for %v; run %s goes on there)", failed, timing.lostAfter, j.ID)
		}
		if !stopBy.IsZero() && time.Now().After(stopBy) {
			return -1, fmt.Errorf("run %s on %s did not stop within %v after the interrupt", j.ID, j.Device.Target, timing.stopWithin)
		}
		var abandon <-chan struct{}
		if done == nil {
			abandon = j.Abandon
		}
		select {
		case <-abandon:
			return -1, fmt.Errorf("run %s on %s: %w; it ends there on its own", j.ID, j.Device.Target, ErrAbandoned)
		case <-done:
			done = nil // once
			stopBy = time.Now().Add(timing.stopWithin)
			ictx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			if err := j.Interrupt(ictx); err != nil {
				fmt.Fprintf(stderr, "corepin: %v\n", err)
			}
			cancel()
		case <-time.After(every):
			every = min(2*every, timing.pollEvery)
			if time.Since(started) > time.Minute {
				every = max(every, time.Second)
			}
		}
	}
}

// Results lists what the job wrote under out/.
func (j *Job) Results(ctx context.Context) ([]string, error) {
	if j.results != nil {
		return j.results, nil
	}
	var out strings.Builder
	if err := j.run(ctx, "listing the results", "cd "+j.Dir+"/out && for f in *; do [ -d \"$f\" ] && echo \"$f\"; done; true", &out); err != nil {
		return nil, err
	}
	return strings.Fields(out.String()), nil
}

// Fetch pulls the folder out/NAME into localBase, under NAME or, when the
// host has one of that name, NAME-2, NAME-3…, and returns its local path.
func (j *Job) Fetch(ctx context.Context, name, localBase string) (string, error) {
	tmp, err := j.pull(ctx, name, localBase)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	// Several devices' runs may arrive at once under one name: the name is
	// taken under a lock, and a rename that finds it taken after all (by
	// another corepin) tries the next.
	fetchMu.Lock()
	defer fetchMu.Unlock()
	dst := filepath.Join(localBase, name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(dst); os.IsNotExist(err) {
			err := os.Rename(filepath.Join(tmp, name), dst)
			if err == nil {
				return dst, nil
			}
			if _, lerr := os.Lstat(dst); lerr != nil {
				return "", fmt.Errorf("pulling %s from %s: %w", name, j.Device.Target, err)
			}
		}
		dst = filepath.Join(localBase, fmt.Sprintf("%s-%d", name, i))
	}
}

var fetchMu sync.Mutex

// FetchInto pulls the file or folder out/NAME to into/NAME as the command
// would have written it here: a file replaces the one there, a folder's
// files go into the folder there, replacing those of the same names.
func (j *Job) FetchInto(ctx context.Context, name, into string) (string, error) {
	tmp, err := j.pull(ctx, name, into)
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	dst := filepath.Join(into, name)
	if err := moveInto(filepath.Join(tmp, name), dst); err != nil {
		return "", fmt.Errorf("pulling %s from %s: %w", name, j.Device.Target, err)
	}
	return dst, nil
}

// moveInto moves src to dst, merging folders and replacing files.
func moveInto(src, dst string) error {
	st, err := os.Lstat(src)
	if err != nil {
		return err
	}
	dt, err := os.Lstat(dst)
	if err != nil || !st.IsDir() || !dt.IsDir() {
		if err == nil && dt.IsDir() {
			return fmt.Errorf("%s is a folder", dst)
		}
		return os.Rename(src, dst)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := moveInto(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// pull copies out/NAME into a new temporary folder under localBase (on
// the same file system as its destination), and returns that folder.
func (j *Job) pull(ctx context.Context, name, localBase string) (string, error) {
	if err := os.MkdirAll(localBase, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(localBase, ".corepin-pull-")
	if err != nil {
		return "", err
	}
	if err := j.Device.Target.Pull(ctx, j.Dir+"/out/"+name, tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// Remove deletes the job's folder from the device.
func (j *Job) Remove(ctx context.Context) error { return j.Device.Target.Remove(ctx, j.Dir) }

// JobInfo is one job as the device holds it.
type JobInfo struct {
	ID      string
	Status  *int // corepin's exit status; nil while it runs or when it ended unrecorded
	Running bool
	// Pulled: its results were brought back and the run kept on the
	// device (--keep-remote); clean removes it.
	Pulled  bool
	PID     int
	Command []string
}

// State says in words where the job is.
func (i JobInfo) State() string {
	pulled := ""
	if i.Pulled {
		pulled = ", pulled"
	}
	switch {
	case i.Status != nil:
		return fmt.Sprintf("ended, exit %d%s", *i.Status, pulled)
	case i.Running:
		return fmt.Sprintf("running, pid %d", i.PID)
	}
	return "ended without a status (device restarted or corepin killed)" + pulled
}

// Jobs lists the device's jobs, oldest first.
func (d *Device) Jobs(ctx context.Context) ([]JobInfo, error) {
	cmd := `cd ` + d.runs() + ` 2> /dev/null || exit 0; for j in *; do [ -f "$j/cmdline" ] || continue; ` +
		`p=$(cat "$j/pid" 2> /dev/null); r=no; [ -n "$p" ] && [ ! -e "$j/status" ] && kill -0 "$p" 2> /dev/null && r=yes; ` +
		`u=no; [ -e "$j/pulled" ] && u=yes; ` +
		`printf 'job %s %s %s %s %s\n' "$j" "$(cat "$j/status" 2> /dev/null || echo -)" "$r" "${p:--}" "$u"; sed 's/^/arg /' "$j/cmdline"; done`
	var out strings.Builder
	if err := runChecked(ctx, d.Target, "listing runs", cmd, &out); err != nil {
		return nil, err
	}
	return parseJobs(out.String()), nil
}

func parseJobs(text string) []JobInfo {
	var jobs []JobInfo
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if arg, ok := strings.CutPrefix(line, "arg "); ok && len(jobs) > 0 {
			jobs[len(jobs)-1].Command = append(jobs[len(jobs)-1].Command, arg)
			continue
		}
		f := strings.Fields(line)
		if len(f) != 6 || f[0] != "job" {
			continue
		}
		info := JobInfo{ID: f[1], Running: f[3] == "yes", Pulled: f[5] == "yes"}
		if n, err := strconv.Atoi(f[2]); err == nil {
			info.Status = &n
		}
		info.PID, _ = strconv.Atoi(f[4])
		jobs = append(jobs, info)
	}
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	return jobs
}
