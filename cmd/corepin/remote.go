package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/remote"
	"corepin.dev/corepin/cmd/corepin/internal/runner"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/results"
)

// remoteUsage is the help of the flags that send a command to devices.
const remoteUsage = `On a device: corepin --on TARGET COMMAND runs a command that reads or
changes the machine there and brings back the files it writes (a command
of this machine's files takes no --on); status, pull and clean work on the
devices --on names. $COREPIN_SSH_CONFIG names an ssh client configuration
file (ssh -F).`

// remoteFlags are the flags of every command that send it to devices.
type remoteFlags struct {
	on     targetList
	keep   bool
	binary string
	lost   time.Duration
}

// register makes the flags persistent flags of the root, and --on a
// property of every command: the root's Intercept runs a command of the
// device there.
func (f *remoteFlags) register(root *cli.Command) {
	pf := root.PersistentFlags()
	pf.Var(&f.on, "on", "run on this `TARGET`: ssh://[user@]host[:port], adb, adb:SERIAL, hdc or hdc:KEY; again, or @FILE (a target a line), for several at once (default: $COREPIN_ON)")
	pf.BoolVar(&f.keep, "keep-remote", false, "leave the run's folder on the device")
	pf.StringVar(&f.binary, "binary", "", "the corepin `file` to push (built with CGO_ENABLED=0 for the device; checked against it before it is pushed)")
	pf.DurationVar(&f.lost, "lost-after", 20*time.Second, "stop following a run on a device that has not answered for this `long` (the run goes on there; pull fetches it)")
	root.Intercept = f.intercept
}

// targetList is --on's value: targets, each given or read from @FILE.
type targetList []string

func (l *targetList) String() string { return strings.Join(*l, ",") }

func (l *targetList) Set(v string) error {
	targets, err := remote.Targets(v)
	*l = append(*l, targets...)
	return err
}

// intercept runs a command of the device on the devices when --on (or
// $COREPIN_ON) names them, and refuses --on for a command of this
// machine's files; a command about the devices (status, pull, clean) runs
// here, on them.
func (f *remoteFlags) intercept(in *cli.Invocation) (bool, error) {
	use := in.Cmd.DeviceUse()
	if env := os.Getenv(remote.EnvSpec); len(f.on) == 0 && env != "" && use != cli.Here {
		targets, err := remote.Targets(env)
		if err != nil {
			return true, usageError{Err: err}
		}
		f.on = targets
	}
	switch {
	case len(f.on) == 0 && (f.keep || f.binary != "" || in.Changed("lost-after") || use == cli.AboutDevice):
		return true, usageError{Err: fmt.Errorf("--keep-remote, --binary, --lost-after, pull, status and clean go with --on TARGET")}
	case f.lost <= 0:
		return true, usageError{Err: fmt.Errorf("--lost-after %v: give a positive duration", f.lost)}
	case len(f.on) == 0:
		return false, nil
	case in.Cmd.Parent() == nil:
		return true, usageError{Err: fmt.Errorf("--on: which command? (for example corepin --on %s run --quick)", f.on[0])}
	case use == cli.Here:
		return true, usageError{Err: fmt.Errorf("%s works on files of this machine; it takes no --on", in.Cmd.Name())}
	}
	if err := remote.Check(f.on); err != nil { // a wrong spec is a wrong command line: exit 2, as for any
		return true, usageError{Err: err}
	}
	if use == cli.AboutDevice {
		return false, nil
	}
	req, err := deviceRequest(in)
	if err != nil {
		return true, err
	}
	h := f.host(in, true)
	return true, f.each(in, req, h.Run)
}

// host is what reaches the devices; with binaries, it installs corepin
// on them.
func (f *remoteFlags) host(in *cli.Invocation, binaries bool) *remote.Host {
	h := &remote.Host{Options: remote.Options{SSHConfig: os.Getenv("COREPIN_SSH_CONFIG"), LostAfter: f.lost}}
	if binaries {
		exe, _ := os.Executable()
		h.Binaries = &remote.Binaries{Given: f.binary, Running: exe, Log: in.Stderr}
	}
	return h
}

// each runs req on every target at once, each with its own results
// folder (see remote.Fleet), and ends with the worst exit status, or
// 128+N when a signal interrupted it.
func (f *remoteFlags) each(in *cli.Invocation, req remote.Request, do func(context.Context, string, remote.Request) (remote.Outcome, error)) error {
	req.KeepRemote = f.keep
	fleet := remote.Fleet{Specs: f.on, Stdout: in.Stdout, Stderr: in.Stderr, Pulled: func(p string, log io.Writer) {
		if run, err := loadRun(p); err == nil {
			if err := writePage(p, run); err != nil {
				fmt.Fprintf(log, "corepin: writing the HTML report of %s: %v\n", p, err)
			}
			if err := writeTrace(p, run); err != nil {
				fmt.Fprintf(log, "corepin: writing the trace of %s: %v\n", p, err)
			}
		}
	}}
	if c := interrupt.From(in.Ctx); c != nil {
		signals, stop := c.Forward()
		defer stop()
		fleet.Signals = signals
	}
	if in.Cmd.Name() == "run" { // a result records it; other commands' programs need not see it
		req.Env = remote.IdentityEnv(results.DeviceEnv) // the device, for its results' host block and folder name
		if isTerminal(in.Stderr) {
			fleet.Status = runner.Relay // the device's progress lines as a status line
		}
	}
	worst := fleet.Run(in.Ctx, req, do)
	// A signal here ends the command as it ends one run here: 128+N of
	// the signal that came (SIGHUP 129, SIGTERM 143), whatever the
	// device's corepin, which the host stops with SIGINT, exited with.
	if code := interrupt.Code(in.Ctx); code != 0 {
		return &exitError{code: code}
	}
	if worst != 0 {
		return &exitError{code: worst}
	}
	return nil
}

