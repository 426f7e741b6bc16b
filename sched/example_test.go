package sched_test

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
)

// Put the calling thread on one CPU of those it may use and read back
// where the kernel holds it. The thread's state is changed, so the work
// runs on a throwaway thread, which the runtime destroys afterwards.
func Example() {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer sched.Throwaway()() // locks the goroutine to its thread
		mask, err := sched.GetAffinity(0)
		if err != nil {
			fmt.Println(err)
			return
		}
		cpu := mask.Last()
		if err := sched.SetAffinity(0, cpuset.Of(cpu)); err != nil {
			fmt.Println(err, sched.ErrnoName(err))
			return
		}
		back, _ := sched.GetAffinity(0)
		now, _ := sched.GetCPU()
		fmt.Printf("asked for CPU %d: mask %v, running on CPU %d\n", cpu, back, now)
		if a, err := sched.GetAttr(0); err == nil {
			fmt.Println(a.Policy, "nice", a.Nice, "uclamp", a.UtilMin, a.UtilMax)
		}
	}()
	<-done
}

// A policy and its priority as chrt takes them.
func ExampleParsePolicyPriority() {
	for _, s := range []string{"fifo:10", "rr:1", "batch", "fifo:high"} {
		p, prio, err := sched.ParsePolicyPriority(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(p, prio, p.Realtime())
	}
	// Output:
	// fifo 10 true
	// rr 1 true
	// batch 0 false
	// policy "fifo:high": the priority must be a number
}
