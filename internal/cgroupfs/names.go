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
// one that still runs, and from anything a person or another tool made.
// One scheme names them all, a kind's prefix before the mark:
//
//   - a run's cgroup: corepin-PID-sSTART-nsINODE-N (the same name in
//     every hierarchy);
//   - a CPU bandwidth limit's: corepin-bandwidth-PID-sSTART-nsINODE-N;
//   - a shield's: corepin-shield-PID-sSTART-nsINODE-N.
//
// PID and START (clock ticks since boot, /proc/PID/stat field 22) name
// the corepin process for as long as it lives; INODE is its PID
// namespace's (/proc/self/ns/pid), without which a PID means nothing: a
// corepin under `unshare -p` that is PID 30001 in its namespace shares a
// cgroup v1 hierarchy with the host, where 30001 is someone else or
// nobody. A sweep ends a cgroup's processes only when its name carries
// the mark, the namespace is the sweeper's own, and the process it names
// is gone (OwnerGone, the one test of staleness). The mark lives in the
// name because the name is the one thing every cgroup has on every
// kernel: a cgroup v1 directory takes no files but the controllers' own,
// and extended attributes on cgroup file systems need Linux 5.7 (user.*
// on v2), or cgroup v1 mounted with the xattr option, where phones'
// kernels are older. The name is made with the directory, in one mkdir,
// so no cgroup of corepin's is ever without its mark.
//
// A shield outlives the corepin that made it (system tune --shield
// stands until system reset), so no sweep takes one for stale: its
// journal says when it goes. An older corepin's names carry no mark (a
// run's corepin-PID-N, a shield's corepin-shield-PID) and are never
// ended.
const (
	runPrefix       = "corepin-"
	bandwidthPrefix = "corepin-bandwidth-"
	shieldPrefix    = "corepin-shield-"
)

// Kind is what a cgroup of corepin's is for, which its name says.
type Kind int

// The kinds of corepin's cgroups.
const (
	Run Kind = iota
	Bandwidth
	Shield
)

// prefix begins the names of the kind.
func (k Kind) prefix() string {
	switch k {
	case Bandwidth:
		return bandwidthPrefix
	case Shield:
		return shieldPrefix
	}
	return runPrefix
}

// what names a cgroup of the kind in an error: "making the run's cgroup".
func (k Kind) what() string {
	switch k {
	case Bandwidth:
		return "the bandwidth"
	case Shield:
		return "the shield's"
	}
	return "the run's"
}

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

// seq makes the names of one process's cgroups unique.
var seq atomic.Int64

// NewName is the name of this process's next cgroup of kind k.
func NewName(k Kind) string { return name(k, SelfMark()) }

// NewRunName is the name of this process's next run cgroup.
func NewRunName() string { return NewName(Run) }

// RunName is a new name for a run cgroup of the corepin m names, unique
// in this process.
func RunName(m RunMark) string { return name(Run, m) }

func name(k Kind, m RunMark) string { return fmt.Sprintf("%s%s-%d", k.prefix(), m, seq.Add(1)) }

// ParseName reads the kind and mark of a cgroup's name; ok is false for
// any name without the whole mark: an older corepin's, or anything a
// person or another tool made.
func ParseName(name string) (k Kind, m RunMark, ok bool) {
	// The longer prefixes first: a run's is a prefix of the others'.
	for _, k := range []Kind{Bandwidth, Shield, Run} {
		if rest, found := strings.CutPrefix(name, k.prefix()); found {
			m, ok := parseMark(rest)
			return k, m, ok
		}
	}
	return Run, RunMark{}, false
}

// ParseRunName reads the mark of a run cgroup's name; ok is false for any
// other name: a bandwidth or shield cgroup's, an older corepin's
// corepin-PID-N, or one without the whole mark.
func ParseRunName(name string) (RunMark, bool) { return parseKind(Run, name) }

// NewBandwidthName is the name of this process's next bandwidth cgroup.
func NewBandwidthName() string { return NewName(Bandwidth) }

// ParseBandwidthName reads the mark of a bandwidth cgroup's name,
// corepin-bandwidth-PID-sSTART-nsINODE-N.
func ParseBandwidthName(name string) (RunMark, bool) { return parseKind(Bandwidth, name) }

// ParseShieldName reads the mark of a shield cgroup's name. An older
// corepin's corepin-shield-PID names its maker by PID alone: its mark
// has no start time or namespace, which OwnerGone never takes for gone.
func ParseShieldName(name string) (RunMark, bool) {
	if rest, ok := strings.CutPrefix(name, shieldPrefix); ok {
		if pid, err := strconv.Atoi(rest); err == nil && pid > 0 && strconv.Itoa(pid) == rest {
			return RunMark{Owner: procfs.Process{PID: pid}}, true
		}
	}
	return parseKind(Shield, name)
}

// IsShield says whether a cgroup's name is a shield's, by its prefix
// alone: the form of an older corepin's counts too.
func IsShield(name string) bool { return strings.HasPrefix(name, shieldPrefix) }

func parseKind(want Kind, name string) (RunMark, bool) {
	k, m, ok := ParseName(name)
	if !ok || k != want {
		return RunMark{}, false
	}
	return m, true
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
