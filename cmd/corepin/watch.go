package main

import (
	"context"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/internal/watch"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

func newWatchCmd() *cli.Command {
	var (
		tf       targetFlags
		sf       schedFlags
		maintain bool
		period   time.Duration
		duration time.Duration
		asJSON   bool
	)
	cmd := &cli.Command{
		Use:    "watch PID",
		Device: cli.OnDevice,
		Short:  "Show where each thread of a running process runs; with --maintain, keep them on the target",
		Long: `Follow the threads of a running process and its children: where each one
runs, how much CPU it takes, how often it moves. Without --maintain nothing
is changed. With --maintain, threads are kept on the target (--cpu, --cpus
or --target) and, given --policy/--nice, at those attributes, until the
process exits, the duration ends, Ctrl-C (or SIGTERM, SIGHUP) or the reader
of the output goes away; then every thread that was changed is put back as
it was, and read back.`,
		Example: `  corepin watch 1234
  corepin watch --maintain --cpu 3 --nice -10 1234`,
		Args: func(args []string) error {
			if len(args) != 1 {
				return usageError{Err: fmt.Errorf("want one process id")}
			}
			if pid, err := strconv.Atoi(args[0]); err != nil || pid <= 0 {
				return usageError{Err: fmt.Errorf("%q is not a process id", args[0])}
			}
			return nil
		},
		Run: func(in *cli.Invocation, args []string) error {
			pid, _ := strconv.Atoi(args[0])
			if period < watch.MinPeriod {
				return usageError{Err: fmt.Errorf("--period %v: want at least %v", period, watch.MinPeriod)}
			}
			opts := watch.Options{PID: pid, Period: period, Children: true}
			if maintain {
				_, target, err := tf.resolve("/")
				if err != nil {
					return err
				}
				req, err := sf.request(in, target)
				if err != nil {
					return err
				}
				opts.Maintain, opts.Restore = true, true
				opts.Mask, opts.Avoid = req.Mask(), req.Mask()
				opts.Want = wantedAttr(in, req)
			}
			ctx := in.Ctx
			if duration > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, duration)
				defer cancel()
			}
			w, err := watch.Start(ctx, opts)
			if err != nil {
				return err
			}
			if !asJSON {
				// Said at once, so that a person (or head -1) sees what is
				// going on before the table at the end.
				fmt.Fprintln(in.Stdout, opts.Describe(duration))
			}
			// Until Ctrl-C, the duration, the process's end, or the end of
			// the pipe the result would go to: nothing would read it.
			gone := w.Follow(ctx, func() bool { return readerGone(in.Stdout) })
			res := w.Stop()
			if gone {
				for _, e := range res.Errors {
					fmt.Fprintln(in.Stderr, "corepin: error:", termsafe.Text(e))
				}
				return fmt.Errorf("stopped watching process %d: its output's reader has gone: %w", pid, syscall.EPIPE)
			}
			if asJSON {
				if err := termsafe.WriteJSON(in.Stdout, res); err != nil {
					return err
				}
			} else if err := res.WriteText(in.Stdout, opts.Mask); err != nil {
				return err
			}
			if res.NotRestored > 0 {
				return fmt.Errorf("%d threads of process %d could not be put back as they were (see the errors)", res.NotRestored, pid)
			}
			return interrupted(in.Ctx, "what was seen is printed")
		},
	}
	tf.register(cmd)
	sf.register(cmd)
	cmd.Flags().BoolVar(&maintain, "maintain", false, "keep the threads on the target (and at --policy/--nice)")
	cmd.Flags().DurationVar(&period, "period", 100*time.Millisecond, "time between samples")
	cmd.Flags().DurationVar(&duration, "duration", 0, "stop after this long (default: until the process exits or Ctrl-C)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// wantedAttr is the policy and nice value to maintain, from --policy and
// --nice (the request's one-step ladder); nil when neither was given.
func wantedAttr(in *cli.Invocation, req session.Request) *sched.Attr {
	if !in.Changed("policy") && !in.Changed("nice") {
		return nil
	}
	a := req.Ladder.Step(0).Attr()
	return &a
}
