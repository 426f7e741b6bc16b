package interrupt

import "syscall"

// raiseHere sends sig to the calling thread, so that it acts before the
// call returns; one sent to the process may be taken by another thread
// later.
func raiseHere(sig syscall.Signal) {
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
}
