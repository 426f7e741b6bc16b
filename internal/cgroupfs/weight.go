package cgroupfs

// The bounds of cgroup v2 cpu.weight (CGROUP_WEIGHT_MIN,
// CGROUP_WEIGHT_MAX).
const (
	minWeight = 1
	maxWeight = 10000
)

// weightV2 is the cgroup v2 cpu.weight of a kernel load weight (as v1's
// cpu.shares takes it): the kernel keeps cpu.weight 100 as 1024
// (sched_weight_from_cgroup), so the weight is scaled, rounded and
// clamped as cpu.weight's own read-back rounds it. The linear map of
// shares 2..262144 onto weight 1..10000 that container runtimes use would
// make nice 0 a weight of 39, not 100, and would not carry the priority.
func weightV2(shares int) int {
	return min(max((shares*100+512)/1024, minWeight), maxWeight)
}

// sharesOfV2 is the kernel load weight of a cgroup v2 cpu.weight.
func sharesOfV2(w int) int { return (w*1024 + 50) / 100 }
