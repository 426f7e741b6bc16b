package runner

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// startDyingWithTest starts cmd so that the kernel ends it with the test
// binary, also one ended by its -test.timeout. The parent-death signal
// follows the thread that forked, not the process: a helper forked from
// an ordinary thread died with it when that thread later ran a locked
// goroutine that exited (a session thread of --isolation thread), half
// way through a test. So every helper is forked by one thread that is
// never given back, and lives as long as the binary.
func startDyingWithTest(cmd *exec.Cmd) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	done := make(chan error)
	forker() <- func() { done <- cmd.Start() }
	return <-done
}

var forker = sync.OnceValue(func() chan<- func() {
	jobs := make(chan func())
	go func() {
		runtime.LockOSThread() // never unlocked: the thread outlives every helper
		for job := range jobs {
			job()
		}
	}()
	return jobs
})
