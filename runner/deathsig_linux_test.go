package runner

import "syscall"

// dieWithParent asks the kernel to end a helper process with the test
// binary that started it.
func dieWithParent() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
