package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/experiment"
	"corepin.dev/corepin/internal/atomicfile"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/page"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/topology"
)

func newExperimentCmd() *cli.Command {
	cmd := &cli.Command{
		Use:   "experiment",
		Short: "Run the scheduling experiments: QoS under heavy load, static versus dynamic partitioning",
		Long: `Run one of corepin's two scheduling experiments on this machine, each beside
the published figures it follows (docs/experiments.md cites them).`,
		Example: `  corepin experiment qos --quick
  corepin experiment partition --quick --json`,
		Args: cli.NoArgs,
	}
	cmd.AddCommand(newQoSExperimentCmd(), newPartitionExperimentCmd())
	return cmd
}

// An experimentResult is a result with its views.
type experimentResult interface {
	WriteText(io.Writer) error
	Page() *page.Simple
}

// writeExperiment prints the text table or JSON, and with --out writes
// NAME.json and NAME.html into the folder.
func writeExperiment(in *cli.Invocation, name string, res experimentResult, asJSON bool, out string) error {
	w := in.Stdout
	if asJSON {
		if err := writeJSON(w, res); err != nil {
			return err
		}
	} else if err := res.WriteText(w); err != nil {
		return err
	}
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(out, name+".json"), res); err != nil {
		return err
	}
	html := filepath.Join(out, name+".html")
	if err := atomicfile.Write(html, res.Page().Render); err != nil {
		return err
	}
	fmt.Fprintln(in.Stderr, "wrote", filepath.Join(out, name+".json"), "and", html)
	return nil
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
			var lv []qos.Level
			switch levels {
			case "all":
				lv = qos.Levels()
			case "":
				lo, err1 := qos.Parse(low)
				hi, err2 := qos.Parse(high)
				if err1 != nil || err2 != nil {
					return usageError{Err: fmt.Errorf("--level-low/--level-high: %v", firstErr(err1, err2))}
				}
				if lo == hi {
					return usageError{Err: fmt.Errorf("--level-low and --level-high are both %s", lo)}
				}
				lv = []qos.Level{lo, hi}
			default:
				return usageError{Err: fmt.Errorf("--levels %q: the only value is all", levels)}
			}
			fibN, err := parseWork(work)
			if err != nil {
				return err
			}
			if quick {
				if !in.Changed("work") {
					fibN = 30
				}
				if !in.Changed("runs") {
					runs = 3
				}
			}
			if runs < 1 || load < 0 || runs > 10000 || load > 1000 {
				return usageError{Err: fmt.Errorf("--runs must be 1 to 10000 and --load 0 to 1000")}
			}
			if err := checkFolder(out); err != nil {
				return usageError{Err: fmt.Errorf("--out: %w", err)}
			}
			res, err := experiment.RunQoS(in.Ctx, experiment.QoSConfig{CPU: target.ExactCPU, Levels: lv, Load: load, Fib: fibN, Runs: runs, NoLoad: noLoad})
			if err != nil {
				return err
			}
			if err := writeExperiment(in, "experiment-qos", res, asJSON, out); err != nil {
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
	f.BoolVar(&quick, "quick", false, "fib:30 and 3 runs")
	return cmd
}

