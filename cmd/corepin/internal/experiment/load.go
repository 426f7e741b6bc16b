// Package experiment runs corepin's two scheduling experiments on the
// machine at hand, each beside the published figures it follows (cited in
// docs/experiments.md): a key thread under heavy load at a low versus a high QoS
// level, and static versus dynamic partitioning of a parallel loop on
// asymmetric cores (real ones, or slow cores emulated by competing
// processes).
package experiment

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/launch"
)

// SpinArg is the reserved first argument that makes corepin a competing
// CPU-bound process (launch.Spin).
const SpinArg = launch.SpinArg

// load is a set of competing CPU-bound processes, each pinned to one CPU.
// They are processes, not goroutines: goroutines would also compete for the
// Go runtime's Ps, and the kernel's scheduler (nice, weights) would no
// longer be what decides the shares.
type load struct {
	pinned []*launch.Pinned
	procs  []*os.Process
}

// startLoad starts n spinning processes on each CPU of cpus, at the
// default policy and nice value, pinned from birth by launch.StartPinned:
// should corepin die, they die with it. apart puts each in a session of
// its own (setsid), and so, where autogroup is on, in a task group of its
// own that weighs as much as corepin's whole session.
func startLoad(self string, cpus cpuset.Set, n int, apart bool) (*load, error) {
	if self == "" {
		var err error
		if self, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	l := &load{}
	for _, cpu := range cpus.CPUs() {
		cmds := make([]*exec.Cmd, n)
		for i := range cmds {
			cmds[i] = exec.Command(self, SpinArg)
			cmds[i].Env = append(os.Environ(), "GOMAXPROCS=1")
			cmds[i].SysProcAttr = &syscall.SysProcAttr{Setsid: apart}
		}
		p, err := launch.StartPinned(cpu, cmds...)
		if err != nil {
			l.Stop()
			return nil, fmt.Errorf("starting the competing processes on CPU %d: %w", cpu, err)
		}
		l.pinned = append(l.pinned, p)
		l.procs = append(l.procs, p.Processes()...)
	}
	return l, nil
}

// Stop ends the load and waits for its processes.
func (l *load) Stop() {
	if l == nil {
		return
	}
	for _, p := range l.pinned {
		p.Stop()
	}
	l.pinned = nil
}
