package system

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

// irqs reads /proc/irq/*/smp_affinity_list and /proc/interrupts and keeps
// the IRQs whose affinity includes a target CPU.
func (r *reader) irqs(target cpuset.Set) evidence.IRQs {
	var out evidence.IRQs
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
		irq := evidence.IRQ{Number: n, Affinity: aff}
		if l, ok := counts[n]; ok {
			irq.Name = l.name
			irq.PerCPU = perCPU(l.name)
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

// perCPUNames are the actions of interrupts every CPU has of its own,
// where the interrupt controller does not say so: arm64's architected
// timer, its PMU, and the timers a KVM guest sees.
var perCPUNames = []string{"arch_timer", "arm-pmu", "kvm guest vtimer", "kvm guest ptimer"}

// perCPU says why the IRQ named so in /proc/interrupts ("GICv3  27 Level
// arch_timer") is a per-CPU interrupt, "" when nothing says it is: on an
// ARM GIC, hardware IRQs 16–31 are private peripheral interrupts, one per
// CPU; elsewhere the action's name.
func perCPU(name string) string {
	f := strings.Fields(name)
	if len(f) >= 2 && strings.HasPrefix(f[0], "GIC") {
		if hw, err := strconv.Atoi(f[1]); err == nil && hw >= 16 && hw < 32 {
			return fmt.Sprintf("a private peripheral interrupt of the %s (hardware IRQ %d): each CPU has its own", f[0], hw)
		}
	}
	for _, n := range perCPUNames {
		if strings.HasSuffix(name, n) {
			return n + " is a per-CPU interrupt: each CPU has its own"
		}
	}
	return ""
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

// irqLabel names an IRQ for a person: its number and, where
// /proc/interrupts gives one, its device ("IRQ 0 (timer)"), as system
// show names it.
func irqLabel(q evidence.IRQ) string {
	if w := lastWord(q.Name); w != "" {
		return fmt.Sprintf("IRQ %s (%s)", q.Number, w)
	}
	return "IRQ " + q.Number
}

// UnmovedIRQs says which IRQs a tune asked off the target the kernel
// refused to move, one line each with the errno ("IRQ 0 (timer): the
// kernel refuses to move it (EIO)"): the target still gets them. The x86
// timer and cascade IRQs and managed IRQs never move; they are a tune's
// best-effort changes (see Plan), which the rest of the tune does not
// wait on.
func UnmovedIRQs(r *evidence.TuneResult) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, x := range r.Refused {
		n, ok := strings.CutPrefix(x.Path, irqDir+"/")
		if !ok {
			continue
		}
		what := x.What
		if what == "" { // a tune recorded before refusals named their IRQ
			n, _, _ = strings.Cut(n, "/")
			what = "IRQ " + n
		}
		why := "the kernel did not keep the new affinity: " + x.Error
		if x.Errno != "" {
			why = "the kernel refuses to move it (" + x.Errno + ")"
		}
		out = append(out, what+": "+why)
	}
	return out
}
