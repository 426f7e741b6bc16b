package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"

	"corepin.dev/corepin/remote"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/runner"
	"corepin.dev/corepin/suite"
)

// remoteUsage is the help of the global flags.
const remoteUsage = `On a device (these flags go before or after the command name):
  --on TARGET      ssh://[user@]host[:port], adb, adb:SERIAL, hdc or hdc:KEY;
                   again, or @FILE (a target a line), for several at once
                   (default: $COREPIN_ON)
  --keep-remote    leave the run's folder on the device
  --binary FILE    the corepin to push (a static build for the device)
  corepin --on TARGET status        the runs on the device
  corepin --on TARGET pull [RUN]    fetch a run (the newest), waiting while it runs
  $COREPIN_SSH_CONFIG names an ssh client configuration file (ssh -F).`

// deviceCommands read or change the machine they run on: with --on they
// run on the device.
var deviceCommands = []string{"run", "exec", "topo", "caps", "telemetry", "watch", "system", "experiment", "workload"}

// remoteFlags are the global flags that send a command to devices.
type remoteFlags struct {
	on     []string
	keep   bool
	binary string
	given  bool // --on was on the command line, not from $COREPIN_ON
}

// splitRemoteFlags takes the global flags out of args, up to a "--".
func splitRemoteFlags(args []string) (remoteFlags, []string, error) {
	var f remoteFlags
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(a, "=")
		switch name {
		case "--on", "--binary":
			if !hasValue {
				if i+1 == len(args) {
					return f, nil, usageError{Err: fmt.Errorf("%s needs a value", name)}
				}
				i++
				value = args[i]
			}
			if name == "--binary" {
				f.binary = value
				continue
			}
			targets, err := expandTargets(value)
			if err != nil {
				return f, nil, usageError{Err: err}
			}
			f.on, f.given = append(f.on, targets...), true
		case "--keep-remote":
			f.keep = true
		default:
			rest = append(rest, a)
		}
	}
	return f, rest, nil
}

// expandTargets reads @FILE: one target a line; # starts a comment.
func expandTargets(v string) ([]string, error) {
	file, ok := strings.CutPrefix(v, "@")
	if !ok {
		return []string{v}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--on @%s: %w", file, err)
	}
	var targets []string
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			targets = append(targets, line)
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("--on @%s: the file names no target", file)
	}
	return targets, nil
}

// runRemote runs the command line on devices when it says so (--on, or
// $COREPIN_ON for a command that runs on a device); handled is false when
// the command runs here. With signals, Ctrl-C and SIGTERM interrupt the
// runs on the devices.
func runRemote(ctx context.Context, stdout, stderr io.Writer, args []string, signals bool) (code int, handled bool) {
	f, rest, err := splitRemoteFlags(args)
	fail := func(err error) (int, bool) {
		fmt.Fprintf(stderr, "corepin: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintln(stderr, remoteUsage)
			return exitUsage, true
		}
		return exitFailure, true
	}
	if err != nil {
		return fail(err)
	}
	command := ""
	if len(rest) > 0 {
		command = rest[0]
	}
	onDevice := slices.Contains(deviceCommands, command) || command == "pull" || command == "status"
	if len(f.on) == 0 {
		if env := os.Getenv(remote.EnvSpec); env != "" && onDevice {
			if f.on, err = expandTargets(env); err != nil {
				return fail(err)
			}
		} else if f.keep || f.binary != "" || command == "pull" || command == "status" {
			return fail(usageError{Err: fmt.Errorf("--keep-remote, --binary, pull and status go with --on TARGET")})
		} else {
			return 0, false
		}
	}
	for _, a := range rest {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" { // the help is the same here
			if err := newRootCmd().Execute(ctx, os.Stdin, stdout, stderr, rest); err != nil {
				return fail(err)
			}
			return exitOK, true
		}
	}
	switch {
	case command == "":
		return fail(usageError{Err: fmt.Errorf("--on: which command? (for example corepin --on %s run --quick)", f.on[0])})
	case !onDevice:
		return fail(usageError{Err: fmt.Errorf("%s works on files of this machine; it takes no --on", command)})
	}
	var abandon chan struct{}
	if signals {
		// The first Ctrl-C interrupts the runs on the devices, which then
		// restore and write what finished; a second stops waiting for them.
		sigs := make(chan os.Signal, 2)
		signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sigs)
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		abandon = make(chan struct{})
		go func() {
			<-sigs
			fmt.Fprintln(stderr, "\ncorepin: interrupting the run on the device (Ctrl-C again to stop waiting for it)")
			cancel()
			<-sigs
			close(abandon)
		}()
	}
	h := &remote.Host{Options: remote.Options{SSHConfig: os.Getenv("COREPIN_SSH_CONFIG")}}
	if command != "pull" && command != "status" {
		exe, _ := os.Executable()
		h.Binaries = &remote.Binaries{Given: f.binary, Running: exe, Log: stderr}
	}
	switch command {
	case "status":
		if err := remoteStatus(ctx, h, f.on, stdout); err != nil {
			return fail(err)
		}
		return exitOK, true
	case "pull":
		return remoteEach(ctx, h, f, stdout, stderr, rest, abandon, func(ctx context.Context, spec string, req remote.Request) (remote.Outcome, error) {
			id := ""
			if len(req.Args) == 1 {
				id = req.Args[0]
			}
			return h.Pull(ctx, spec, id, req)
		})
	}
	return remoteEach(ctx, h, f, stdout, stderr, rest, abandon, h.Run)
}

