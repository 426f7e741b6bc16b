//go:build !linux

package sched

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"corepin.dev/corepin/cpuset"
)

func unsupported(call string) error {
	return fmt.Errorf("%s: %w on this system", call, errors.ErrUnsupported)
}

// Gettid returns 0: thread ids are a Linux notion here.
func Gettid() int { return 0 }

// Getpid returns 0 on systems corepin does not support.
func Getpid() int { return 0 }

// GetAttr is unsupported outside Linux.
func GetAttr(int) (Attr, error) { return Attr{}, unsupported("sched_getattr") }

// SetAttr is unsupported outside Linux.
func SetAttr(int, Attr) error { return unsupported("sched_setattr") }

// SetUclamp is unsupported outside Linux.
func SetUclamp(int, uint32, uint32, bool) error { return unsupported("sched_setattr") }

// GetAffinity is unsupported outside Linux.
func GetAffinity(int) (cpuset.Set, error) { return cpuset.Set{}, unsupported("sched_getaffinity") }

// SetAffinity is unsupported outside Linux.
func SetAffinity(int, cpuset.Set) error { return unsupported("sched_setaffinity") }

// GetNice is unsupported outside Linux.
func GetNice(int) (int, error) { return 0, unsupported("getpriority") }

// SetNice is unsupported outside Linux.
func SetNice(int, int) error { return unsupported("setpriority") }

// GetCPU is unsupported outside Linux.
func GetCPU() (int, error) { return -1, unsupported("getcpu") }

// ThreadCPUTime is unsupported outside Linux.
func ThreadCPUTime(int) (time.Duration, error) { return 0, unsupported("clock_gettime") }

// Tick is unsupported outside Linux.
func Tick() (time.Duration, error) { return 0, unsupported("clock_getres") }

// ThreadAlive is always false outside Linux.
func ThreadAlive(int) bool { return false }

// ProcessAlive is always false outside Linux.
func ProcessAlive(int) bool { return false }

// Throwaway locks the goroutine to its thread; there is nothing to undo
// outside Linux.
func Throwaway() (done func()) {
	runtime.LockOSThread()
	return func() {}
}
