package launch

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/workloads"
)

// The reserved first arguments that make corepin a helper process.
const (
	// Arg makes corepin the launcher (see Main).
	Arg = "__corepin-launch"
	// SpinArg makes corepin a competing CPU-bound process (see Spin).
	SpinArg = "__corepin-spin"
	// WorkloadArg makes corepin run one built-in workload and print its
	// result as JSON: corepin workload NAME --size quick|full.
	WorkloadArg = "workload"
)

// Verb is a reserved first argument and what it runs: the rest of the
// arguments in, an exit status out.
type Verb struct {
	Name string
	Main func(args []string) int
}

// Verbs are the helper processes corepin (or a test binary standing in
// for it) answers to. It is the one table of them: main and every TestMain
// that stands in for corepin call Dispatch with it.
func Verbs() []Verb {
	return []Verb{
		{Arg, func([]string) int { Main(); return 1 }},
		{SpinArg, func([]string) int { Spin(); return 1 }},
		{GuardArg, guardMain},
		{WorkloadArg, func(args []string) int { return runWorkload(args, os.Stdout, os.Stderr) }},
	}
}

// Dispatch runs the verb that args[1] names, if any, and exits with its
// status; otherwise it returns at once. It is the first thing main does,
// so that a helper costs no more than the runtime's own start.
func Dispatch(args []string) {
	if len(args) < 2 {
		return
	}
	for _, v := range Verbs() {
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

// runWorkload is "corepin workload NAME --size S": it runs one built-in
// workload in a process of its own, as corepin run starts it on target,
// and prints its result as JSON.
func runWorkload(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(WorkloadArg, flag.ContinueOnError)
	fs.SetOutput(stderr)
	size := fs.String("size", string(workloads.Full), "full or quick")
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "corepin %s: %s (usage: corepin %s NAME --size full|quick)\n", WorkloadArg, msg, WorkloadArg)
		return 2
	}
	var names []string
	for len(args) > 0 { // the name may come before or after the flag
		if err := fs.Parse(args); err != nil {
			return 2
		}
		args = fs.Args()
		if len(args) > 0 {
			names, args = append(names, args[0]), args[1:]
		}
	}
	if len(names) != 1 {
		return usage("want one workload name")
	}
	w, ok := workloads.ByName(names[0])
	if !ok {
		return usage(fmt.Sprintf("no built-in workload %q", names[0]))
	}
	res, err := w.Run(workloads.Size(*size))
	if err != nil {
		fmt.Fprintf(stderr, "corepin %s: %v\n", WorkloadArg, err)
		return 1
	}
	if err := json.NewEncoder(stdout).Encode(res); err != nil {
		return 1
	}
	return 0
}

// IsVerb says whether name is one of the helper verbs Dispatch runs.
func IsVerb(name string) bool {
	for _, v := range Verbs() {
		if v.Name == name {
			return true
		}
	}
	return false
}