// remoteEach runs the request built from args on every target at once,
// each with its own results folder, and returns the worst exit status.
func remoteEach(ctx context.Context, h *remote.Host, f remoteFlags, stdout, stderr io.Writer, args []string, abandon chan struct{},
	do func(context.Context, string, remote.Request) (remote.Outcome, error)) (int, bool) {
	req, err := deviceRequest(args)
	if err != nil {
		fmt.Fprintf(stderr, "corepin: %v\n", err)
		return exitUsage, true
	}
	req.KeepRemote = f.keep
	req.Abandon = abandon
	codes := make([]int, len(f.on))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, spec := range f.on {
		r := req
		r.Stdout, r.Stderr, r.Log = stdout, stderr, stderr
		var bar io.WriteCloser
		if len(f.on) > 1 {
			r.Stdout = &remote.Prefixed{W: stdout, Prefix: "[" + spec + "] ", Mu: &mu}
			r.Stderr = &remote.Prefixed{W: stderr, Prefix: "[" + spec + "] ", Mu: &mu}
			r.Log = r.Stderr
		} else if isTerminal(stderr) && args[0] == "run" {
			bar = runner.Relay(stderr) // the device's progress lines as a status line
			r.Stderr = bar
		}
		wg.Go(func() {
			o, err := do(ctx, spec, r)
			if bar != nil {
				bar.Close()
			}
			codes[i] = o.Status
			for _, p := range o.Pulled {
				if run, lerr := results.Load(p); lerr == nil {
					if err := writePage(p, run); err != nil {
						fmt.Fprintf(r.Log, "corepin: writing the HTML report of %s: %v\n", p, err)
					}
				}
				fmt.Fprintf(r.Log, "corepin: pulled %s\n", p)
			}
			if err != nil {
				fmt.Fprintf(r.Log, "corepin: %v\n", err)
				if codes[i] <= 0 {
					codes[i] = exitFailure
				}
			}
		})
	}
	wg.Wait()
	worst := 0
	for _, c := range codes {
		worst = max(worst, c)
	}
	return worst, true
}

