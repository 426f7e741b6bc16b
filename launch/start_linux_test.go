package launch

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/session"
)

// A forking thread that cannot leave the target is not kept quiet: the
// report's note on corepin's threads says it stayed there and why.
func TestForkingThreadThatStaysOnTargetIsNoted(t *testing.T) {
	cpu := needsTwoCPUs(t)
	run := func() *Report {
		t.Helper()
		rep, err := Run(context.Background(), Config{Request: session.Request{CPU: cpu, Ladder: session.AffinityOnly()}, Args: []string{"true"}})
		if err != nil || rep.Start != StartFork || rep.ExitCode() != 0 {
			t.Fatalf("%v, start %s, exit %d", err, rep.Start, rep.ExitCode())
		}
		return rep
	}
	const stays = "the thread that forked the command stays on the target"
	rep := run()
	if rep.Parent.CPUs.IsEmpty() || !rep.Parent.CPUs.Intersect(cpuset.Of(cpu)).IsEmpty() {
		t.Skipf("corepin's threads are not kept off CPU %d here (%s): its forking thread stays by design", cpu, rep.Parent.Note)
	}
	if strings.Contains(rep.Parent.Note, stays) {
		t.Fatalf("a thread that could move is noted as staying: %q", rep.Parent.Note)
	}
	moveThread = func(int, cpuset.Set) error { return unix.EPERM }
	defer func() { moveThread = sched.SetAffinity }()
	rep = run()
	if !strings.Contains(rep.Parent.Note, stays) || !strings.Contains(rep.Parent.Note, "operation not permitted") {
		t.Errorf("the forking thread could not move; the note says %q", rep.Parent.Note)
	}
}
