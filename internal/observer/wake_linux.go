package observer

import (
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// waker wakes the loop's thread every period straight from the kernel: a
// timerfd and an eventfd (for Stop) in one poll. A Go ticker is fired by
// whichever runtime thread services timers, and that thread runs at the
// process's normal priority wherever corepin's threads may run, which is
// where the work's escaped threads compete; a watcher woken through it is
// starved with it, whatever its own priority. The kernel wakes a blocked
// thread itself.
type waker struct {
	timer, stop int
	mu          sync.Mutex
	closed      bool // the descriptors are closed (and their numbers may be reused)
}

func newWaker(period time.Duration) (*waker, error) {
	tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	ts := unix.NsecToTimespec(period.Nanoseconds())
	if err := unix.TimerfdSettime(tfd, 0, &unix.ItimerSpec{Interval: ts, Value: ts}, nil); err != nil {
		unix.Close(tfd)
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(tfd)
		return nil, err
	}
	return &waker{timer: tfd, stop: efd}, nil
}

// wait blocks until the next tick (true) or until wake was called (false).
func (w *waker) wait() bool {
	fds := []unix.PollFd{{Fd: int32(w.timer), Events: unix.POLLIN}, {Fd: int32(w.stop), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err == unix.EINTR {
			continue
		}
		if err != nil || fds[1].Revents != 0 {
			return false
		}
		if fds[0].Revents != 0 {
			var buf [8]byte // the count of expirations since the last read
			unix.Read(w.timer, buf[:])
			return true
		}
	}
}

// wake makes wait return false, now and from then on.
func (w *waker) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		one := [8]byte{1}
		unix.Write(w.stop, one[:])
	}
}

func (w *waker) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		unix.Close(w.timer)
		unix.Close(w.stop)
	}
}
