package launch

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"corepin.dev/corepin/session"
)

// Pinned is a set of processes started on one CPU from birth, as launch
// starts a command: forked from a session thread of corepin placed on that
// CPU (forkOnTarget), so each begins as a copy of the thread's mask with
// nothing to race. They get the parent-death signal SIGKILL, and the
// thread that forked them stays until Stop, so that they end with corepin
// should it die without stopping them, and not before. The experiments use
// it for their competing processes.
type Pinned struct {
	procs []*os.Process
	hold  *holder
	done  chan struct{}
}

// StartPinned starts the commands on cpu, at the policy and nice value
// they inherit (the session asks for the affinity only). A command's own
// SysProcAttr is kept (Setsid puts it in a session, and so an autogroup,
// of its own); only its parent-death signal is set.
func StartPinned(cpu int, cmds ...*exec.Cmd) (*Pinned, error) {
	p := &Pinned{done: make(chan struct{})}
	p.hold = &holder{started: make(chan error, 1), release: make(chan struct{}), stop: p.kill}
	req := session.Request{CPU: cpu, Ladder: session.AffinityOnly()}
	start := func() error {
		for _, cmd := range cmds {
			if cmd.SysProcAttr == nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{}
			}
			cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
			if err := cmd.Start(); err != nil {
				return fmt.Errorf("starting %s on CPU %d: %w", cmd.Path, cpu, err)
			}
			p.procs = append(p.procs, cmd.Process)
		}
		return nil
	}
	result := make(chan error, 1)
	go func() {
		defer close(p.done)
		// start's own error goes through hold.started; what is left is a
		// session that never let it run.
		rep, _, err := forkOnTarget(req, start, p.hold)
		switch {
		case err != nil:
			result <- err
		case rep != nil && !rep.Accept.OK:
			result <- fmt.Errorf("pinning to CPU %d: %s", cpu, rep.Accept.Why)
		}
	}()
	// A forking thread that could not leave cpu (p.hold.offTarget) waits
	// there, blocked until Stop, beside the competing processes it
	// started: it takes no time on the CPU, so nothing more is said.
	select {
	case err := <-p.hold.started:
		if err != nil {
			close(p.hold.release)
			<-p.done
			return nil, err
		}
		return p, nil
	case err := <-result:
		<-p.done
		return nil, err
	}
}

// Processes are the started processes.
func (p *Pinned) Processes() []*os.Process { return p.procs }

// Stop kills the processes, waits for them and lets the forking thread go.
func (p *Pinned) Stop() {
	if p == nil {
		return
	}
	select {
	case <-p.hold.release:
	default:
		close(p.hold.release)
	}
	<-p.done
}

// kill runs on the forking thread, before it is put back.
func (p *Pinned) kill() {
	for _, proc := range p.procs {
		proc.Kill()
		proc.Wait()
	}
}
