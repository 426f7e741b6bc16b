package main

import (
	"fmt"

	"corepin.dev/corepin/cmd/corepin/internal/experiment"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/topology"
)

func newExperimentCmd() *cli.Command {
	cmd := &cli.Command{
		Use:    "experiment",
		Device: cli.OnDevice,
		Short:  "Run the scheduling experiments: QoS under heavy load, static versus dynamic partitioning",
		Long: `Run one of corepin's two scheduling experiments on this machine, each beside
the published figures it follows (docs/experiments.md cites them).`,
		Example: `  corepin experiment qos --quick
  corepin experiment partition --quick --json`,
		Args: cli.NoArgs,
	}
	cmd.AddCommand(newQoSExperimentCmd(), newPartitionExperimentCmd())
	return cmd
}

func newQoSExperimentCmd() *cli.Command {
	var (
		tf                    targetFlags
		low, high, levels     string
		work, out             string
		load, runs            int
		noLoad, asJSON, quick bool
	)
	cmd := &cli.Command{
		Use:   "qos",
		Short: "A key thread under heavy load at a low versus a high QoS level",
		Long: `CPU-bound processes (--load, default 2) keep
the target CPU busy while a key thread pinned to the same CPU computes
Fibonacci at each QoS level, through the session library (the level is read
back and restored, as always); then the same without the load. Levels are
interleaved in a new random order in every run. The published figures
beside the result are fib(34) on a HarmonyOS phone under heavy load: 726.8 ms
at background, 323.9 ms at user-interactive.

On a kernel without the HarmonyOS QoS node a level is its Linux setting
(policy, nice, uclamp; see corepin caps): without CAP_SYS_NICE the high
levels cannot lower nice, and the read-back says so.`,
		Example: `  corepin experiment qos
  corepin experiment qos --levels all --runs 7 --out qos-results
  corepin experiment qos --quick --json`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			_, target, err := tf.resolve("/")
			if err != nil {
				return err
			}
			asked := experiment.QoSAsked{Levels: levels, Low: low, High: high, Work: work, Out: out, Load: load, Runs: runs, NoLoad: noLoad,
				Quick: quick, WorkGiven: in.Changed("work"), RunsGiven: in.Changed("runs")}
			cfg, err := asked.Config(target.ExactCPU)
			if err != nil {
				return usageError{Err: err}
			}
			res, err := experiment.RunQoS(in.Ctx, cfg)
			if err != nil {
				return err
			}
			if err := experiment.Write(in.Stdout, in.Stderr, "experiment-qos", res, asJSON, out); err != nil {
				return err
			}
			return interrupted(in.Ctx, "the runs that completed are written")
		},
	}
	tf.register(cmd)
	f := cmd.Flags()
	f.StringVar(&low, "level-low", "background", "the low QoS `level`")
	f.StringVar(&high, "level-high", "user-interactive", "the high QoS `level`")
	f.StringVar(&levels, "levels", "", "all: every level, lowest first")
	f.IntVar(&load, "load", 2, "CPU-bound processes on the target CPU")
	f.StringVar(&work, "work", "fib:34", "the key thread's work, fib:N")
	f.IntVar(&runs, "runs", 5, "runs per level and condition")
	f.BoolVar(&noLoad, "no-load", false, "run only without the load")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&out, "out", "", "also write experiment-qos.json and .html into this `folder`")
	cmd.Output("out", cli.Folder)
	f.BoolVar(&quick, "quick", false, "3 runs of the smallest work from fib:30 to fib:34 that lasts 5 of the kernel's ticks")
	return cmd
}

func newPartitionExperimentCmd() *cli.Command {
	var (
		cpus, slow, slowBy, chunks, out string
		slowdown, size, iter, runs      int
		asJSON, quick                   bool
	)
	cmd := &cli.Command{
		Use:   "partition",
		Short: "Pinned static, static and dynamic partitioning of a parallel loop on fast and slow cores",
		Long: `A loop of a few bit operations per 32-bit element
of a large array, one worker per CPU, a barrier per iteration, under pinned
static, static and dynamic partitioning with each chunk count (and dynamic
with pinned workers), against the ideal time the CPUs' speeds allow.

On a hybrid machine the topology's fast and slow cores are used as they
are. On equal cores, slow cores are emulated at 1/F of a fast one
(--slowdown F) on the --slow-cpus CPUs. --slow-by work, the default, has a
chunk that starts on a slow CPU do its work F times over: a smooth 1/F that
stays with the CPU. --slow-by bandwidth holds the slow CPUs' workers to 1 ms
of every F ms with CFS bandwidth control (the cpu cgroup controller, v1),
which stalls them at each period's end. --slow-by load puts F-1 competing
CPU-bound processes of equal weight on each slow CPU, so a worker there
gets about 1/F of it. The output says which, and the speed the slow CPUs
ran at, measured. Without --slow-cpus on such a machine the
upper half of the CPUs is slowed, and the output says so. The published
times beside the result are the same loop on an Intel Core i7-1260P with two
P cores and two E cores.`,
		Example: `  corepin experiment partition
  corepin experiment partition --cpus 0-3 --slow-cpus 2-3 --slowdown 2 --out part-results
  corepin experiment partition --quick --json`,
		Args: cli.NoArgs,
		Run: func(in *cli.Invocation, _ []string) error {
			topo, err := topology.Read("/")
			if err != nil {
				return err
			}
			asked := experiment.PartitionAsked{CPUs: cpus, SlowCPUs: slow, SlowBy: slowBy, Chunks: chunks, Out: out,
				Slowdown: slowdown, Size: size, Iterations: iter, Runs: runs,
				Quick: quick, CPUsGiven: in.Changed("cpus"), SizeGiven: in.Changed("size"), RunsGiven: in.Changed("runs"),
				SlowdownGiven: in.Changed("slowdown"), SlowByGiven: in.Changed("slow-by")}
			cfg, err := asked.Config(topo)
			if err != nil {
				return usageError{Err: err}
			}
			res, err := experiment.RunPartition(in.Ctx, cfg)
			if err != nil {
				return usageError{Err: err}
			}
			for _, note := range asked.Unused(res) {
				fmt.Fprintln(in.Stderr, "corepin:", note)
			}
			if err := experiment.Write(in.Stdout, in.Stderr, "experiment-partition", res, asJSON, out); err != nil {
				return err
			}
			return interrupted(in.Ctx, "the rounds that completed are written")
		},
	}
	f := cmd.Flags()
	f.StringVar(&cpus, "cpus", "", "one worker on each of these CPUs (default: all usable)")
	f.StringVar(&slow, "slow-cpus", "", "emulate these CPUs as slow")
	f.IntVar(&slowdown, "slowdown", 3, "emulated slow CPUs run at 1/F")
	f.StringVar(&slowBy, "slow-by", "", "emulate slow CPUs by `work` (a slow CPU's chunk done F times over), bandwidth (CFS quota) or load (competing processes)")
	f.StringVar(&chunks, "chunks", "4,16,128,1024", "chunk counts for dynamic partitioning")
	f.IntVar(&size, "size", 1<<22, "array elements")
	f.IntVar(&iter, "iterations", 10, "iterations, each ending at a barrier")
	f.IntVar(&runs, "runs", 5, "runs per strategy, interleaved")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&out, "out", "", "also write experiment-partition.json and .html into this `folder`")
	cmd.Output("out", cli.Folder)
	f.BoolVar(&quick, "quick", false, "a 1M-element array and 7 runs")
	return cmd
}
