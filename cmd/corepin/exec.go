package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/guard"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/account"
	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/interrupt"
	"corepin.dev/corepin/internal/judge"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/internal/watch"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// began is when corepin's program began: the start of an exec report's
// own process where the kernel's clock of it may not be read (see
// launch.Own).
var began = time.Now()

func newExecCmd(g *guard.Guard) *cli.Command {
	var (
		tf         targetFlags
		sf         schedFlags
		watchEvery time.Duration
		timeout    time.Duration
		reportFile string
		quiet      bool
		launcher   bool
		replace    bool
		observe    bool
		tune       = tuneFlags{guard: g}
		tel        execTelemetry
	)
	cmd := &cli.Command{
		Use:    "exec [flags] [--] COMMAND [ARG...]",
		Device: cli.OnDevice,
		Short:  "Run a command on the chosen core with verified scheduling",
		Long: `Run a command on the chosen core. corepin sets the affinity and scheduling
attributes on one of its own threads, reads them back, and starts the
command from that thread, which the command copies; the thread is then put
back. With --launcher (and always for --qos, which fork does not copy),
corepin instead re-executes itself as a launcher that sets up its own thread
and then becomes the command. While the command runs, a watcher follows its
threads (and its children's), puts back any that drift, and measures how
much of their time they spent on the target.

With --replace, corepin sets up and reads back its own main thread, writes
the report if asked, and then becomes the command with execve, as taskset
and chrt do: the command keeps corepin's process ID and starts soonest, but
nothing watches it, keeps it on the target or reports how it ended, and
corepin's exit status is the command's own.

Standard streams pass through, SIGINT, SIGTERM and SIGHUP are forwarded,
and corepin exits with the command's status (128+N for a signal, 125 when
the acceptance rule refused, 124 when it stopped holding during the run
because every target CPU went offline, 126 when the command is not
executable, 127 when it is not found).`,
		Example: `  corepin exec -- ./bench
  corepin exec --cpu 3 --ladder spec --realtime -- ./bench --size large
  corepin exec --cpus 4-7 --mode soft --report sched.json -- make -j4
  corepin exec --nice -10 --uclamp 1024:1024 --accept 'exact+uclamp-min>=1024' -- ./bench
  corepin exec --replace -q --cpu 1 -- ./bench
  corepin exec --cpu 3 --report r.json --telemetry cpus.csv -- ./bench`,
		StopAtArgs: true, // flags after the command belong to it
		Args: func(args []string) error {
			if len(args) == 0 {
				return usageError{Err: fmt.Errorf("no command given (corepin exec [flags] -- COMMAND [ARG...])")}
			}
			return nil
		},
	}
	cmd.Run = func(in *cli.Invocation, args []string) error {
		target, err := tf.resolveQuick()
		if err != nil {
			return err
		}
		req, err := sf.requestFor(in, &tf, target)
		if err != nil {
			return err
		}
		if watchEvery > 0 && watchEvery < watch.MinPeriod {
			return usageError{Err: fmt.Errorf("--watch %v: want at least %v (or 0 to turn the watcher off)", watchEvery, watch.MinPeriod)}
		}
		if err := atomicfile.JSONFile(reportFile).Check(); err != nil {
			return usageError{Err: fmt.Errorf("--report: %w", err)}
		}
		c := interrupt.From(in.Ctx)
		if replace {
			if launcher || in.Changed("watch") || in.Changed("timeout") {
				return usageError{Err: fmt.Errorf("--replace cannot be combined with --launcher, --watch or --timeout: nothing is left to watch or time the command")}
			}
			if c != nil && c.Signal() != nil {
				// A signal that came before corepin became the command
				// ends it as the command would have been ended.
				return &exitError{code: c.ExitCode(), err: fmt.Errorf("interrupted before %s started", args[0])}
			}
			if tune.wanted(in) {
				return usageError{Err: fmt.Errorf("--replace cannot be combined with --tune or --shield: nothing would be left to put the machine back")}
			}
			if tel.file != "" {
				return usageError{Err: fmt.Errorf("--replace cannot be combined with --telemetry: nothing is left to sample around the command")}
			}
			return replaceWith(in, req, args, reportFile, quiet)
		}
		if err := tel.check(); err != nil {
			return usageError{Err: err}
		}
		tuned, err := tune.start(in, req.Mask(), "corepin exec")
		if err != nil {
			return err
		}
		defer tune.finish(in, tuned) // on every way out: the command's end, a signal, a timeout
		defer tune.warnLost(in, tuned)
		// Signals are passed on to the command, which decides; one that
		// came while corepin was starting is passed on as soon as it runs.
		var signals <-chan os.Signal
		if c != nil {
			var stop func()
			signals, stop = c.Forward()
			defer stop()
		}
		sampler, err := tel.start(in.Ctx, req.Mask())
		if err != nil {
			return err
		}
		rep, err := launch.Run(context.WithoutCancel(in.Ctx), launch.Config{
			Request: req, Args: args, Node: target.Node,
			Stdin: in.Stdin, Stdout: in.Stdout, Stderr: in.Stderr,
			Timeout: timeout, WatchPeriod: watchEvery, ForwardSignals: true, Signals: signals, Launcher: launcher, Observe: observe,
			Guard: g,
		})
		if err != nil {
			if sampler != nil {
				sampler.Stop()
			}
			return err
		}
		rep.Dir, _ = os.Getwd()
		tel.finish(in, sampler, &rep.Scheduling)
		// A report that cannot be written (a disk that filled up during
		// the command) is said, with its errno, and kept elsewhere if it
		// can be; the exit status stays the command's.
		if reportFile != "" {
			rep.Corepin = launch.Own(began)
			if err := atomicfile.JSONFile(reportFile).WriteOrKeep("the report", rep); err != nil {
				fmt.Fprintf(in.Stderr, "corepin: the report could not be written: %v\n", err)
			}
		}
		if err := execFailure(rep, args); err != nil {
			return err
		}
		if !quiet {
			fmt.Fprintln(in.Stderr, "corepin:", termsafe.Message(account.ReportLine(&rep.Scheduling, "--observe")))
			// Judged as corepin run judges each run; exec keeps its
			// command's exit status: a shared target is said, not made
			// an exit code.
			sayFindings(in.Stderr, judge.Words{Flags: judgeFlags(cmd)}, judge.Exec(&rep.Scheduling, execRules(rep, req)))
		}
		if rep.NoLongerHeld() != "" {
			status := "ended by a signal"
			if c := rep.Child.ExitCode; c != nil {
				status = fmt.Sprintf("exited %d", *c)
			}
			return &exitError{code: rep.ExitCode(), err: fmt.Errorf("the acceptance rule stopped holding during the run: CPU %s went offline (the command itself %s)",
				rep.Watch.TargetOffline.CPUs, status)}
		}
		if code := rep.ExitCode(); code != 0 {
			return &exitError{code: code}
		}
		return nil
	}
	tf.register(cmd)
	sf.register(cmd)
	tune.register(cmd, true)
	cmd.Flags().DurationVar(&watchEvery, "watch", 100*time.Millisecond, "watcher period; 0 turns the watcher off")
	cmd.Flags().DurationVar(&timeout, "timeout", 0, "end the command after this long (SIGTERM, then SIGKILL 2s later)")
	cmd.Flags().StringVar(&reportFile, "report", "", "write the scheduling report as JSON to this `file` (- for standard output)")
	cmd.Output("report", cli.File)
	cmd.Flags().BoolVar(&quiet, "quiet", false, "print no summary")
	cmd.Alias("q", "quiet")
	cmd.Flags().BoolVar(&launcher, "launcher", false, "start the command through corepin re-executed as a launcher, whose own thread is read back and becomes the command")
	cmd.Flags().BoolVar(&observe, "observe", false, "follow and measure the command's threads without putting back what drifted, for programs whose own scheduling choices must be kept")
	tel.register(cmd)
	cmd.Flags().BoolVar(&replace, "replace", false, "become the command (execve) once corepin's own thread is set up and read back, as taskset and chrt do: no watcher, no exit status")
	return cmd
}

