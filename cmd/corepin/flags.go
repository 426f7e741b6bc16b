package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/cli"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// targetFlags are the flags that choose where work runs; every command that
// places work takes the same ones.
type targetFlags struct {
	target    string
	cpu       cpuNumber
	cpus      setString
	crossNode bool
}

// noCPU is --cpu's value when it is not given: -1 given is an error.
const noCPU = math.MinInt

// cpuNumber is --cpu's value: a number, or noCPU, which help leaves out
// rather than print as a default.
type cpuNumber int

func (c *cpuNumber) String() string {
	if *c == noCPU {
		return ""
	}
	return strconv.Itoa(int(*c))
}

func (c *cpuNumber) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("%q is not a CPU number", v)
	}
	*c = cpuNumber(n)
	return nil
}

// setString is a string flag that knows it was given, so that an empty
// value given (--cpus ”) is refused rather than taken for none.
type setString struct {
	value string
	set   bool
}

func (s *setString) String() string     { return s.value }
func (s *setString) Set(v string) error { s.value, s.set = v, true; return nil }

func (f *targetFlags) register(cmd *cli.Command) {
	cmd.Flags().StringVar(&f.target, "target", "prime", "where to run: `prime`, big, little or group:K")
	f.cpu = noCPU
	cmd.Flags().Var(&f.cpu, "cpu", "run on this `CPU` (overrides --target)")
	cmd.Flags().Var(&f.cpus, "cpus", "run on these CPUs, a `list` such as 4-7 (overrides --target)")
	cmd.Flags().BoolVar(&f.crossNode, "cross-node", false, "let a soft target span NUMA nodes (by default it keeps to the exact CPU's node)")
	cmd.Complete("target", "prime", "big", "little", "group:0", "group:1")
}

// cpuSet is the set --cpu or --cpus name, empty when neither was given.
func (f *targetFlags) cpuSet() (cpuset.Set, error) {
	switch {
	case f.cpu != noCPU && f.cpus.set:
		return cpuset.Set{}, usageError{Err: fmt.Errorf("--cpu and --cpus cannot be combined")}
	case f.cpu > cpuset.MaxCPU:
		return cpuset.Set{}, usageError{Err: fmt.Errorf("--cpu %d: no machine has a CPU with that number (the highest corepin takes is %d)", f.cpu, cpuset.MaxCPU)}
	case f.cpu >= 0:
		return cpuset.Of(int(f.cpu)), nil
	case f.cpu != noCPU:
		return cpuset.Set{}, usageError{Err: fmt.Errorf("--cpu %d: a CPU number is 0 or more", f.cpu)}
	case f.cpus.set:
		s, err := cpuset.Parse(f.cpus.value)
		if err != nil {
			return cpuset.Set{}, usageError{Err: fmt.Errorf("--cpus: %w", err)}
		}
		if s.IsEmpty() {
			return cpuset.Set{}, usageError{Err: fmt.Errorf("--cpus: the list is empty")}
		}
		return s, nil
	}
	return cpuset.Set{}, nil
}

// resolve reads the topology and selects the target.
func (f *targetFlags) resolve(root string) (*topology.Topology, topology.Target, error) {
	return f.resolveWith(topology.Read, root)
}

// resolveQuick selects the target for commands that start work at once,
// reading only what selection needs: for one CPU named by --cpu, only the
// machine's CPU lists.
func (f *targetFlags) resolveQuick() (topology.Target, error) {
	if f.cpu >= 0 && !f.cpus.set {
		target, err := topology.SelectOne("/", int(f.cpu))
		var se *topology.SelectError
		if errors.As(err, &se) {
			return target, usageError{Err: err}
		}
		return target, err
	}
	_, target, err := f.resolveWith(topology.ReadForSelection, "/")
	return target, err
}

func (f *targetFlags) resolveWith(read func(string) (*topology.Topology, error), root string) (*topology.Topology, topology.Target, error) {
	cpus, err := f.cpuSet()
	if err != nil {
		return nil, topology.Target{}, err
	}
	topo, err := read(root)
	if err != nil {
		return nil, topology.Target{}, err
	}
	var target topology.Target
	if cpus.IsEmpty() {
		target, err = topo.SelectWith(f.target, topology.SelectOptions{CrossNode: f.crossNode})
	} else {
		target, err = topo.SelectCPUs(cpus)
	}
	if err != nil {
		return nil, topology.Target{}, usageError{Err: err} // a CPU that cannot be used is a wrong command line
	}
	return topo, target, nil
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
	req, err := f.build(in)
	if err != nil {
		return session.Request{}, err
	}
	req.CPU, req.Group = target.ExactCPU, target.SoftCPUs
	if custom := in.Changed("policy") || in.Changed("nice") || in.Changed("uclamp"); custom && f.accept == "" {
		if req.Accept, err = explicitRule(req.ModeOrDefault()); err != nil {
			return session.Request{}, err
		}
	}
	if err := req.Validate(); err != nil {
		return session.Request{}, usageError{Err: err}
	}
	return req, nil
}

// build turns the flags into the scheduling part of a request: a ladder,
// a QoS level, a mode and a rule. Explicit --policy, --nice or --uclamp
// make a one-step custom ladder; --qos alone makes the level's ladder (and
// asks the HarmonyOS node where there is one).
func (f *schedFlags) build(in *cli.Invocation) (session.Request, error) {
	var req session.Request
	var err error
	if req.Mode, err = session.ParseMode(f.mode); err != nil {
		return req, usageError{Err: fmt.Errorf("--mode: %w", err)}
	}
	if f.accept != "" {
		if req.Accept, err = session.ParseRule(f.accept); err != nil {
			return req, usageError{Err: err}
		}
	}
	if f.qos != "" {
		l, err := qos.Parse(f.qos)
		if err != nil {
			return req, usageError{Err: fmt.Errorf("--qos: %w", err)}
		}
		req.QoS = &l
	}
	req.AllowRealtime = f.realtime
	custom := in.Changed("policy") || in.Changed("nice") || in.Changed("uclamp")
	if custom && in.Changed("ladder") {
		return req, usageError{Err: fmt.Errorf("--ladder cannot be combined with --policy, --nice or --uclamp")}
	}
	switch {
	case custom:
		var p *sched.Policy
		prio := 0
		if f.policy != "" {
			pol, pr, err := sched.ParsePolicyPriority(f.policy)
			if err != nil {
				return req, usageError{Err: fmt.Errorf("--policy: %w", err)}
			}
			// Ladders try realtime only when allowed; asking for it by
			// name is that permission.
			req.AllowRealtime = req.AllowRealtime || pol.Realtime()
			p, prio = &pol, pr
		}
		var n *int
		if in.Changed("nice") {
			n = &f.nice
		}
		var c *session.Clamp
		if f.uclamp != "" {
			clamp, err := session.ParseClamp(f.uclamp)
			if err != nil {
				return req, usageError{Err: fmt.Errorf("--uclamp: %w", err)}
			}
			c = &clamp
		}
		req.Ladder = session.CustomLadder(p, prio, n, c)
	case req.QoS != nil && !in.Changed("ladder"):
		req.Ladder = session.QoSLadder(*req.QoS)
	default:
		if req.Ladder, err = session.NamedLadder(f.ladder); err != nil {
			return req, usageError{Err: fmt.Errorf("--ladder: %w", err)}
		}
	}
	if err := req.Ladder.Validate(); err != nil {
		return req, usageError{Err: err}
	}
	return req, nil
}
