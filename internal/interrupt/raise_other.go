//go:build !linux

package interrupt

import "syscall"

// raiseHere sends sig to the process: only Linux can name a thread.
func raiseHere(sig syscall.Signal) {
	syscall.Kill(syscall.Getpid(), sig)
}