func parseWork(w string) (int, error) {
	name, n, ok := strings.Cut(w, ":")
	v, err := strconv.Atoi(n)
	if !ok || name != "fib" || err != nil || v < 1 || v > 50 {
		return 0, usageError{Err: fmt.Errorf("--work %q: want fib:N with N from 1 to 50", w)}
	}
	return v, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func newPartitionExperimentCmd() *cli.Command {
	var (
		cpus, slow, chunks, out    string
		slowdown, size, iter, runs int
		asJSON, quick              bool
	)
	cmd := &cli.Command{
		Use:   "partition",
		Short: "Pinned static, static and dynamic partitioning of a parallel loop on fast and slow cores",
		Long: `A loop of a few bit operations per 32-bit element
of a large array, one worker per CPU, a barrier per iteration, under pinned
static, static and dynamic partitioning with each chunk count (and dynamic
with pinned workers), against the ideal time the CPUs' speeds allow.

On a hybrid machine the topology's fast and slow cores are used as they
are. On equal cores, slow cores are emulated: --slowdown F puts F-1
competing CPU-bound processes of equal weight on each --slow-cpus CPU, so a
worker there gets about 1/F of it. Without --slow-cpus on such a machine the
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
			set := topo.Usable()
			if cpus != "" {
				if set, err = cpuset.Parse(cpus); err != nil {
					return usageError{Err: fmt.Errorf("--cpus: %w", err)}
				}
				if !set.IsSubsetOf(topo.Usable()) {
					return usageError{Err: fmt.Errorf("--cpus %s: only CPUs %s are online and allowed", set, topo.Usable())}
				}
			}
			slowSet, err := cpuset.Parse(slow)
			if err != nil {
				return usageError{Err: fmt.Errorf("--slow-cpus: %w", err)}
			}
			var counts []int
			for _, c := range strings.Split(chunks, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(c))
				if err != nil || n < 1 {
					return usageError{Err: fmt.Errorf("--chunks %q: want positive numbers such as 4,16,128", chunks)}
				}
				counts = append(counts, n)
			}
			if quick {
				if !in.Changed("size") {
					size = 1 << 20
				}
				if !in.Changed("runs") {
					runs = 3
				}
			}
			switch {
			case size < 1 || size > 1<<30:
				return usageError{Err: fmt.Errorf("--size %d: want 1 to %d elements", size, 1<<30)}
			case iter < 1 || iter > 1e6 || runs < 1 || runs > 10000:
				return usageError{Err: fmt.Errorf("--iterations must be 1 to 1000000 and --runs 1 to 10000")}
			case slowdown < 1 || slowdown > 64:
				return usageError{Err: fmt.Errorf("--slowdown %d: want 1 to 64", slowdown)}
			case in.Changed("cpus") && set.IsEmpty():
				return usageError{Err: fmt.Errorf("--cpus: the list is empty")}
			}
			if err := checkFolder(out); err != nil {
				return usageError{Err: fmt.Errorf("--out: %w", err)}
			}
			res, err := experiment.RunPartition(in.Ctx, experiment.PartitionConfig{CPUs: set, SlowCPUs: slowSet, Slowdown: slowdown,
				Chunks: counts, Size: size, Iterations: iter, Runs: runs, Topology: topo})
			if err != nil {
				return usageError{Err: err}
			}
			if in.Changed("slowdown") && !res.Emulated {
				fmt.Fprintf(in.Stderr, "corepin: --slowdown %d is not used: %s\n", slowdown, res.How)
			}
			if err := writeExperiment(in, "experiment-partition", res, asJSON, out); err != nil {
				return err
			}
			return interrupted(in.Ctx, "the rounds that completed are written")
		},
	}
	f := cmd.Flags()
	f.StringVar(&cpus, "cpus", "", "one worker on each of these CPUs (default: all usable)")
	f.StringVar(&slow, "slow-cpus", "", "emulate these CPUs as slow")
	f.IntVar(&slowdown, "slowdown", 3, "slow CPUs run at about 1/F: F-1 competing processes each")
	f.StringVar(&chunks, "chunks", "4,16,128,1024", "chunk counts for dynamic partitioning")
	f.IntVar(&size, "size", 1<<22, "array elements")
	f.IntVar(&iter, "iterations", 10, "iterations, each ending at a barrier")
	f.IntVar(&runs, "runs", 5, "runs per strategy, interleaved")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	f.StringVar(&out, "out", "", "also write experiment-partition.json and .html into this `folder`")
	f.BoolVar(&quick, "quick", false, "a 1M-element array and 3 runs")
	return cmd
}
