package cgroupfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// corepin names every cgroup it makes for the corepin process that made
// it, so that one left behind by a corepin that was killed can be told
// from another's, and from one that still runs:
//
//   - a run's cgroup: corepin-PID-N (the same name in every hierarchy);
//   - a CPU bandwidth limit's: corepin-bandwidth-PID-N.
//
// (A shield's, corepin-shield-PID, is the system package's.)
const (
	runPrefix       = "corepin-"
	bandwidthPrefix = "corepin-bandwidth-"
)

// runSeq and bandwidthSeq make the names of one process's cgroups unique.
var runSeq, bandwidthSeq atomic.Int64

// NewRunName is the name of this process's next run cgroup.
func NewRunName() string { return RunName(os.Getpid()) }

// RunName is a new name for a run cgroup of the corepin pid, unique in
// this process.
func RunName(pid int) string { return fmt.Sprintf("%s%d-%d", runPrefix, pid, runSeq.Add(1)) }

// RunOwner is the PID in a run cgroup's name, corepin-PID-N; ok is false
// for any other name (a bandwidth or shield cgroup's included).
func RunOwner(name string) (pid int, ok bool) { return owner(name, runPrefix) }

// NewBandwidthName is the name of this process's next bandwidth cgroup.
func NewBandwidthName() string {
	return fmt.Sprintf("%s%d-%d", bandwidthPrefix, os.Getpid(), bandwidthSeq.Add(1))
}

// BandwidthOwner is the PID in a bandwidth cgroup's name,
// corepin-bandwidth-PID-N.
func BandwidthOwner(name string) (pid int, ok bool) { return owner(name, bandwidthPrefix) }

// owner reads PREFIX PID-N.
func owner(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	p, n, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err1 := strconv.Atoi(p)
	_, err2 := strconv.Atoi(n)
	return pid, err1 == nil && err2 == nil && pid > 0
}
