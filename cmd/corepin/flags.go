package main

import (
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/qos"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// targetFlags are the flags that choose where work runs; every command that
// places work takes the same ones.
type targetFlags struct {
	target    string
	cpu       int
	cpus      string
	crossNode bool
}

func (f *targetFlags) register(cmd *command) {
	cmd.flags().StringVar(&f.target, "target", "prime", "where to run: `prime`, big, little or group:K")
	cmd.flags().IntVar(&f.cpu, "cpu", -1, "run on this `CPU` (overrides --target)")
	cmd.flags().StringVar(&f.cpus, "cpus", "", "run on these CPUs, a `list` such as 4-7 (overrides --target)")
	cmd.flags().BoolVar(&f.crossNode, "cross-node", false, "let a soft target span NUMA nodes (by default it keeps to the exact CPU's node)")
	cmd.complete("target", "prime", "big", "little", "group:0", "group:1")
}

// spec turns the flags into a topology target spec.
func (f *targetFlags) spec() (string, error) {
	switch {
	case f.cpu >= 0 && f.cpus != "":
		return "", usageError{fmt.Errorf("--cpu and --cpus cannot be combined")}
	case f.cpu >= 0:
		return fmt.Sprint(f.cpu), nil
	case f.cpu < -1:
		return "", usageError{fmt.Errorf("--cpu %d: a CPU number is 0 or more", f.cpu)}
	case f.cpus != "":
		s, err := cpuset.Parse(f.cpus)
		if err != nil {
			return "", usageError{fmt.Errorf("--cpus: %w", err)}
		}
		if s.IsEmpty() {
			return "", usageError{fmt.Errorf("--cpus: the list is empty")}
		}
		return s.String(), nil
	}
	return f.target, nil
}

// resolve reads the topology and selects the target.
func (f *targetFlags) resolve(root string) (*topology.Topology, topology.Target, error) {
	return f.resolveWith(topology.Read, root)
}

// resolveQuick is resolve for commands that start work at once: it reads
// only what selection needs.
func (f *targetFlags) resolveQuick() (*topology.Topology, topology.Target, error) {
	return f.resolveWith(topology.ReadForSelection, "/")
}

func (f *targetFlags) resolveWith(read func(string) (*topology.Topology, error), root string) (*topology.Topology, topology.Target, error) {
	spec, err := f.spec()
	if err != nil {
		return nil, topology.Target{}, err
	}
	topo, err := read(root)
	if err != nil {
		return nil, topology.Target{}, err
	}
	target, err := topo.SelectWith(spec, topology.SelectOptions{CrossNode: f.crossNode})
	if err != nil {
		return nil, topology.Target{}, usageError{err} // a CPU that cannot be used is a wrong command line
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

func (f *schedFlags) register(cmd *command) {
	fl := cmd.flags()
	fl.StringVar(&f.ladder, "ladder", "geekbench", "fallback ladder of scheduling attributes: geekbench, spec or none")
	fl.StringVar(&f.policy, "policy", "", "ask for exactly this `policy`: fifo:PRIO, rr:PRIO, other, batch or idle")
	fl.IntVar(&f.nice, "nice", 0, "ask for exactly this nice `value` (-20..19)")
	fl.StringVar(&f.uclamp, "uclamp", "", "ask for exactly this utilisation clamp, `MIN:MAX` (0..1024)")
	fl.StringVar(&f.qos, "qos", "", "ask for a QoS `level`: background, utility, default, user-initiated, deadline-request, user-interactive")
	fl.BoolVar(&f.realtime, "realtime", false, "allow the ladder's realtime (FIFO/RR) steps, which can starve the machine (implied by --policy fifo|rr)")
	fl.StringVar(&f.mode, "mode", "exact", "exact (one CPU) or soft (the target group)")
	fl.StringVar(&f.accept, "accept", "", "run only if this `rule` holds: exact, soft or any, with +uclamp-min>=N, +qos=L, +step<=N, +nice<=N, +policy=P (default: the mode's rule)")
	cmd.complete("ladder", "geekbench", "spec", "none")
	cmd.complete("mode", "exact", "soft")
	cmd.complete("policy", "fifo:", "rr:", "other", "batch", "idle")
	cmd.complete("qos", "background", "utility", "default", "user-initiated", "deadline-request", "user-interactive")
}

// build turns the flags into a ladder, a QoS request and a mode. Explicit
// --policy, --nice or --uclamp make a one-step custom ladder; --qos alone
// makes the level's ladder (and asks the HarmonyOS node where there is one).
func (f *schedFlags) build(in *invocation) (session.Ladder, *qos.Level, session.Mode, error) {
	mode := session.Mode(f.mode)
	if mode != session.Exact && mode != session.Soft {
		return session.Ladder{}, nil, "", usageError{fmt.Errorf("--mode %q: want exact or soft", f.mode)}
	}
	if f.accept != "" {
		if _, err := session.ParseRule(f.accept); err != nil {
			return session.Ladder{}, nil, "", usageError{err}
		}
	}
	var level *qos.Level
	if f.qos != "" {
		l, err := qos.Parse(f.qos)
		if err != nil {
			return session.Ladder{}, nil, "", usageError{fmt.Errorf("--qos: %w", err)}
		}
		level = &l
	}
	custom := in.changed("policy") || in.changed("nice") || in.changed("uclamp")
	if custom && in.changed("ladder") {
		return session.Ladder{}, nil, "", usageError{fmt.Errorf("--ladder cannot be combined with --policy, --nice or --uclamp")}
	}
	var ladder session.Ladder
	switch {
	case custom:
		var p *sched.Policy
		prio := 0
		if f.policy != "" {
			name, prioText, hasPrio := strings.Cut(f.policy, ":")
			pol, err := sched.ParsePolicy(name)
			if err != nil {
				return session.Ladder{}, nil, "", usageError{fmt.Errorf("--policy: %w", err)}
			}
			if hasPrio {
				if prio, err = strconv.Atoi(prioText); err != nil {
					return session.Ladder{}, nil, "", usageError{fmt.Errorf("--policy %q: the priority must be a number", f.policy)}
				}
			}
			// Ladders try realtime only when allowed; asking for it by
			// name is that permission.
			if pol.Realtime() {
				f.realtime = true
			}
			p = &pol
		}
		var n *int
		if in.changed("nice") {
			n = &f.nice
		}
		var c *session.Clamp
		if f.uclamp != "" {
			lo, hi, ok := strings.Cut(f.uclamp, ":")
			min, err1 := strconv.ParseUint(lo, 10, 32)
			max, err2 := strconv.ParseUint(hi, 10, 32)
			if !ok || err1 != nil || err2 != nil {
				return session.Ladder{}, nil, "", usageError{fmt.Errorf("--uclamp %q: want MIN:MAX", f.uclamp)}
			}
			c = &session.Clamp{Min: uint32(min), Max: uint32(max)}
		}
		ladder = session.CustomLadder(p, prio, n, c)
	case level != nil && !in.changed("ladder"):
		ladder = session.QoSLadder(*level)
	default:
		var err error
		if ladder, err = session.NamedLadder(f.ladder); err != nil {
			return session.Ladder{}, nil, "", usageError{fmt.Errorf("--ladder: %w", err)}
		}
	}
	if err := ladder.Validate(); err != nil {
		return session.Ladder{}, nil, "", usageError{err}
	}
	return ladder, level, mode, nil
}
