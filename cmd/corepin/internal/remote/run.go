package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"corepin.dev/corepin/internal/atomicfile"
)

// JobDir in a Request's arguments stands for the job's folder on the
// device, which is named only when the job is made.
const JobDir = "{job}"

// Request is one corepin command to run on a device and what to bring
// back.
type Request struct {
	// Args is the corepin command line for the device; JobDir at the start
	// of a word is replaced by the job's folder. Results the device should
	// hand back go to JobDir/out.
	Args []string
	// Inputs are pushed to JobDir/in/<Rel> before corepin starts.
	Inputs []Input
	// Results is the host folder that the job's out/ entries are pulled
	// into when it ends; "" brings nothing back.
	Results string
	// Into names another host folder for some out/ entries, by name.
	Into map[string]string
	// KeepRemote leaves the job's folder on the device.
	KeepRemote bool
	// Stdout and Stderr get corepin's output on the device, as it comes,
	// with the device's results folder named as the host's.
	Stdout, Stderr io.Writer
	// Log gets corepin's own notes about the device (the binary, the job).
	Log io.Writer
	// Abandon, closed after ctx ended, stops waiting for the job to stop.
	Abandon <-chan struct{}
	// Env, given the device once it has said what it is, is added to
	// corepin's environment there (NAME=VALUE words).
	Env func(*Device) []string
}

// Input is a file pushed with a job.
type Input struct {
	Local string
	Rel   string // its path under JobDir/in
	Dir   bool   // an empty folder to make, not a file
}

// Outcome is what a job left.
type Outcome struct {
	Job    *Job
	Status int      // corepin's exit status on the device
	Pulled []string // host paths of the results brought back
}

// Host prepares and runs jobs on targets, several at once.
type Host struct {
	Options  Options
	Binaries *Binaries

	mu sync.Mutex
	// seen is the first target through which each device (its
	// identity's key) was reached, to notice one device reached twice.
	seen map[string]string
}

// Device opens a target, asks what it is, and installs corepin on it.
func (h *Host) Device(ctx context.Context, spec string, log io.Writer) (*Device, string, error) {
	t, err := Open(spec, h.Options)
	if err != nil {
		return nil, "", err
	}
	d, err := Connect(ctx, t)
	if err != nil {
		t.Close()
		return nil, "", err
	}
	d.follow.lostAfter = h.Options.LostAfter
	if other := h.sameDevice(d); other != "" && log != nil {
		fmt.Fprintf(log, "corepin: warning: %s and %s are one device (%s): what runs on one disturbs the other\n", other, spec, d.Identity.Label())
	}
	if h.Binaries == nil {
		return d, "", nil
	}
	local, err := h.Binaries.For(ctx, d.Platform)
	if err != nil {
		t.Close()
		return nil, "", err
	}
	bin, err := d.Install(ctx, local, log)
	if err != nil {
		t.Close()
		return nil, "", err
	}
	return d, bin, nil
}

