// Package evidence holds the evidence a run keeps in run.json, as plain
// data: the scheduling report of the thread that did the work, what the
// watcher saw, the topology, the machine's condition and the output
// checks. It is what a reader of a results folder needs, and no more, so
// that a program that reads run.json does not link the launcher.
//
// Every type is declared here once, with its views, and has this one
// name: its producer fills it in and returns it as it is (session.Run's
// *Session, the watcher's Watch, the machine's Facts), and launch's
// report and topology's Topology hold theirs as their first field,
// beside what only the live process needs (the exec's times, the ways to
// choose a target). So run.json is written from these types and old
// folders are read back into them, key for key.
package evidence

import "unicode/utf8"

// Mode says how strictly the work was placed: Exact or Soft.
type Mode string

// The modes of a request; an empty mode is Exact.
const (
	// Exact: a one-CPU mask, the thread could run nowhere else.
	Exact Mode = "exact"
	// Soft: the target group's CPUs, the kernel chose among them.
	Soft Mode = "soft"
)

// Policy is a scheduling policy as run.json writes it: "other", "fifo",
// "rr", "batch", "idle" or "deadline". The empty policy is "other", as
// the kernel's policy 0 is SCHED_OTHER.
type Policy string

// Realtime reports whether p is FIFO or RR, the policies with a priority.
func (p Policy) Realtime() bool { return p == "fifo" || p == "rr" }

func (p Policy) String() string {
	if p == "" {
		return "other"
	}
	return string(p)
}

// MarshalText writes the policy's name.
func (p Policy) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// Errno is a system call's error as run.json writes it: its name
// ("EPERM", "EOPNOTSUPP"), or "errno N" for a number without one; "" for
// none.
type Errno string

func (e Errno) String() string { return string(e) }

// Outcome is the result of one output check.
type Outcome struct {
	What   string `json:"what"` // e.g. "stdout matches ref.out within reltol 1e-4"
	Passed bool   `json:"passed"`
	Detail string `json:"detail,omitempty"` // the first difference, when it failed
}

// Clip cuts s to at most max bytes, on a character's start, and marks the
// cut: what run.json keeps of a message or of a suite's text is bounded.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
