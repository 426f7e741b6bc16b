package topology

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

// Target is the answer to "where should a single-core run go?".
type Target struct {
	// Spec is the request as given: prime, big, little, group:K, or CPUs.
	Spec string `json:"spec"`
	// ExactCPU is the one CPU for exact mode: the first hardware thread of
	// the best physical core.
	ExactCPU int `json:"exact_cpu"`
	// SoftCPUs is the CPU set for soft mode: the whole performance group
	// (or the CPUs asked for), cut down to the usable CPUs.
	SoftCPUs cpuset.Set `json:"soft_cpus"`
	Group    *int       `json:"group"` // rank of the group of ExactCPU
	// Node is the NUMA node that holds ExactCPU and every soft CPU; nil
	// when the nodes are unknown or the soft CPUs span several.
	Node *int   `json:"node,omitempty"`
	Why  string `json:"why"`
}

// SelectOptions change how Select chooses.
type SelectOptions struct {
	// CrossNode lets a soft target span NUMA nodes; by default a group is
	// cut down to the exact CPU's node, since a thread that moves between
	// nodes leaves its memory behind.
	CrossNode bool
}

// SelectError says why a requested target cannot be used.
type SelectError struct {
	Spec   string
	CPU    int // -1 when the problem is not one CPU
	Reason string
}

func (e *SelectError) Error() string {
	if e.CPU >= 0 {
		return fmt.Sprintf("target %q: CPU %d %s", e.Spec, e.CPU, e.Reason)
	}
	return fmt.Sprintf("target %q: %s", e.Spec, e.Reason)
}

// ErrBadSpec is wrapped by Select for a target spec it cannot read.
var ErrBadSpec = errors.New("unknown target")

// Select chooses a target. spec is one of:
//
//	prime (or "")   the best core of the fastest group; the default
//	big, little     the fastest or the slowest group
//	group:K         the group of rank K (0 is the fastest)
//	N or LIST       the CPU N, or the CPUs of a list such as "4-7"
//
// A CPU that does not exist, is offline or lies outside this process's
// cpuset or the mask it inherited is an error that names the CPU, the
// limit and the file it comes from: whoever narrowed the mask (taskset, a
// batch system's binding such as Slurm's task/affinity, a parent) gave
// corepin those CPUs and no others, and corepin never widens past them,
// although the kernel would let a thread widen its own mask within its
// cpuset. The one exception is an isolcpus CPU when nothing narrowed the
// mask: the kernel leaves isolated CPUs out of every task's default mask,
// and work is put there by asking for them. prime, big, little and
// group:K choose among the usable CPUs (online and in the inherited mask),
// and big and little are refused when the fastest or slowest CPUs of the
// machine are all offline.
func (t *Topology) Select(spec string) (Target, error) {
	return t.SelectWith(spec, SelectOptions{})
}

// SelectWith is Select with options.
func (t *Topology) SelectWith(spec string, o SelectOptions) (Target, error) {
	target, err := t.selectSpec(spec)
	if err != nil {
		return target, err
	}
	t.keepToNode(&target, o.CrossNode, !isCPUList(spec))
	return target, nil
}

// isCPUList reports whether spec names CPUs rather than a group.
func isCPUList(spec string) bool {
	s, err := cpuset.Parse(strings.TrimSpace(spec))
	return err == nil && !s.IsEmpty()
}

// keepToNode cuts a group's soft CPUs down to the exact CPU's NUMA node
// (a list of CPUs the user gave is kept as given) and records the node.
func (t *Topology) keepToNode(target *Target, crossNode, fromGroup bool) {
	node := t.NodeOf(target.ExactCPU)
	if node == nil {
		return
	}
	var same []int
	for _, id := range target.SoftCPUs.CPUs() {
		if n := t.NodeOf(id); n != nil && *n == *node {
			same = append(same, id)
		}
	}
	inNode := cpuset.Of(same...)
	switch {
	case inNode.Equal(target.SoftCPUs):
		target.Node = node
	case crossNode || !fromGroup:
		target.Why += fmt.Sprintf(" The soft CPUs %s span NUMA nodes.", target.SoftCPUs)
	default:
		target.Why += fmt.Sprintf(" The soft CPUs are kept to NUMA node %d (CPUs %s of %s), the exact CPU's: memory stays near the work, unless the choice asks to cross nodes.",
			*node, inNode, target.SoftCPUs)
		target.SoftCPUs, target.Node = inNode, node
	}
}