// sameDevice is the target through which this invocation reached d
// before, "" when it did not (or the device gave nothing to tell it by).
func (h *Host) sameDevice(d *Device) string {
	key := d.Identity.key
	if key == "" {
		return ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.seen == nil {
		h.seen = map[string]string{}
	}
	if other, ok := h.seen[key]; ok && other != d.Target.String() {
		return other
	}
	h.seen[key] = d.Target.String()
	return ""
}

// Run runs req on the target spec: it installs corepin, pushes the
// inputs, starts the job detached, follows its output until it ends (an
// ended ctx interrupts it), pulls its results and removes its folder.
// When the link breaks the job goes on; the error wraps ErrLost and
// Outcome.Job names it, for a later Pull.
func (h *Host) Run(ctx context.Context, spec string, req Request) (Outcome, error) {
	log := req.Log
	if log == nil {
		log = io.Discard
	}
	d, bin, err := h.Device(ctx, spec, log)
	if err != nil {
		return Outcome{}, err
	}
	defer d.Target.Close()
	j := d.NewJob(time.Now())
	for _, in := range req.Inputs {
		if in.Dir {
			err = j.run(ctx, "making "+in.Rel, "mkdir -p "+Quote(j.Dir+"/in/"+in.Rel), nil)
		} else {
			_, err = j.PushInput(ctx, in.Local, in.Rel)
		}
		if err != nil {
			j.Remove(context.Background())
			return Outcome{}, err
		}
	}
	args := make([]string, len(req.Args))
	for i, a := range req.Args {
		if rest, ok := strings.CutPrefix(a, JobDir); ok {
			a = j.Dir + rest
		}
		args[i] = a
	}
	if req.Env != nil {
		j.Env = req.Env(d)
	}
	if err := j.Start(ctx, bin, args); err != nil {
		return Outcome{Job: j}, err
	}
	fmt.Fprintf(log, "corepin: run %s started on %s\n", j.ID, d.Target)
	return h.finish(ctx, j, req)
}

// finish follows a started or ended job, then brings its results back.
// The output names them as the host has them: a results folder's name
// here is known only once it has been pulled (one of that name may be
// here already), so the lines from the first that names one are held
// until then; when it does not come back, standard output leaves out the
// lines that name it (a script reads the last line as the folder).
func (h *Host) finish(ctx context.Context, j *Job, req Request) (Outcome, error) {
	o := Outcome{Job: j, Status: -1}
	j.Abandon = req.Abandon
	var known []string // the device's paths and the host's, known from the start
	for name, into := range req.Into {
		known = append(known, j.Dir+"/out/"+name, filepath.Join(into, name))
	}
	hold := ""
	if req.Results != "" {
		hold = j.Dir + "/out"
	}
	stdout, stderr := rename(req.Stdout, known, hold, true), rename(req.Stderr, known, hold, false)
	var arrived []string // the device's paths and the host's of what came back
	defer func() {
		stdout.release(arrived)
		stderr.release(arrived)
	}()
	status, err := j.Follow(ctx, stdout, stderr)
	unfinished := errors.Is(err, ErrNoStatus)
	switch {
	case errors.Is(err, ErrLost):
		return o, fmt.Errorf("%w\nfetch it when the device is back: corepin --on %s pull %s", err, j.Device.Target, j.ID)
	case errors.Is(err, ErrAbandoned):
		return o, fmt.Errorf("%w\nfetch what it wrote later: corepin --on %s pull %s", err, j.Device.Target, j.ID)
	case unfinished:
		// Bring back what it wrote, and keep the device's copy.
		req.KeepRemote = true
	case err != nil:
		return o, err
	}
	o.Status = status
	// The job has ended: what follows must happen even after a Ctrl-C.
	after := context.WithoutCancel(ctx)
	if req.Results != "" || len(req.Into) > 0 {
		names, err := j.Results(after)
		if err != nil {
			return o, err
		}
		for _, name := range names {
			var p string
			var err error
			if into, ok := req.Into[name]; ok {
				p, err = j.FetchInto(after, name, into)
			} else if req.Results != "" {
				p, err = j.Fetch(after, name, req.Results)
			} else {
				continue
			}
			if err != nil {
				return o, fmt.Errorf("%w\nthe results stay on the device: corepin --on %s pull %s", err, j.Device.Target, j.ID)
			}
			o.Pulled = append(o.Pulled, p)
			arrived = append(arrived, j.Dir+"/out/"+name, p)
		}
	}
	if !req.KeepRemote {
		if err := j.Remove(after); err != nil {
			return o, err
		}
	} else if len(o.Pulled) > 0 {
		// corepin --on T clean removes a kept run once it has been pulled.
		if err := j.run(after, "marking the run pulled", ": > "+j.Dir+"/pulled", nil); err != nil {
			return o, err
		}
	}
	if unfinished {
		return o, fmt.Errorf("%w; what it wrote is here, and stays on the device in %s", err, j.Dir)
	}
	return o, nil
}

// Pull fetches a job of the device into req.Results: the newest when id
// is "", following it first while it still runs.
func (h *Host) Pull(ctx context.Context, spec, id string, req Request) (Outcome, error) {
	d, _, err := (&Host{Options: h.Options}).Device(ctx, spec, nil)
	if err != nil {
		return Outcome{}, err
	}
	defer d.Target.Close()
	if id == "" {
		jobs, err := d.Jobs(ctx)
		if err != nil {
			return Outcome{}, err
		}
		if len(jobs) == 0 {
			return Outcome{}, fmt.Errorf("%s holds no corepin runs", d.Target)
		}
		id = jobs[len(jobs)-1].ID
	}
	j, err := d.Job(id)
	if err != nil {
		return Outcome{}, err
	}
	return h.finish(ctx, j, req)
}

// Status lists the jobs of a device.
func (h *Host) Status(ctx context.Context, spec string) (*Device, []JobInfo, error) {
	d, _, err := (&Host{Options: h.Options}).Device(ctx, spec, nil)
	if err != nil {
		return nil, nil, err
	}
	defer d.Target.Close()
	jobs, err := d.Jobs(ctx)
	return d, jobs, err
}

// renamer rewrites, line by line, the device's paths of a job's results
// into the host's, so that the paths corepin prints are the ones to open
// here. Lines are held from the first that names a path under hold, whose
// name here comes only with the pull, until release.
type renamer struct {
	w     io.Writer
	known []string // pairs known from the start
	r     *strings.Replacer
	hold  string
	held  bool
	buf   []byte // a last line without its newline; while held, all since the first line that named hold
	// dropMissing leaves out, at release, the lines that still name a
	// path under hold: results that did not come back.
	dropMissing bool
}

// rename replaces each pairs[2i] by pairs[2i+1].
func rename(w io.Writer, pairs []string, hold string, dropMissing bool) *renamer {
	if w == nil {
		w = io.Discard
	}
	return &renamer{w: w, known: pairs, r: replacer(pairs), hold: hold, dropMissing: dropMissing}
}

// replacer replaces the longest paths first: "out/r1x" is not "out/r1"
// and an x.
func replacer(pairs []string) *strings.Replacer {
	type pair struct{ from, to string }
	var ps []pair
	for i := 0; i+1 < len(pairs); i += 2 {
		ps = append(ps, pair{pairs[i], pairs[i+1]})
	}
	sort.SliceStable(ps, func(a, b int) bool { return len(ps[a].from) > len(ps[b].from) })
	var flat []string
	for _, p := range ps {
		flat = append(flat, p.from, p.to)
	}
	return strings.NewReplacer(flat...)
}

func (r *renamer) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	if r.held {
		return len(p), nil
	}
	i := bytes.LastIndexByte(r.buf, '\n')
	if i < 0 {
		return len(p), nil
	}
	lines := r.r.Replace(string(r.buf[:i+1]))
	rest := r.buf[i+1:]
	if k := strings.Index(lines, r.hold); r.hold != "" && k >= 0 {
		start := strings.LastIndexByte(lines[:k], '\n') + 1
		io.WriteString(r.w, lines[:start])
		r.held = true
		r.buf = append([]byte(lines[start:]), rest...)
		return len(p), nil
	}
	io.WriteString(r.w, lines)
	r.buf = append(r.buf[:0], rest...)
	return len(p), nil
}

