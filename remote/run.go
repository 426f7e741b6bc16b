package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"
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

// Host prepares and runs jobs on targets.
type Host struct {
	Options  Options
	Binaries *Binaries
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
	if err := j.Start(ctx, bin, args); err != nil {
		return Outcome{Job: j}, err
	}
	fmt.Fprintf(log, "corepin: run %s started on %s\n", j.ID, d.Target)
	return h.finish(ctx, j, req)
}

// finish follows a started or ended job, then brings its results back.
func (h *Host) finish(ctx context.Context, j *Job, req Request) (Outcome, error) {
	o := Outcome{Job: j, Status: -1}
	j.Abandon = req.Abandon
	var pairs []string // the device's paths and the host's, longest first
	for name, into := range req.Into {
		pairs = append(pairs, j.Dir+"/out/"+name, filepath.Join(into, name))
	}
	if req.Results != "" {
		pairs = append(pairs, j.Dir+"/out", req.Results)
	}
	stdout, stderr := rename(req.Stdout, pairs), rename(req.Stderr, pairs)
	status, err := j.Follow(ctx, stdout, stderr)
	stdout.Close()
	stderr.Close()
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
			base := req.Results
			if into, ok := req.Into[name]; ok {
				base = into
			}
			if base == "" {
				continue
			}
			p, err := j.Fetch(after, name, base)
			if err != nil {
				return o, fmt.Errorf("%w\nthe results stay on the device: corepin --on %s pull %s", err, j.Device.Target, j.ID)
			}
			o.Pulled = append(o.Pulled, p)
		}
	}
	if !req.KeepRemote {
		if err := j.Remove(after); err != nil {
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

// renamer rewrites, line by line, the device's results paths into the
// host's, so that the paths corepin prints are the ones to open here.
type renamer struct {
	w   io.Writer
	r   *strings.Replacer
	buf []byte
}

// rename replaces each pairs[2i] by pairs[2i+1].
func rename(w io.Writer, pairs []string) *renamer {
	if w == nil {
		w = io.Discard
	}
	return &renamer{w: w, r: strings.NewReplacer(pairs...)}
}

func (r *renamer) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	if i := bytes.LastIndexByte(r.buf, '\n'); i >= 0 {
		r.emit(r.buf[:i+1])
		r.buf = append(r.buf[:0], r.buf[i+1:]...)
	}
	return len(p), nil
}

func (r *renamer) emit(b []byte) {
	io.WriteString(r.w, r.r.Replace(string(b)))
}

// Close writes a last line that had no newline.
func (r *renamer) Close() error {
	if len(r.buf) > 0 {
		r.emit(r.buf)
		r.buf = nil
	}
	return nil
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