// deviceRequest turns a parsed command line into what the device runs:
// each flag that names an output (cli.Command.Output) points into the
// job's folder, checked here first as the command checks it, and its
// value is where it comes back to here; run's suite file is pushed with
// its inputs.
func deviceRequest(in *cli.Invocation) (remote.Request, error) {
	cmd := in.Cmd
	req := remote.Request{}
	if cmd.Run == nil {
		return req, usageError{Err: fmt.Errorf("%s: which command?", cmd.Path())}
	}
	var errs []error
	positional := 0
	words := in.Words(func(a cli.Arg) []string {
		output := cmd.OutputOf(a.Flag)
		switch {
		case a.Flag == "" && cmd.Name() == "run" && positional == 0:
			positional++
			p, err := suiteInputs(&req, a.Value)
			if err != nil {
				errs = append(errs, err)
			}
			return []string{p}
		case output == cli.NoOutput || a.Value == "" || a.Value == "-": // "-": standard output, as here
			return a.Words()
		case output == cli.Results:
			req.Results = a.Value
			return nil
		}
		what := "file"
		if output == cli.Folder {
			what = "folder"
		}
		p, err := req.Output(a.Value, what)
		if err != nil {
			errs = append(errs, usageError{Err: fmt.Errorf("--%s %s: %w", a.Flag, a.Value, err)})
		}
		return []string{"--" + a.Flag, p}
	})
	if len(errs) > 0 {
		return req, errs[0] // the first, with its exit status
	}
	if f := cmd.Flag("out"); f != nil && cmd.OutputOf("out") == cli.Results {
		if req.Results == "" {
			req.Results = f.DefValue
		}
		words = append(words, "--out", remote.JobDir+"/out")
	}
	req.Args = words
	return req, nil
}

// suiteInputs loads a suite here and adds the files to push with it,
// relative to its folder, to req; it returns the suite's path on the
// device.
func suiteInputs(req *remote.Request, path string) (string, error) {
	s, err := suite.Load(path)
	if err != nil {
		return "", suiteError(err) // the exit of run's own check: 1 for its content, 2 for an unreadable file
	}
	files, dirs := s.Inputs()
	p, err := req.Push(filepath.Dir(s.Path), s.Path, dirs, files)
	if err != nil {
		return "", usageError{Err: fmt.Errorf("%s: %w, outside the suite's folder: keep what a suite needs beside it to run it on a device", path, err)}
	}
	return p, nil
}

// aboutDeviceCmds are the commands of --on itself.
func (f *remoteFlags) aboutDeviceCmds() []*cli.Command {
	status := &cli.Command{
		Use: "status", Short: "List the runs on the devices --on names", Device: cli.AboutDevice, Args: cli.NoArgs,
		Example: "  corepin --on adb status",
		Run: func(in *cli.Invocation, _ []string) error {
			return f.host(in, false).WriteStatus(in.Ctx, in.Stdout, f.on)
		},
	}
	var out string
	pull := &cli.Command{
		Use: "pull [RUN]", Short: "Fetch a run (the newest) from the device --on names, waiting while it runs", Device: cli.AboutDevice,
		Args:    cli.MaxArgs(1, "pull takes one run ID"),
		Example: "  corepin --on ssh://pi@board pull\n  corepin --on adb pull 20261201-080000-a1b2c3 --out lab",
		Run: func(in *cli.Invocation, args []string) error {
			h := f.host(in, false)
			return f.each(in, remote.Request{Results: out}, func(ctx context.Context, spec string, req remote.Request) (remote.Outcome, error) {
				return h.Pull(ctx, spec, strings.Join(args, ""), req)
			})
		},
	}
	pull.Flags().StringVar(&out, "out", "corepin-results", "the run comes back under this `folder`")
	clean := &cli.Command{
		Use: "clean", Short: "Remove old binaries, partial copies and pulled runs from the devices --on names", Device: cli.AboutDevice, Args: cli.NoArgs,
		Example: "  corepin --on adb --on hdc clean",
		Run: func(in *cli.Invocation, _ []string) error {
			return f.host(in, true).CleanAll(in.Ctx, in.Stdout, f.on)
		},
	}
	return []*cli.Command{status, pull, clean}
}
