// Package sched is a thin layer over golang.org/x/sys/unix for the calls
// that place and prioritise one thread: affinity, sched_attr (policy, RT
// priority, nice, uclamp), per-thread nice, getcpu and thread CPU clocks.
//
// Every function takes a thread id; 0 means the calling thread, which in Go
// is only meaningful on a goroutine that called runtime.LockOSThread.
// Errors name the system call and keep the errno, so errors.Is(err,
// unix.EPERM) works through any wrapping. On other systems every function
// returns an error wrapping errors.ErrUnsupported.
package sched

import (
	"fmt"
	"strconv"
	"strings"
)

// Policy is a Linux scheduling policy.
type Policy int

// The policies of sched(7). Values are the kernel's.
const (
	Normal   Policy = 0 // SCHED_OTHER / SCHED_NORMAL
	FIFO     Policy = 1
	RR       Policy = 2
	Batch    Policy = 3
	Idle     Policy = 5
	Deadline Policy = 6
	Ext      Policy = 7
)

var policyNames = map[Policy]string{Normal: "other", FIFO: "fifo", RR: "rr", Batch: "batch", Idle: "idle", Deadline: "deadline", Ext: "ext"}

func (p Policy) String() string {
	if s, ok := policyNames[p]; ok {
		return s
	}
	return "policy" + strconv.Itoa(int(p))
}

// Realtime reports whether p is FIFO or RR, the policies with a priority.
func (p Policy) Realtime() bool { return p == FIFO || p == RR }

// MarshalText writes the policy's name.
func (p Policy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a policy name.
func (p *Policy) UnmarshalText(b []byte) error {
	q, err := ParsePolicy(string(b))
	*p = q
	return err
}

// ParsePolicy reads a policy name as chrt(1) and corepin print them:
// other (or normal), fifo, rr, batch, idle, deadline.
func ParsePolicy(s string) (Policy, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "normal" {
		return Normal, nil
	}
	for p, name := range policyNames {
		if s == name {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown scheduling policy %q (want other, fifo, rr, batch or idle)", s)
}

// sched_attr flags (include/uapi/linux/sched.h).
const (
	FlagResetOnFork  = 0x01
	FlagKeepPolicy   = 0x08
	FlagKeepParams   = 0x10
	FlagUtilClampMin = 0x20
	FlagUtilClampMax = 0x40
	FlagKeepAll      = FlagKeepPolicy | FlagKeepParams
	FlagUtilClamp    = FlagUtilClampMin | FlagUtilClampMax
)

// UclampMax is the top of the uclamp range; UclampReset asks the kernel to
// go back to the system default clamp (Linux 5.11+).
const (
	UclampMax   = 1024
	UclampReset = ^uint32(0)
)

// Attr is the part of struct sched_attr corepin uses.
type Attr struct {
	Policy   Policy `json:"policy"`
	Priority int    `json:"priority"` // 1-99 for FIFO and RR, else 0
	Nice     int    `json:"nice"`     // -20..19 for other and batch
	Flags    uint64 `json:"flags"`
	// Runtime is the DEADLINE runtime and, since Linux 6.12, the EEVDF
	// slice of a fair thread in ns. A read-back always reports the
	// current slice; writing it back pins a custom slice.
	Runtime  uint64 `json:"runtime_ns,omitempty"`
	Deadline uint64 `json:"deadline_ns,omitempty"`
	Period   uint64 `json:"period_ns,omitempty"`
	UtilMin  uint32 `json:"util_min"`
	UtilMax  uint32 `json:"util_max"`
}

// ParsePolicyPriority reads a policy with its priority as chrt(1) takes
// them on corepin's command line: "fifo:10", "rr:1", or a policy without a
// priority ("other", "batch", "idle"). The priority's range is checked where
// the request is validated.
func ParsePolicyPriority(s string) (Policy, int, error) {
	name, prioText, hasPrio := strings.Cut(s, ":")
	p, err := ParsePolicy(name)
	if err != nil {
		return 0, 0, err
	}
	if !hasPrio {
		return p, 0, nil
	}
	prio, err := strconv.Atoi(strings.TrimSpace(prioText))
	if err != nil {
		return 0, 0, fmt.Errorf("policy %q: the priority must be a number", s)
	}
	return p, prio, nil
}