// replaceWith makes corepin the command; it returns only when that failed.
func replaceWith(in *cli.Invocation, req session.Request, args []string, reportFile string, quiet bool) error {
	c := interrupt.From(in.Ctx)
	rep, err := launch.Replace(req, args, nil, func(rep *launch.Report) error {
		// What corepin writes goes out with SIGPIPE caught: a reader that
		// went away costs the output, not the command.
		if c != nil && (reportFile != "" || !quiet) {
			<-c.Ready()
		}
		// A signal caught while corepin set itself up would be lost with
		// the exec: it ends corepin as it would have ended the command.
		if c != nil && c.Signal() != nil {
			return &exitError{code: c.ExitCode(), err: fmt.Errorf("interrupted before %s started", args[0])}
		}
		if reportFile != "" {
			if err := atomicfile.JSONFile(reportFile).Write(rep); err != nil {
				return err
			}
		}
		if !quiet {
			fmt.Fprintf(in.Stderr, "corepin: becoming %s on %s\n", filepath.Base(args[0]), account.SchedulingLine(&rep.Scheduling))
		}
		return nil
	})
	// Not replaced: corepin writes why and exits, with SIGPIPE caught.
	if c != nil {
		<-c.Ready()
	}
	if err != nil {
		return err
	}
	if reportFile != "" {
		if err := atomicfile.JSONFile(reportFile).Write(rep); err != nil {
			return err
		}
	}
	return execFailure(rep, args)
}

// execFailure is the error for a command that did not run, nil when it ran.
func execFailure(rep *launch.Report, args []string) error {
	switch {
	case rep.Refused != "":
		return &exitError{code: rep.ExitCode(), err: fmt.Errorf("not run: the scheduling was not accepted: %s", rep.Refused)}
	case rep.ExecError != "":
		return &exitError{code: rep.ExitCode(), err: fmt.Errorf("cannot run %s: %s", args[0], rep.ExecError)}
	}
	return nil
}

// execRules are what exec judges its command by: its mode, the realtime
// throttle where the command ran realtime, and sharing allowed (exec has
// no --max-others: the default share is warned of).
func execRules(rep *launch.Report, req session.Request) judge.Rules {
	r := judge.Rules{Mode: req.ModeOrDefault(), AllowSharing: true}
	if rep.Readback.Policy.Realtime() {
		if t, err := sched.ReadRTThrottle(fsroot.Host); err == nil {
			r.Throttle = t.Warning()
		}
	}
	return r
}

// sayFindings says exec's findings, a line each: a note is what could not
// be judged, and why (no claim).
func sayFindings(w io.Writer, words judge.Words, fs []judge.Finding) {
	for _, f := range fs {
		what := "warning:"
		if f.Severity == judge.Note {
			what = "note:"
		}
		fmt.Fprintln(w, "corepin:", what, termsafe.Text(words.Text(f))) // names the processes that shared the target
	}
}
