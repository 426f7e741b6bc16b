package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// offTarget keeps the checker's own threads off cpu while a check's
// command runs there: a checker that polls /proc beside the command
// under TCG takes a tenth of the target, which corepin rightly counts as
// others' time. Threads the Go runtime starts meanwhile are cloned from
// one already off. start starts a command with the checker's old mask,
// from a thread given that mask back for the fork, so that corepin
// chooses its target among the CPUs it would have had; restore gives
// every thread the old mask back.
func offTarget(cpu int) (start func(*exec.Cmd) error, restore func(), err error) {
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, nil, fmt.Errorf("reading the checker's CPUs: %w", err)
	}
	off := old
	off.Clear(cpu)
	if off.Count() == 0 {
		return nil, nil, fmt.Errorf("the checker may use only CPU %d", cpu)
	}
	setAll := func(set *unix.CPUSet) {
		tasks, _ := os.ReadDir("/proc/self/task")
		for _, e := range tasks {
			if tid, err := strconv.Atoi(e.Name()); err == nil {
				unix.SchedSetaffinity(tid, set)
			}
		}
	}
	setAll(&off)
	start = func(cmd *exec.Cmd) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := unix.SchedSetaffinity(0, &old); err != nil {
			return fmt.Errorf("giving the forking thread its CPUs back: %w", err)
		}
		defer unix.SchedSetaffinity(0, &off)
		return cmd.Start()
	}
	return start, func() { setAll(&old) }, nil
}
