package session_test

import (
	"fmt"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/session"
	"corepin.dev/corepin/topology"
)

// Run the work on the best core of the fastest group, with the Geekbench
// ladder, and keep the scheduling evidence with the result.
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
	report, err := session.Run(session.Request{
		CPU:    target.ExactCPU,
		Ladder: session.GeekbenchLadder(),
		Accept: session.ExactRule(),
	}, func(s *session.Session) error {
		sum := 0
		for i := range 1_000_000 {
			sum += i
		}
		_, err := s.Observe() // read back at a boundary, ask for nothing
		return err
	})
	if err != nil {
		fmt.Println("not run:", err)
		return
	}
	fmt.Println(report.Readback.ExactAtReadback, report.Restore.OK)
}

// A long run re-asserts what drifted at its own boundaries.
func ExampleSession_Refresh() {
	_, _ = session.Run(session.Request{CPU: 0, Ladder: session.AffinityOnly()}, func(s *session.Session) error {
		for range 3 {
			// ... one timed chunk of work ...
			if _, err := s.Refresh(); err != nil {
				return err
			}
		}
		return nil
	})
}
