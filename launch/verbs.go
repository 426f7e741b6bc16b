package launch

import (
	"fmt"
	"os"
	"runtime"

	"corepin.dev/corepin/sched"
)

// The reserved first arguments that make corepin a helper process.
const (
	// Arg makes corepin the launcher (see Main).
	Arg = "__corepin-launch"
	// SpinArg makes corepin a competing CPU-bound process (see Spin).
	SpinArg = "__corepin-spin"
)

// Verb is a reserved first argument and what it runs: the rest of the
// arguments in, an exit status out.
type Verb struct {
	Name string
	Main func(args []string) int
}

// Verbs are the helper processes that launch itself starts: the launcher
// and a competing process. A program adds its own to them when it
// dispatches (corepin adds its guard and a built-in workload's child; see
// runner.Dispatch), so that launch needs to know nothing of what they run.
func Verbs() []Verb {
	return []Verb{
		{Arg, func([]string) int { Main(); return 1 }},
		{SpinArg, func([]string) int { Spin(); return 1 }},
	}
}

// Dispatch runs the verb, of Verbs and more, that args[1] names, if any,
// and exits with its status; otherwise it returns at once. It is the
// first thing main does, so that a helper costs no more than the
// runtime's own start.
func Dispatch(args []string, more ...Verb) {
	if len(args) < 2 {
		return
	}
	for _, v := range append(Verbs(), more...) {
		if v.Name == args[1] {
			os.Exit(v.Main(args[2:]))
		}
	}
}

// Spin spins until killed: a competing process for the experiments, which
// start it pinned (StartPinned). It asks for the shortest EEVDF slice
// (Linux 6.12+; elsewhere the request is refused and ignored): a slow CPU
// emulated by time-sharing then hands its share out in 0.1 ms turns, so a
// worker there is slowed evenly, as on a truly slow core, instead of
// stalling a barrier for whole multi-millisecond slices.
func Spin() {
	runtime.LockOSThread()
	sched.SetAttr(0, sched.Attr{Policy: sched.Normal, Runtime: 100_000})
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			fmt.Println(x)
		}
	}
}

// IsVerb says whether name is one of the helper verbs Dispatch runs, of
// Verbs and more.
func IsVerb(name string, more ...Verb) bool {
	for _, v := range append(Verbs(), more...) {
		if v.Name == name {
			return true
		}
	}
	return false
}
