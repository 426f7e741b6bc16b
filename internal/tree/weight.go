package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/sched"
)

// Where sched_autogroup_enabled is 1 (the default of Debian, Ubuntu and
// Fedora kernels) every session is a task group of its own: the kernel
// first shares a CPU between the sessions that want it, at equal weight,
// and only then, inside each session, by nice. A command at nice -20 beside
// two busy loops started in other sessions got a third of the CPU here. A
// task in a cpu cgroup other than the root is outside autogroup, so corepin
// puts a run whose accepted step sets a nice value into a cpu cgroup of
// its own whose weight is that nice value's: against the other sessions
// the tree then weighs what one task at that nice would.
//
// The scopes below say, in the report, what makes the read-back priority
// act.
const (
	// ScopeAutogroup: the nice value orders the work only against the
	// other tasks of its own session; every other session gets as much of
	// the CPU as the work's whole session.
	ScopeAutogroup = "autogroup (session only)"
	// ScopeNoAutogroup: the kernel has no autogroup, or it is turned off;
	// the nice value orders the work against every task of its cgroup.
	ScopeNoAutogroup = "no autogroup"
	// ScopeRealtime: a realtime policy runs before every normal task,
	// whatever its session or cgroup.
	ScopeRealtime = "realtime"
)

// scopeWeight is the scope of a run in a weighted cpu cgroup, with the
// weight the kernel reads back.
func scopeWeight(weight int) string { return fmt.Sprintf("cpu cgroup weight %d", weight) }

// niceWeights is the kernel's sched_prio_to_weight (kernel/sched/core.c):
// the weight of nice -20 to 19, each step about 1.25 times the next, nice
// 0 at 1024.
var niceWeights = [40]int{
	88761, 71755, 56483, 46273, 36291,
	29154, 23254, 18705, 14949, 11916,
	9548, 7620, 6100, 4904, 3906,
	3121, 2501, 1991, 1586, 1277,
	1024, 820, 655, 526, 423,
	335, 272, 215, 172, 137,
	110, 87, 70, 56, 45,
	36, 29, 23, 18, 15,
}

// The bounds of cgroup v1 cpu.shares (MIN_SHARES, MAX_SHARES).
const (
	minShares = 2
	maxShares = 1 << 18
)

// NiceWeight is the load weight the kernel gives a task at nice n, as
// cpu.shares takes it: clamped to -20..19 as sched_setattr clamps it, and
// to cpu.shares' bounds.
func NiceWeight(n int) int {
	n = min(max(n, -20), 19)
	return min(max(niceWeights[n+20], minShares), maxShares)
}

// autogroupFile is the kernel's switch for autogroup; it is missing where
// the kernel was built without CONFIG_SCHED_AUTOGROUP.
const autogroupFile = "/proc/sys/kernel/sched_autogroup_enabled"

// Autogroup says whether the kernel under root groups tasks by session,
// and the file that says so.
func Autogroup(root fsroot.Root) (enabled bool, evidence string) {
	data, err := root.ReadFile(autogroupFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, root.Path(autogroupFile) + " is missing (a kernel without CONFIG_SCHED_AUTOGROUP)"
	}
	if err != nil {
		return false, fmt.Sprintf("%s cannot be read: %v", root.Path(autogroupFile), errors.Unwrap(err))
	}
	v := strings.TrimSpace(string(data))
	return v == "1", fmt.Sprintf("%s says %q", root.Path(autogroupFile), v)
}

// priorityScope says, for what the work's thread reads back, whether a
// weighted cpu cgroup is wanted to make its nice value act, and the scope
// the priority has without one. A realtime policy never enters one: with
// CONFIG_RT_GROUP_SCHED a new v1 cpu group has no realtime runtime, and a
// realtime task can neither run in it nor be moved into it. SCHED_IDLE's
// weight does not depend on nice, and nice 0 asks for nothing.
func priorityScope(a sched.Attr, autogroup bool) (weighted bool, scope string) {
	switch {
	case a.Policy.Realtime() || a.Policy == sched.Deadline:
		return false, ScopeRealtime
	case !autogroup:
		if a.Nice == 0 && a.Policy != sched.Idle {
			return false, ""
		}
		return false, ScopeNoAutogroup
	case a.Policy == sched.Idle:
		return false, ScopeAutogroup
	case a.Nice == 0:
		return false, ""
	}
	return true, ScopeAutogroup
}