func (t *Topology) selectSpec(spec string) (Target, error) {
	spec = strings.TrimSpace(spec)
	usable := t.Usable()
	if usable.IsEmpty() {
		return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: "no online CPU is allowed to this process"}
	}
	switch {
	case spec == "" || spec == "prime" || spec == "big":
		if spec == "" {
			spec = "prime"
		}
		if lost := t.lostBeyond(false); lost != nil && spec == "big" {
			return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: t.lostReason(lost, "fastest")}
		}
		return t.selectGroup(spec, t.firstUsableGroup(usable, false), usable)
	case spec == "little":
		if lost := t.lostBeyond(true); lost != nil {
			return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: t.lostReason(lost, "slowest")}
		}
		return t.selectGroup(spec, t.firstUsableGroup(usable, true), usable)
	case strings.HasPrefix(spec, "group:"):
		k, err := strconv.Atoi(strings.TrimPrefix(spec, "group:"))
		if err != nil || k < 0 || k >= len(t.Groups) {
			reason := fmt.Sprintf("no such group (this machine has groups 0-%d online)", len(t.Groups)-1)
			if len(t.Lost) > 0 {
				reason += "; " + t.lostList() + " offline"
			}
			return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: reason}
		}
		return t.selectGroup(spec, &t.Groups[k], usable)
	}
	cpus, err := cpuset.Parse(spec)
	if err != nil || cpus.IsEmpty() {
		return Target{}, fmt.Errorf("%w %q: want prime, big, little, group:K, a CPU number or a CPU list", ErrBadSpec, spec)
	}
	return t.selectCPUs(spec, cpus, usable)
}

// SelectCPUs chooses the given CPUs as the target, with the same checks
// as Select: each must exist, be online and be allowed to this process.
func (t *Topology) SelectCPUs(cpus cpuset.Set) (Target, error) {
	spec := cpus.String()
	if cpus.IsEmpty() {
		return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: "no CPU given"}
	}
	usable := t.Usable()
	if usable.IsEmpty() {
		return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: "no online CPU is allowed to this process"}
	}
	target, err := t.selectCPUs(spec, cpus, usable)
	if err != nil {
		return target, err
	}
	t.keepToNode(&target, false, false)
	return target, nil
}

// firstUsableGroup returns the fastest (or slowest) group that has a usable
// CPU, so that a process confined by taskset or a cpuset still gets the best
// of what it may use.
func (t *Topology) firstUsableGroup(usable cpuset.Set, slowest bool) *evidence.Group {
	for i := range t.Groups {
		g := &t.Groups[i]
		if slowest {
			g = &t.Groups[len(t.Groups)-1-i]
		}
		if !g.CPUs.Intersect(usable).IsEmpty() {
			return g
		}
	}
	return nil
}

// lostBeyond returns the lost class faster than every online group (or,
// slowest, slower than every one), or nil.
func (t *Topology) lostBeyond(slowest bool) *evidence.Group {
	if len(t.Lost) == 0 || len(t.Groups) == 0 {
		return nil
	}
	if slowest {
		lost, last := &t.Lost[len(t.Lost)-1], t.Groups[len(t.Groups)-1]
		if last.Capacity != nil && *lost.Capacity < *last.Capacity {
			return lost
		}
		return nil
	}
	lost, first := &t.Lost[0], t.Groups[0]
	if first.Capacity != nil && *lost.Capacity > *first.Capacity {
		return lost
	}
	return nil
}

func (t *Topology) lostReason(lost *evidence.Group, which string) string {
	return fmt.Sprintf("the %s CPUs of this machine (%s, capacity %d) are offline (%s); the online groups are %s",
		which, lost.CPUs, *lost.Capacity, onlineEvidence(t), t.groupList())
}

// lostList names the lost classes: "CPUs 2-3 (capacity 1024)".
func (t *Topology) lostList() string {
	var parts []string
	for _, g := range t.Lost {
		parts = append(parts, fmt.Sprintf("CPUs %s (capacity %d)", g.CPUs, *g.Capacity))
	}
	return strings.Join(parts, " and ") + " are"
}

