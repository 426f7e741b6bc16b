package system

import (
	"slices"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results/evidence"
)

func TestPerCPUInterrupts(t *testing.T) {
	for name, want := range map[string]bool{
		"GICv3  27 Level     arch_timer":   true,
		"GIC-0  30 Level     arch_timer":   true, // GICv2's name
		"GICv3  23 Level     arm-pmu":      true,
		"GICv3 130 Level     ufshcd":       false,
		"IO-APIC   2-edge      timer":      false, // moves (or is refused), not per-CPU
		"PCI-MSIX-0000:00:02.0 1-edge v1":  false,
		"ARMH0011:00  11 Level arch_timer": true, // by its action's name
	} {
		if got := perCPU(name) != ""; got != want {
			t.Errorf("%q: per-CPU %v, want %v (%s)", name, got, want, perCPU(name))
		}
	}
}

// A per-CPU interrupt that fires on the target (arm64's arch_timer) is a
// fact, not advice: the machine is not called untuned for it, and no tune
// tries to move it.
func TestPerCPUInterruptsAdviseNothing(t *testing.T) {
	f := &evidence.Facts{Target: cpuset.Of(1), Online: cpuset.Of(0, 1, 2, 3)}
	f.IRQs.Total = 2
	f.IRQs.OnTarget = []evidence.IRQ{
		{Number: "11", Affinity: cpuset.Of(0, 1, 2, 3), Name: "GICv3  27 Level     arch_timer", TargetCount: 900, PerCPU: perCPU("GICv3  27 Level     arch_timer")},
	}
	for _, c := range irqChecks(f) {
		if strings.Contains(c.Why, "tune --irqs") || (c.Important && !c.Good) {
			t.Errorf("check %+v: advice or an untuned machine for a per-CPU interrupt", c)
		}
	}
	changes, err := Plan(f, evidence.TuneRequest{CPUs: cpuset.Of(1), IRQs: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range changes {
		if strings.Contains(c.Path, "irq/11/") {
			t.Errorf("the plan moves the per-CPU IRQ: %+v", c)
		}
	}
	// A movable one that fired there is advice.
	f.IRQs.OnTarget = append(f.IRQs.OnTarget, evidence.IRQ{Number: "208", Affinity: cpuset.Of(0, 1), Name: "GICv3 130 Level     ufshcd", TargetCount: 5})
	var advised bool
	for _, c := range irqChecks(f) {
		advised = advised || (strings.Contains(c.Why, "tune --irqs") && strings.Contains(c.Value, "208 ufshcd") && !strings.Contains(c.Value, "arch_timer"))
	}
	if !advised {
		t.Errorf("a movable IRQ on the target is not advised: %+v", irqChecks(f))
	}
}

// The IRQs a tune could not move are said, each with its errno; a
// refusal recorded before refusals named their IRQ is said by its number.
func TestUnmovedIRQs(t *testing.T) {
	r := &evidence.TuneResult{Refused: []evidence.Refusal{
		{Change: evidence.Change{Path: "proc/irq/0/smp_affinity_list", What: "IRQ 0 (timer)"}, Errno: "EIO",
			Error: `writing "0" to proc/irq/0/smp_affinity_list: input/output error (EIO)`},
		{Change: evidence.Change{Path: "proc/irq/2/smp_affinity_list"}, Error: `writing "0" to proc/irq/2/smp_affinity_list: it reads back "0-1"`},
		{Change: evidence.Change{Path: "sys/fs/cgroup/cpuset/x/cpuset.cpus"}, Error: "busy"},
	}}
	want := []string{
		"IRQ 0 (timer): the kernel refuses to move it (EIO)",
		`IRQ 2: the kernel did not keep the new affinity: writing "0" to proc/irq/2/smp_affinity_list: it reads back "0-1"`,
	}
	if got := UnmovedIRQs(r); !slices.Equal(got, want) {
		t.Errorf("unmoved %q, want %q", got, want)
	}
}
