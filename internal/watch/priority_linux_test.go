package watch

import (
	"os"
	"runtime"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/sched"
)

// A thread that a still-raised thread starts while the process is being
// put back is missed by the listing in hand; restoreProcess lists again
// until it finds no thread it has not put back. Here one raised thread is
// left out of the first listing, as if it were born just after it.
func TestRestoreFindsAThreadBornWhileRestoring(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("raising a thread to nice -20 needs root")
	}
	prev := map[int]sched.Attr{}
	for _, tid := range sched.OwnThreads(fsroot.Host) {
		if a, err := sched.GetAttr(tid); err == nil {
			prev[tid] = a
		}
	}
	born := make(chan int)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := sched.SetAttr(0, processNice); err != nil {
			born <- -1
			return
		}
		born <- unix.Gettid()
		<-stop
	}()
	late := <-born
	if late < 0 {
		t.Fatal("could not raise a thread to nice -20")
	}
	defer func(f func() []int) { ownThreads = f }(ownThreads)
	listings := 0
	ownThreads = func() []int {
		listings++
		tids := sched.OwnThreads(fsroot.Host)
		if listings == 1 {
			return slices.DeleteFunc(tids, func(tid int) bool { return tid == late })
		}
		return tids
	}
	restoreProcess(prev)
	a, err := sched.GetAttr(late)
	if err != nil {
		t.Fatal(err)
	}
	if a.Nice != prev[os.Getpid()].Nice || a.Policy != prev[os.Getpid()].Policy {
		t.Errorf("the thread born during the restore is left at %v nice %d (listed %d times)", a.Policy, a.Nice, listings)
	}
}
