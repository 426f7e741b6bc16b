//go:build !linux

package interrupt

import "syscall"

// raiseHere sends sig to the process; without tgkill it cannot go to the
// calling thread, so another thread may take it a moment after the call.
func raiseHere(sig syscall.Signal) {
	syscall.Kill(syscall.Getpid(), sig)
}
