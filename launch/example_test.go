package launch_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// Run a short command on the best core of the fastest group: the command
// is forked from a thread already placed and read back, watched while it
// runs, and its whole process tree is ended when it exits. The report is
// the evidence: where the thread was read back, whether the rule accepted
// it, and what the watcher saw of the command's own threads.
func Example() {
	topo, err := topology.Read(fsroot.Host)
	if err != nil {
		fmt.Println(err)
		return
	}
	target, err := topo.Select("prime")
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := launch.Run(context.Background(), launch.Config{
		Request: session.Request{
			CPU:    target.ExactCPU,
			Ladder: session.AffinityOnly(),
		},
		Args:        []string{"sh", "-c", "echo on CPU $(cut -d' ' -f39 /proc/self/stat)"},
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Timeout:     10 * time.Second,
		WatchPeriod: 10 * time.Millisecond,
	})
	if err != nil {
		fmt.Println("corepin failed:", err) // not the command: its failures are in the report
		return
	}
	if rep.Refused != "" {
		fmt.Println("refused:", rep.Refused)
		return
	}
	fmt.Printf("read back on CPU %d (mask %v), accepted: %v\n", rep.Readback.CPU, rep.Readback.CPUs, rep.Accept.OK)
	fmt.Printf("exit code %d after %.3f s\n", rep.ExitCode(), rep.Child.WallS)
	if rep.Watch != nil && rep.Watch.OnTargetRatio != nil {
		fmt.Printf("on target for %.0f%% of its run time\n", *rep.Watch.OnTargetRatio*100)
	}
}

// Run Go code of this program on the target instead of a command: the
// work gets a session thread placed and read back, the program's other
// threads are kept off the target while it runs, and the report is the
// same as a command's, with the thread's own times as the child's.
func ExampleRunThread() {
	rep, err := launch.RunThread(context.Background(), launch.ThreadConfig{
		Request:     session.Request{CPU: 0, Ladder: session.AffinityOnly()},
		WatchPeriod: 10 * time.Millisecond,
	}, func(s *session.Session) error {
		sum := 0
		for i := range 10_000_000 {
			sum += i
		}
		_, err := s.Observe() // a read-back at the work's own boundary
		return err
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Start, rep.Readback.CPU, rep.Child.UserS)
}
