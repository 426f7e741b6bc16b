//go:build linux

// Command launchfloor is the least a Go program can do to start a command
// on one CPU: lock its thread, set the thread's mask and a nice value, fork
// and exec the command from that thread, wait for it and exit with its
// status. No flags, no topology, no read-back, no watcher, no restore.
//
// With -replace it does not fork: the set-up thread becomes the command
// with execve, as taskset and chrt do, which is the floor under corepin
// exec --replace.
//
// bench/launch.sh times it beside corepin exec and taskset + chrt: it is
// the floor that any launcher written in Go stands on, on this machine.
//
//	launchfloor [-replace] CPU COMMAND [ARG...]
package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

func main() {
	args := os.Args[1:]
	replace := len(args) > 0 && args[0] == "-replace"
	if replace {
		args = args[1:]
	}
	if len(args) < 2 {
		os.Stderr.WriteString("usage: launchfloor [-replace] CPU COMMAND [ARG...]\n")
		os.Exit(2)
	}
	cpu, err := strconv.Atoi(args[0])
	if err != nil {
		os.Stderr.WriteString("launchfloor: bad CPU\n")
		os.Exit(2)
	}
	runtime.LockOSThread() // fork from the thread that was set up
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		os.Stderr.WriteString("launchfloor: " + err.Error() + "\n")
		os.Exit(1)
	}
	unix.Setpriority(unix.PRIO_PROCESS, 0, -20) // this thread only; refused without privilege
	if replace {
		path, err := exec.LookPath(args[1])
		if err == nil {
			err = unix.Exec(path, args[1:], os.Environ())
		}
		os.Stderr.WriteString("launchfloor: " + err.Error() + "\n")
		os.Exit(127)
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		os.Stderr.WriteString("launchfloor: " + err.Error() + "\n")
		os.Exit(127)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
