package system

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
)

// irqs reads /proc/irq/*/smp_affinity_list and /proc/interrupts and keeps
// the IRQs whose affinity includes a target CPU.
func (r *reader) irqs(target cpuset.Set) IRQs {
	var out IRQs
	if s, ok := r.str(irqDir + "/default_smp_affinity"); ok {
		if m, err := cpuset.ParseMask(s); err == nil {
			out.Default = &m
		}
	}
	counts := map[string]irqLine{}
	if data, err := os.ReadFile(r.path("proc/interrupts")); err == nil {
		counts = parseInterrupts(string(data))
	}
	for _, n := range irqNumbers(r.path(irqDir)) {
		aff, ok := r.list(irqDir + "/" + n + "/smp_affinity_list")
		if !ok {
			continue
		}
		out.Total++
		if aff.Intersect(target).IsEmpty() {
			continue
		}
		irq := IRQ{Number: n, Affinity: aff}
		if l, ok := counts[n]; ok {
			irq.Name = l.name
			for cpu, c := range l.perCPU {
				if target.Contains(cpu) {
					irq.TargetCount += c
				}
			}
		}
		out.OnTarget = append(out.OnTarget, irq)
	}
	return out
}

// irqNumbers lists the numbered folders of /proc/irq, in numeric order.
func irqNumbers(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var ns []int
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			ns = append(ns, n)
		}
	}
	slices.Sort(ns)
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = strconv.Itoa(n)
	}
	return out
}

// irqLine is one numbered line of /proc/interrupts.
type irqLine struct {
	perCPU map[int]uint64 // by CPU number, from the header's CPUn columns
	name   string         // chip, hardware IRQ, type and device names
}

// parseInterrupts parses /proc/interrupts. The header names the columns
// (CPU0 CPU2 … where CPUs are offline); each numbered line has one count
// per column, then the chip and the device names. Lines such as NMI: and
// LOC: are not IRQs with an affinity file and are skipped.
func parseInterrupts(text string) map[string]irqLine {
	lines := strings.Split(text, "\n")
	out := map[string]irqLine{}
	if len(lines) == 0 {
		return out
	}
	var cols []int
	for _, h := range strings.Fields(lines[0]) {
		n, err := strconv.Atoi(strings.TrimPrefix(h, "CPU"))
		if err != nil || !strings.HasPrefix(h, "CPU") {
			return out
		}
		cols = append(cols, n)
	}
	for _, line := range lines[1:] {
		label, rest, ok := strings.Cut(line, ":")
		label = strings.TrimSpace(label)
		if !ok {
			continue
		}
		if _, err := strconv.Atoi(label); err != nil {
			continue
		}
		fields := strings.Fields(rest)
		l := irqLine{perCPU: map[int]uint64{}}
		i := 0
		for ; i < len(fields) && i < len(cols); i++ {
			c, err := strconv.ParseUint(fields[i], 10, 64)
			if err != nil {
				break
			}
			l.perCPU[cols[i]] = c
		}
		l.name = strings.Join(fields[i:], " ")
		out[label] = l
	}
	return out
}