// deviceRequest turns a command line into what the device runs, after
// checking it here against the command table: --out points into the job's
// folder (and its value is where the results come back to here), and the
// suite file of run is pushed with its inputs.
func deviceRequest(args []string) (remote.Request, error) {
	var req remote.Request
	if args[0] == "pull" {
		return pullRequest(args[1:])
	}
	root := newRootCmd()
	if err := root.Check(args); err != nil {
		return req, usageError{Err: err}
	}
	cmd, rest, err := root.Find(args)
	if err != nil {
		return req, err
	}
	if cmd.Run == nil {
		return req, usageError{Err: fmt.Errorf("%s: which command?", cmd.Path())}
	}
	out, outSet := "", false
	dev := slices.Clone(args[:len(args)-len(rest)]) // the command's words
	// outputFlags name files or folders the command writes: the device
	// writes them into the job's out/, and they come back here.
	outputFlags := []string{"out", "report", "thermal"}
	positional := 0
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" || cmd.Raw {
			dev = append(dev, rest[i:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			if cmd.StopAtArgs {
				dev = append(dev, rest[i:]...)
				break
			}
			positional++
			if cmd.Name() == "run" && positional == 1 {
				inputs, devPath, err := suiteInputs(a)
				if err != nil {
					return req, usageError{Err: err}
				}
				req.Inputs, a = inputs, devPath
			}
			dev = append(dev, a)
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := cmd.Flag(name)
		takesValue := !hasValue && f != nil && !isBool(f)
		if takesValue && i+1 < len(rest) {
			i++
			value = rest[i]
		}
		if name == "out" && cmd.Name() == "run" {
			out, outSet = value, true
			continue
		}
		if slices.Contains(outputFlags, name) && cmd.Name() != "run" {
			// A file or folder of its own: it comes back under its name.
			if req.Into == nil {
				req.Into = map[string]string{}
			}
			req.Into[filepath.Base(value)] = filepath.Dir(value)
			dev = append(dev, "--"+name, remote.JobDir+"/out/"+filepath.Base(value))
			continue
		}
		dev = append(dev, a)
		if takesValue {
			dev = append(dev, value)
		}
	}
	if cmd.Name() == "run" {
		if !outSet {
			out = "corepin-results"
		}
		req.Results = out
		dev = append(dev, "--out", remote.JobDir+"/out")
	}
	req.Args = dev
	return req, nil
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// pullRequest reads "pull [RUN] [--out DIR]".
func pullRequest(args []string) (remote.Request, error) {
	req := remote.Request{Results: "corepin-results"}
	for i := 0; i < len(args); i++ {
		name, value, hasValue := strings.Cut(args[i], "=")
		switch {
		case name == "--out" || name == "-out":
			if !hasValue {
				if i+1 == len(args) {
					return req, usageError{Err: fmt.Errorf("--out needs a folder")}
				}
				i++
				value = args[i]
			}
			req.Results = value
		case strings.HasPrefix(name, "-"):
			return req, usageError{Err: fmt.Errorf("pull takes [RUN] and --out DIR, not %s", args[i])}
		case req.Args == nil:
			req.Args = []string{args[i]} // the run's ID
		default:
			return req, usageError{Err: fmt.Errorf("pull takes one run ID")}
		}
	}
	return req, nil
}

// suiteInputs loads a suite here and lists the files to push with it,
// relative to its folder; devPath is the suite file on the device.
func suiteInputs(path string) ([]remote.Input, string, error) {
	s, err := suite.Load(path)
	if err != nil {
		return nil, "", err
	}
	base := filepath.Dir(s.Path)
	files, dirs := s.Inputs()
	var inputs []remote.Input
	rel := func(p string) (string, error) {
		r, err := filepath.Rel(base, p)
		if err != nil || r == ".." || strings.HasPrefix(r, "../") {
			return "", fmt.Errorf("%s names %s, outside the suite's folder: keep what a suite needs beside it to run it on a device", path, p)
		}
		return r, nil
	}
	for _, d := range dirs {
		r, err := rel(d)
		if err != nil {
			return nil, "", err
		}
		inputs = append(inputs, remote.Input{Local: d, Rel: r, Dir: true})
	}
	for _, f := range files {
		r, err := rel(f)
		if err != nil {
			return nil, "", err
		}
		inputs = append(inputs, remote.Input{Local: f, Rel: r})
	}
	r, _ := rel(s.Path)
	return inputs, remote.JobDir + "/in/" + filepath.ToSlash(r), nil
}

// remoteStatus prints the runs each device holds.
func remoteStatus(ctx context.Context, h *remote.Host, targets []string, w io.Writer) error {
	var errs []error
	for _, spec := range targets {
		d, jobs, err := h.Status(ctx, spec)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		fmt.Fprintf(w, "%s (%s, %s): %d runs\n", spec, d.Platform, d.Platform.System, len(jobs))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, j := range jobs {
			cmd := j.Command
			if len(cmd) > 0 {
				cmd = cmd[1:] // the binary's path
			}
			fmt.Fprintf(tw, "  %s\t%s\tcorepin %s\n", j.ID, j.State(), strings.Join(cmd, " "))
		}
		tw.Flush()
	}
	return errors.Join(errs...)
}
