package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/watch"
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
		Use:   "watch PID",
		Short: "Show where each thread of a running process runs; with --maintain, keep them on the target",
		Long: `Follow the threads of a running process and its children: where each one
runs, how much CPU it takes, how often it moves. Without --maintain nothing
is changed. With --maintain, threads are kept on the target (--cpu, --cpus
or --target) and, given --policy/--nice, at those attributes, until the
process exits or Ctrl-C.`,
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
				opts.Maintain = true
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
			// Until Ctrl-C, the duration, or the process's end.
			for ctx.Err() == nil && sched.ProcessAlive(pid) {
				select {
				case <-ctx.Done():
				case <-time.After(period):
				}
			}
			res := w.Stop()
			if asJSON {
				return writeJSON(in.Stdout, res)
			}
			return res.WriteText(in.Stdout, opts.Mask)
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
