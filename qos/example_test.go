package qos_test

import (
	"fmt"
	"runtime"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/qos"
)

// Each portable level and what it means on a Linux kernel without the
// HarmonyOS QoS node: a policy, a nice value and, where the kernel has
// uclamp, a utilisation clamp.
func Example() {
	for _, l := range qos.Levels() {
		s := l.Linux()
		clamp := "system default"
		if s.Uclamp {
			clamp = fmt.Sprintf("%d-%d", s.UclampMin, s.UclampMax)
		}
		fmt.Printf("%d %-17s %-6v nice %3d  uclamp %s\n", int(l), l, s.Policy, s.Nice, clamp)
	}
	// Output:
	// 0 background        batch  nice  10  uclamp 0-205
	// 1 utility           batch  nice   5  uclamp 0-512
	// 2 default           other  nice   0  uclamp system default
	// 3 user-initiated    other  nice  -5  uclamp 512-1024
	// 4 deadline-request  other  nice -10  uclamp 768-1024
	// 5 user-interactive  other  nice -10  uclamp 1024-1024
}

// A level may be named by its name, OpenHarmony's constant or its number.
func ExampleParse() {
	for _, s := range []string{"user-interactive", "QOS_BACKGROUND", "qos3", "fast"} {
		l, err := qos.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(s, "is", l)
	}
	// Output:
	// user-interactive is user-interactive
	// QOS_BACKGROUND is background
	// qos3 is user-initiated
	// unknown QoS level "fast" (want one of background, utility, default, user-initiated, deadline-request, user-interactive, or 0-5)
}

// Give the calling thread a level through the HarmonyOS kernel's QoS
// node. The level belongs to a thread, so the goroutine keeps its thread
// while it holds one. Where there is no node, session.QoSLadder asks for
// the level's Linux setting instead, and the session reads back what took
// effect.
func ExampleSet() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if !qos.HasNode(fsroot.Host) {
		fmt.Println("no QoS node at", qos.NodePath)
		return
	}
	if err := qos.Set(qos.UserInteractive); err != nil {
		fmt.Println(err)
		return
	}
	defer qos.Leave()
	if l, known, err := qos.Get(); err == nil && known {
		fmt.Println("running at", l)
	}
	// ... the work ...
}
