package experiment

import "syscall"

// childAttr makes a competing process die with the thread that forked it,
// should corepin die without stopping the load.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
