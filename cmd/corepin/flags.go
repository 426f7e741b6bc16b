package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// targetFlags are the flags that choose where work runs; every command that
// places work takes the same ones.
type targetFlags struct {
	target    string
	cpu       cli.OptionalInt
	cpus      cli.OptionalString
	crossNode bool
}

func (f *targetFlags) register(cmd *cli.Command) {
	cmd.Flags().StringVar(&f.target, "target", "prime", "where to run: `prime`, big, little or group:K")
	f.cpu.What = "CPU number"
	cmd.Flags().Var(&f.cpu, "cpu", "run on this `CPU` (overrides --target)")
	cmd.Flags().Var(&f.cpus, "cpus", "run on these CPUs, a `list` such as 4-7 (overrides --target)")
	cmd.Flags().BoolVar(&f.crossNode, "cross-node", false, "let a soft target span NUMA nodes (by default it keeps to the exact CPU's node)")
	cmd.Complete("target", "prime", "big", "little", "group:0", "group:1")
}

// choice is where the flags ask work to run.
func (f *targetFlags) choice() targetChoice {
	return targetChoice{Target: f.target, CPU: f.cpu.Value, CPUs: f.cpus.Value, CrossNode: f.crossNode}
}

// choiceError makes a choice the machine cannot give a wrong command line.
func choiceError(err error) error {
	if ce := (*wrongChoice)(nil); errors.As(err, &ce) {
		return usageError{Err: err}
	}
	return err
}

// measured is the target as a set of CPUs: --cpus or --cpu as given,
// else the exact CPU of the selected target.
func (f *targetFlags) measured(root string) (cpuset.Set, error) {
	cpus, err := f.choice().Measured(fsroot.Root(root))
	return cpus, choiceError(err)
}

// resolve reads the topology and selects the target.
func (f *targetFlags) resolve(root string) (*topology.Topology, topology.Target, error) {
	topo, target, err := f.choice().Resolve(fsroot.Root(root))
	return topo, target, choiceError(err)
}

// resolveQuick selects the target for commands that start work at once.
func (f *targetFlags) resolveQuick() (topology.Target, error) {
	target, err := f.choice().ResolveQuick("/")
	return target, choiceError(err)
}

// schedFlags are the flags that say how the work is scheduled; exec, run and
// the experiments take the same ones.
type schedFlags struct {
	ladder   string
	policy   string
	nice     int
	uclamp   string
	qos      string
	realtime bool
	mode     string
	accept   string
}

func (f *schedFlags) register(cmd *cli.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.ladder, "ladder", "geekbench", "fallback ladder of scheduling attributes: geekbench, spec or none")
	fl.StringVar(&f.policy, "policy", "", "ask for exactly this `policy`: fifo:PRIO, rr:PRIO, other, batch or idle")
	fl.IntVar(&f.nice, "nice", 0, "ask for exactly this nice `value` (-20..19)")
	fl.StringVar(&f.uclamp, "uclamp", "", "ask for exactly this utilisation clamp, `MIN:MAX` (0..1024)")
	fl.StringVar(&f.qos, "qos", "", "ask for a QoS `level`: background, utility, default, user-initiated, deadline-request, user-interactive")
	fl.BoolVar(&f.realtime, "realtime", false, "allow the ladder's realtime (FIFO/RR) steps, which can starve the machine (implied by --policy fifo|rr)")
	fl.StringVar(&f.mode, "mode", "exact", "exact (one CPU) or soft (the target group)")
	fl.StringVar(&f.accept, "accept", "", "run only if this `rule` holds: exact, soft or any, with +uclamp-min>=N, +qos=L, +step<=N, +nice<=N, +policy=P (default: the mode's rule)")
	cmd.Complete("ladder", "geekbench", "spec", "none")
	cmd.Complete("mode", "exact", "soft")
	cmd.Complete("policy", "fifo:", "rr:", "other", "batch", "idle")
	cmd.Complete("qos", "background", "utility", "default", "user-initiated", "deadline-request", "user-interactive")
}

// request builds the one request of a command from the flags and the
// selected target.
func (f *schedFlags) request(in *cli.Invocation, target topology.Target) (session.Request, error) {
	asked := schedAsked{Ladder: f.ladder, LadderGiven: in.Changed("ladder"), Policy: f.policy, Uclamp: f.uclamp,
		QoS: f.qos, Realtime: f.realtime, Mode: f.mode, Accept: f.accept}
	if in.Changed("nice") {
		asked.Nice = &f.nice
	}
	req, err := asked.Request()
	if err != nil {
		return session.Request{}, usageError{Err: err}
	}
	req.CPU, req.Group = target.ExactCPU, target.SoftCPUs
	if err := req.Validate(); err != nil {
		return session.Request{}, usageError{Err: err}
	}
	return req, nil
}

// exitRefused is the exit code of a request corepin will not run as
// asked, as for a session rule's refusal.
const exitRefused = 125

// requestFor builds the command's request for the selected target and
// refuses a target asked for by name that the machine cannot give as
// asked, saying what would have been chosen (see targetChoice.Unmet).
// --accept any runs on the chosen CPU anyway.
func (f *schedFlags) requestFor(in *cli.Invocation, tf *targetFlags, target topology.Target) (session.Request, error) {
	req, err := f.request(in, target)
	if err != nil || req.Accept.Base() == "any" {
		return req, err
	}
	if why := tf.choice().Unmet("/", target, req.ModeOrDefault() == evidence.Exact); why != "" {
		return req, &exitError{code: exitRefused, err: errors.New(why)}
	}
	return req, nil
}

// sharingFlags say how much of the target's time others may take before
// a run is warned, and whether a shared target is still a result.
type sharingFlags struct {
	maxOthers string
	allow     bool
}

func (f *sharingFlags) register(cmd *cli.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.maxOthers, "max-others", "2%", "warn when others took more than this `share` of the target CPU's time during a run (above 10% the run is invalid, and run again at most twice)")
	fl.StringVar(&f.maxOthers, "max-wait", "2%", "the older name of --max-others")
	fl.BoolVar(&f.allow, "allow-sharing", false, "keep runs whose target CPU was shared valid, with a warning")
}

// share parses --max-others: a percentage, with or without its sign.
func (f *sharingFlags) share() (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(f.maxOthers), "%"), 64)
	if err != nil || v <= 0 || v > 100 {
		return 0, usageError{Err: fmt.Errorf("--max-others %q: want a percentage above 0 and at most 100, such as 2%%", f.maxOthers)}
	}
	return v / 100, nil
}