// release writes what is held, with the paths of what arrived (pairs
// of the device's path and the host's) as the host has them, and ends the
// output: a last line without a newline is written too.
func (r *renamer) release(arrived []string) {
	if len(r.buf) == 0 {
		return
	}
	text := replacer(append(slices.Clone(r.known), arrived...)).Replace(string(r.buf))
	r.buf, r.held = nil, false
	for line := range strings.Lines(text) {
		if r.dropMissing && r.hold != "" && strings.Contains(line, r.hold) {
			continue
		}
		io.WriteString(r.w, line)
	}
}

// Prefixed writes each line to w with a prefix, one whole line at a time,
// so that several devices' output can share a terminal.
type Prefixed struct {
	W      io.Writer
	Prefix string
	Mu     *sync.Mutex
	buf    []byte
}

func (p *Prefixed) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexByte(p.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		p.Mu.Lock()
		fmt.Fprintf(p.W, "%s%s\n", p.Prefix, p.buf[:i])
		p.Mu.Unlock()
		p.buf = p.buf[i+1:]
	}
}

// Output makes path, a file or folder (what) that the command writes
// here, one the device writes into the job's out/ and that comes back to
// path; it returns the path the device writes. path is checked first, as
// the command checks it here (atomicfile.CheckWritable, CheckFolder), so
// that what the device measures has somewhere to go. Two of one name
// cannot both come back.
func (r *Request) Output(path, what string) (string, error) {
	check := atomicfile.CheckWritable
	if what == "folder" {
		check = atomicfile.CheckFolder
	}
	if err := check(path); err != nil {
		return "", err
	}
	base := filepath.Base(path)
	if _, twice := r.Into[base]; twice {
		return "", fmt.Errorf("another %s named %s comes back from the device; give them different names", what, base)
	}
	if r.Into == nil {
		r.Into = map[string]string{}
	}
	r.Into[base] = filepath.Dir(path)
	return JobDir + "/out/" + base, nil
}

// Push adds files and folders under the local folder dir to the inputs,
// each at its place relative to dir, and returns the device's path of
// main, one of them. A path outside dir cannot be pushed so: the error
// names it.
func (r *Request) Push(dir, main string, dirs, files []string) (string, error) {
	rel := func(p string) (string, error) {
		rp, err := filepath.Rel(dir, p)
		if err != nil || rp == ".." || strings.HasPrefix(rp, "../") {
			return "", fmt.Errorf("%s is outside %s", p, dir)
		}
		return rp, nil
	}
	for i, list := range [][]string{dirs, files} {
		for _, p := range list {
			rp, err := rel(p)
			if err != nil {
				return "", err
			}
			r.Inputs = append(r.Inputs, Input{Local: p, Rel: rp, Dir: i == 0})
		}
	}
	rp, err := rel(main)
	if err != nil {
		return "", err
	}
	return JobDir + "/in/" + filepath.ToSlash(rp), nil
}
