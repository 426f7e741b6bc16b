package cgroupfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/procfs"
)

// corepin names every cgroup it makes with its mark, so that one left
// behind by a corepin that was killed can be told from another's, from
// one that still runs, and from anything a person or another tool made:
//
//   - a run's cgroup: corepin-PID-sSTART-nsINODE-N (the same name in
//     every hierarchy);
//   - a CPU bandwidth limit's: corepin-bandwidth-PID-sSTART-nsINODE-N.
//
// PID and START (clock ticks since boot, /proc/PID/stat field 22) name
// the corepin process for as long as it lives; INODE is its PID
// namespace's (/proc/self/ns/pid), without which a PID means nothing: a
// corepin under `unshare -p` that is PID 30001 in its namespace shares a
// cgroup v1 hierarchy with the host, where 30001 is someone else or
// nobody. A sweep ends a cgroup's processes only when its name carries
// the mark, the namespace is the sweeper's own, and the process it names
// is gone (see Stale). The mark lives in the name because the name is
// the one thing every cgroup has on every kernel: a cgroup v1 directory
// takes no files but the controllers' own, and extended attributes on
// cgroup file systems need Linux 5.7 (user.* on v2), or cgroup v1
// mounted with the xattr option, where phones' kernels are older. The
// name is made with the directory, in one mkdir, so no cgroup of
// corepin's is ever without its mark.
//
// (A shield's, corepin-shield-PID, is the system package's; an older
// corepin's corepin-PID-N carries no mark and is never ended.)
const (
	runPrefix       = "corepin-"
	bandwidthPrefix = "corepin-bandwidth-"
)

// RunMark is what a cgroup's name says of the corepin that made it.
type RunMark struct {
	Owner procfs.Process // the maker, by PID and start time
	// Namespace is the inode of the maker's PID namespace, in which its
	// PID is the one named; 0 where it could not be read, which matches
	// no namespace.
	Namespace uint64
}

// String is the mark as a name holds it, PID-sSTART-nsINODE.
func (m RunMark) String() string {
	return fmt.Sprintf("%d-s%d-ns%d", m.Owner.PID, m.Owner.Start, m.Namespace)
}

// MarkOf is the mark of process pid as seen under root: its start time
// and its PID namespace.
func MarkOf(root fsroot.Root, pid int) (RunMark, error) {
	p, err := procfs.Identify(root, pid)
	if err != nil {
		return RunMark{}, fmt.Errorf("reading the start time of process %d: %w", pid, err)
	}
	ns, err := procfs.PIDNamespace(root, strconv.Itoa(pid))
	if err != nil {
		return RunMark{}, err
	}
	return RunMark{Owner: p, Namespace: ns}, nil
}

// selfMark is this process's mark, read once: neither its start time nor
// its PID namespace changes. What cannot be read stays 0, which a sweep
// never takes for a dead corepin's.
var selfMark = sync.OnceValue(func() RunMark {
	m := RunMark{Owner: procfs.Process{PID: os.Getpid()}}
	if p, err := procfs.Identify(fsroot.Host, os.Getpid()); err == nil {
		m.Owner = p
	}
	m.Namespace, _ = procfs.PIDNamespace(fsroot.Host, "self")
	return m
})

// SelfMark is this process's mark.
func SelfMark() RunMark { return selfMark() }

// runSeq and bandwidthSeq make the names of one process's cgroups unique.
var runSeq, bandwidthSeq atomic.Int64

// NewRunName is the name of this process's next run cgroup.
func NewRunName() string { return RunName(SelfMark()) }

// RunName is a new name for a run cgroup of the corepin m names, unique
// in this process.
func RunName(m RunMark) string { return fmt.Sprintf("%s%s-%d", runPrefix, m, runSeq.Add(1)) }

// ParseRunName reads the mark of a run cgroup's name; ok is false for any
// other name: a bandwidth or shield cgroup's, an older corepin's
// corepin-PID-N, or one without the whole mark.
func ParseRunName(name string) (RunMark, bool) {
	rest, ok := strings.CutPrefix(name, runPrefix)
	if !ok {
		return RunMark{}, false
	}
	return parseMark(rest)
}

// NewBandwidthName is the name of this process's next bandwidth cgroup.
func NewBandwidthName() string {
	return fmt.Sprintf("%s%s-%d", bandwidthPrefix, SelfMark(), bandwidthSeq.Add(1))
}

// ParseBandwidthName reads the mark of a bandwidth cgroup's name,
// corepin-bandwidth-PID-sSTART-nsINODE-N.
func ParseBandwidthName(name string) (RunMark, bool) {
	rest, ok := strings.CutPrefix(name, bandwidthPrefix)
	if !ok {
		return RunMark{}, false
	}
	return parseMark(rest)
}

// parseMark reads PID-sSTART-nsINODE-N. Every number is plain decimal,
// so that one mark has one name.
func parseMark(s string) (RunMark, bool) {
	f := strings.Split(s, "-")
	if len(f) != 4 {
		return RunMark{}, false
	}
	start, ok1 := strings.CutPrefix(f[1], "s")
	ns, ok2 := strings.CutPrefix(f[2], "ns")
	pid, err1 := strconv.Atoi(f[0])
	st, err2 := strconv.ParseUint(start, 10, 64)
	inode, err3 := strconv.ParseUint(ns, 10, 64)
	seq, err4 := strconv.Atoi(f[3])
	if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || err4 != nil || pid <= 0 || seq <= 0 {
		return RunMark{}, false
	}
	m := RunMark{Owner: procfs.Process{PID: pid, Start: st}, Namespace: inode}
	if m.String()+"-"+strconv.Itoa(seq) != s {
		return RunMark{}, false // leading zeros, a sign
	}
	return m, true
}
