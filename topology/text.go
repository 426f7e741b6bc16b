package topology

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the topology as corepin topo prints it: a summary line,
// the performance groups, every CPU, and the target with the reason for it.
func (t *Topology) WriteText(w io.Writer, target Target) error {
	model := t.Model
	if model == "" {
		model = "unknown CPU model"
	}
	fmt.Fprintf(w, "%s: %d CPUs present, online %s", model, t.Present.Len(), t.Online)
	if t.Allowed != nil {
		fmt.Fprintf(w, ", allowed to this process %s", t.Allowed)
	}
	if t.Cpuset != nil && t.Allowed != nil && !t.Cpuset.Equal(*t.Allowed) {
		fmt.Fprintf(w, ", cpuset %s", t.Cpuset)
	}
	if !t.Isolated.IsEmpty() {
		fmt.Fprintf(w, ", isolated %s", t.Isolated)
	}
	fmt.Fprintln(w)
	if sockets, nodes := t.Sockets(), t.Nodes(); len(sockets) > 1 || len(nodes) > 1 {
		var parts []string
		for _, n := range nodes {
			parts = append(parts, fmt.Sprintf("node %d = CPUs %s", n.ID, n.CPUs))
		}
		fmt.Fprintf(w, "%d sockets, %d NUMA nodes: %s\n", len(sockets), len(nodes), strings.Join(parts, "; "))
	}
	for _, g := range t.Lost {
		fmt.Fprintf(w, "Offline: CPUs %s (capacity %d), a class of CPUs no online group has\n", g.CPUs, *g.Capacity)
	}
	fmt.Fprintln(w)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GROUP\tCPUS\tCORES\tMAX MHZ\tCAPACITY\tKIND")
	for _, g := range t.Groups {
		capacity := optInt(g.Capacity)
		if g.CapacityDerived {
			capacity += " (from MHz)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%s\t%s\t%s\n", g.Rank, g.CPUs, g.Cores, optMHz(g.MaxMHz), capacity, orDash(g.Kind))
	}
	tw.Flush()
	fmt.Fprintln(w)

	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CPU\tONLINE\tSOCKET\tCORE\tCLUSTER\tSMT SIBLINGS\tMAX MHZ\tMIN MHZ\tCAPACITY\tKIND\tNODE")
	for _, c := range t.CPUs {
		online := "yes"
		if !c.Online {
			online = "no"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.ID, online, optInt(c.Package), optInt(c.Core), optInt(c.Cluster),
			orDash(c.Siblings.String()), optMHz(c.MaxMHz), optMHz(c.MinMHz), optInt(c.Capacity), orDash(c.Kind), optInt(c.Node))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Target %s: exact CPU %d, soft CPUs %s\n", target.Spec, target.ExactCPU, target.SoftCPUs)
	_, err := fmt.Fprintf(w, "  %s\n", target.Why)
	return err
}

func optInt(v *int) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(*v)
}

func optMHz(v *float64) string {
	if v == nil {
		return "-"
	}
	return strings.TrimSuffix(strconv.FormatFloat(*v, 'f', 1, 64), ".0")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