func (t *Topology) groupList() string {
	var parts []string
	for _, g := range t.Groups {
		p := fmt.Sprintf("%d (CPUs %s", g.Rank, g.CPUs)
		if g.Capacity != nil {
			p += fmt.Sprintf(", capacity %d", *g.Capacity)
		}
		parts = append(parts, p+")")
	}
	return strings.Join(parts, ", ")
}

// onlineEvidence names the file the online list comes from.
func onlineEvidence(t *Topology) string {
	return fmt.Sprintf("%s says %s", fsroot.Root(t.Root).Path(cpuDir, "online"), t.Online)
}

func (t *Topology) selectGroup(spec string, g *evidence.Group, usable cpuset.Set) (Target, error) {
	if g == nil {
		return Target{}, &SelectError{Spec: spec, CPU: -1, Reason: "no group has a usable CPU"}
	}
	soft := g.CPUs.Intersect(usable)
	if soft.IsEmpty() {
		return Target{}, &SelectError{Spec: spec, CPU: -1,
			Reason: fmt.Sprintf("group %d (CPUs %s) lies outside this process's allowed CPUs %s", g.Rank, g.CPUs, usable)}
	}
	exact, how := t.bestCore(soft)
	rank := g.Rank
	why := fmt.Sprintf("CPU %d is the first hardware thread of %s in %s", exact, how, t.describeGroup(g, spec))
	if !soft.Equal(g.CPUs) {
		why += fmt.Sprintf("; only CPUs %s of it are allowed to this process", soft)
	}
	if (spec == "prime" || spec == "big") && g.Rank > 0 {
		why += fmt.Sprintf("; the faster group 0 (CPUs %s) is outside this process's allowed CPUs %s", t.Groups[0].CPUs, usable)
	}
	if spec == "little" && g.Rank < len(t.Groups)-1 {
		why += fmt.Sprintf("; the slower group %d (CPUs %s) is outside this process's allowed CPUs %s", len(t.Groups)-1, t.Groups[len(t.Groups)-1].CPUs, usable)
	}
	if lost := t.lostBeyond(false); lost != nil && spec == "prime" {
		why += fmt.Sprintf("; the machine's fastest CPUs %s (capacity %d) are offline", lost.CPUs, *lost.Capacity)
	}
	return Target{Spec: spec, ExactCPU: exact, SoftCPUs: soft, Group: &rank, Why: why + "."}, nil
}

func (t *Topology) selectCPUs(spec string, cpus, usable cpuset.Set) (Target, error) {
	var widened []int // outside the inherited mask, inside the cpuset
	for _, id := range cpus.CPUs() {
		c := t.CPU(id)
		switch {
		case c == nil:
			return Target{}, &SelectError{Spec: spec, CPU: id,
				Reason: fmt.Sprintf("does not exist (this machine has CPUs %s, %s)", t.Present, fsroot.Root(t.Root).Path(cpuDir, "present"))}
		case !c.Online:
			return Target{}, &SelectError{Spec: spec, CPU: id, Reason: "is offline (" + onlineEvidence(t) + ")"}
		case t.Cpuset != nil && !t.Cpuset.Contains(id):
			return Target{}, &SelectError{Spec: spec, CPU: id,
				Reason: fmt.Sprintf("is outside this process's cpuset %s (%s)", t.Cpuset, t.CpusetFile)}
		case !usable.Contains(id) && t.Cpuset == nil:
			return Target{}, &SelectError{Spec: spec, CPU: id,
				Reason: fmt.Sprintf("is outside the mask this process inherited %s (Cpus_allowed_list of %s: taskset), and its cpuset cannot be read to see whether the mask may widen",
					usable, fsroot.Root(t.Root).Path("proc/self/status"))}
		case !usable.Contains(id) && !t.isolatedByDefault(c):
			return Target{}, &SelectError{Spec: spec, CPU: id,
				Reason: fmt.Sprintf("is outside the CPUs this process inherited, %s (Cpus_allowed_list of %s: set by taskset, a batch system's binding or a parent); corepin does not widen past them",
					usable, fsroot.Root(t.Root).Path("proc/self/status"))}
		case !usable.Contains(id):
			widened = append(widened, id)
		}
	}
	exact, how := t.bestCore(cpus)
	target := Target{Spec: spec, ExactCPU: exact, SoftCPUs: cpus}
	if g := t.GroupOf(exact); g != nil {
		rank := g.Rank
		target.Group = &rank
	}
	if cpus.Len() == 1 {
		target.Why = fmt.Sprintf("CPU %d was asked for", exact)
	} else {
		target.Why = fmt.Sprintf("CPUs %s were asked for; CPU %d is the first hardware thread of %s among them", cpus, exact, how)
	}
	if g := t.GroupOf(exact); g != nil && len(t.Groups) > 1 {
		target.Why += fmt.Sprintf(" (it is in %s)", t.describeGroup(g, ""))
	}
	if t.CPU(exact).Isolated {
		target.Why += "; it is isolated from the scheduler's load balancing (isolcpus)"
	}
	if len(widened) > 0 {
		target.Why += fmt.Sprintf("; CPUs %s are isolated (isolcpus), outside the kernel's default mask that corepin inherited (%s) but inside its cpuset %s (%s), so the thread's mask is widened to them",
			cpuset.Of(widened...), usable, t.Cpuset, t.CpusetFile)
	}
	return target, nil
}

