package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/watch"
)

func newExecCmd() *command {
	var (
		tf         targetFlags
		sf         schedFlags
		watchEvery time.Duration
		timeout    time.Duration
		reportFile string
		quiet      bool
		launcher   bool
	)
	cmd := &command{
		use:   "exec [flags] [--] COMMAND [ARG...]",
		short: "Run a command on the chosen core with verified scheduling",
		long: `Run a command on the chosen core. corepin sets the affinity and scheduling
attributes on one of its own threads, reads them back, and starts the
command from that thread, which the command copies; the thread is then put
back. With --launcher (and always for --qos, which fork does not copy),
corepin instead re-executes itself as a launcher that sets up its own thread
and then becomes the command. While the command runs, a watcher follows its
threads (and its children's), puts back any that drift, and measures how
much of their time they spent on the target.

Standard streams pass through, SIGINT, SIGTERM and SIGHUP are forwarded,
and corepin exits with the command's status (128+N for a signal, 125 when
the acceptance rule refused, 124 when it stopped holding during the run
because every target CPU went offline, 126 when the command is not
executable, 127 when it is not found).`,
		example: `  corepin exec -- ./bench
  corepin exec --cpu 3 --ladder spec --realtime -- ./bench --size large
  corepin exec --cpus 4-7 --mode soft --report sched.json -- make -j4
  corepin exec --nice -10 --uclamp 1024:1024 --accept 'exact+uclamp-min>=1024' -- ./bench`,
		stopAtArgs: true, // flags after the command belong to it
		args: func(args []string) error {
			if len(args) == 0 {
				return usageError{fmt.Errorf("no command given (corepin exec [flags] -- COMMAND [ARG...])")}
			}
			return nil
		},
	}
	cmd.run = func(in *invocation, args []string) error {
		_, target, err := tf.resolveQuick()
		if err != nil {
			return err
		}
		ladder, level, mode, err := sf.build(in)
		if err != nil {
			return err
		}
		if watchEvery < 0 || timeout < 0 {
			return usageError{fmt.Errorf("--watch and --timeout must not be negative")}
		}
		rep, err := launch.Run(context.WithoutCancel(in.ctx), launch.Config{
			Spec: launch.Spec{
				CPU: target.ExactCPU, CPUs: target.SoftCPUs, Mode: mode, Ladder: ladder,
				AllowRealtime: sf.realtime, QoS: level, Accept: sf.accept, Args: args, Node: target.Node,
			},
			Stdin: in.stdin, Stdout: in.stdout, Stderr: in.stderr,
			Timeout: timeout, WatchPeriod: watchEvery, ForwardSignals: true, Launcher: launcher,
		})
		if err != nil {
			return err
		}
		if reportFile != "" {
			if err := writeJSONFile(reportFile, rep); err != nil {
				return err
			}
		}
		switch {
		case rep.Refused != "":
			return &exitError{code: rep.ExitCode(), err: fmt.Errorf("not run: the scheduling was not accepted: %s", rep.Refused)}
		case rep.ExecError != "":
			return &exitError{code: rep.ExitCode(), err: fmt.Errorf("cannot run %s: %s", args[0], rep.ExecError)}
		}
		if !quiet {
			printExecSummary(in.stderr, rep)
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
	cmd.flags().DurationVar(&watchEvery, "watch", 100*time.Millisecond, "watcher period; 0 turns the watcher off")
	cmd.flags().DurationVar(&timeout, "timeout", 0, "end the command after this long (SIGTERM, then SIGKILL 2s later)")
	cmd.flags().StringVar(&reportFile, "report", "", "write the scheduling report as JSON to this `file`")
	cmd.flags().BoolVar(&quiet, "quiet", false, "print no summary")
	cmd.alias("q", "quiet")
	cmd.flags().BoolVar(&launcher, "launcher", false, "start the command through corepin re-executed as a launcher, whose own thread is read back and becomes the command")
	return cmd
}

func printExecSummary(w io.Writer, rep *launch.Report) {
	rb := rep.Readback
	var b strings.Builder
	fmt.Fprintf(&b, "corepin: %s ran on CPU %d (%s, mask %s), %s", filepath.Base(rep.Command[0]), rb.CPU, rep.Target.Mode, rb.CPUs, rb.Policy)
	if rb.Policy.Realtime() {
		fmt.Fprintf(&b, ":%d", rb.Priority)
	} else {
		fmt.Fprintf(&b, " nice %d", rb.Nice)
	}
	if rep.Ladder.AcceptedStep > 0 {
		fmt.Fprintf(&b, " (ladder %s step %d)", rep.Ladder.Name, rep.Ladder.AcceptedStep)
	} else if len(rep.Ladder.Steps) > 0 {
		fmt.Fprintf(&b, " (no step of ladder %s held)", rep.Ladder.Name)
	}
	if wr := rep.Watch; wr != nil && wr.OnTargetRatio != nil {
		fmt.Fprintf(&b, "; on target %.1f%% of %d running samples, %d migrations, %d re-assertions", 100**wr.OnTargetRatio, runningSamples(wr.Threads), wr.Migrations, wr.Reasserts)
	}
	if why := rep.NoLongerHeld(); why != "" {
		b.WriteString("; " + why)
	}
	c := rep.Child
	fmt.Fprintf(&b, "; %.3fs wall, %.3fs user, %.3fs sys", c.WallS, c.UserS, c.SysS)
	if c.TimedOut {
		b.WriteString("; timed out")
	}
	if !rep.Restore.OK && rep.Restore.Done {
		b.WriteString("; corepin's thread that started it could not be put back, so it was ended")
	}
	fmt.Fprintln(w, b.String())
}

// writeJSONFile writes v to path atomically.
func writeJSONFile(path string, v any) error {
	return atomicfile.Write(path, func(w io.Writer) error { return writeJSON(w, v) })
}

func runningSamples(threads []watch.ThreadStat) int {
	n := 0
	for _, t := range threads {
		n += t.Running
	}
	return n
}