// isolatedByDefault reports whether c lies outside the inherited mask only
// because it is isolated: the kernel leaves isolcpus CPUs out of every
// task's default mask, and a mask that still holds every other online CPU
// of the cpuset is that default, narrowed by no one.
func (t *Topology) isolatedByDefault(c *evidence.CPU) bool {
	if !c.Isolated || t.Allowed == nil {
		return false
	}
	housekeeping := t.Online.Difference(t.Isolated)
	if t.Cpuset != nil {
		housekeeping = housekeeping.Intersect(*t.Cpuset)
	}
	return housekeeping.Difference(*t.Allowed).IsEmpty()
}

// bestCore picks the best physical core among cpus: the highest
// acpi_cppc/highest_perf where the values differ (Intel's favoured cores),
// else the highest-numbered core, because CPU 0 carries most of the
// machine's housekeeping. It returns the core's first allowed thread and a
// phrase saying why that core.
func (t *Topology) bestCore(cpus cpuset.Set) (int, string) {
	type core struct {
		first int
		perf  int
	}
	var cores []core
	seen := map[string]bool{}
	perfs := map[int]bool{}
	for _, id := range cpus.CPUs() {
		c := t.CPU(id)
		key := strconv.Itoa(id)
		if c != nil && !c.Siblings.IsEmpty() {
			key = c.Siblings.String()
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		perf := -1
		if c != nil && c.HighestPerf != nil {
			perf = *c.HighestPerf
		}
		perfs[perf] = true
		cores = append(cores, core{first: id, perf: perf})
	}
	best := cores[0]
	for _, c := range cores[1:] {
		if c.perf > best.perf || (c.perf == best.perf && c.first > best.first) {
			best = c
		}
	}
	switch {
	case len(cores) == 1:
		return best.first, "its only core"
	case len(perfs) > 1:
		return best.first, fmt.Sprintf("the favoured core (highest_perf %d)", best.perf)
	default:
		return best.first, "the highest-numbered of its equal cores, away from CPU 0's housekeeping"
	}
}

func (t *Topology) describeGroup(g *evidence.Group, spec string) string {
	name := "the fastest group"
	switch {
	case len(t.Groups) == 1:
		name = "the only group"
	case spec == "little" || g.Rank == len(t.Groups)-1:
		name = "the slowest group"
	case g.Rank > 0:
		name = fmt.Sprintf("group %d", g.Rank)
	}
	var facts []string
	facts = append(facts, "CPUs "+g.CPUs.String())
	if g.Kind != "" {
		facts = append(facts, g.Kind)
	}
	if g.Capacity != nil {
		c := fmt.Sprintf("capacity %d", *g.Capacity)
		if g.CapacityDerived {
			c += " derived from frequency"
		}
		facts = append(facts, c)
	}
	if g.MaxMHz != nil {
		facts = append(facts, fmt.Sprintf("%.0f MHz", *g.MaxMHz))
	}
	return fmt.Sprintf("%s (%s)", name, strings.Join(facts, ", "))
}
