// Package qos names portable levels of scheduling demand, from background
// work to user-interactive work, and says what each means on Linux-family
// kernels.
//
// The levels and their numbers are OpenHarmony's (QoS_Level 0..5), which
// also match Apple's five classes plus a deadline-style level. On a
// HarmonyOS/OpenHarmony kernel a level is requested through the kernel's
// per-thread QoS node (see Node). On other Linux kernels a level is a
// setting of policy, nice and uclamp (see Level.Linux); what took effect is
// always read back, never assumed.
package qos

import (
	"fmt"
	"strconv"
	"strings"

	"corepin.dev/corepin/sched"
)

// Level is a QoS level; the values are OpenHarmony's QoS_Level.
type Level int

// The levels, lowest demand first.
const (
	Background      Level = 0
	Utility         Level = 1
	Default         Level = 2
	UserInitiated   Level = 3
	DeadlineRequest Level = 4
	UserInteractive Level = 5
)

var names = []string{"background", "utility", "default", "user-initiated", "deadline-request", "user-interactive"}

// Levels returns every level, lowest first.
func Levels() []Level {
	return []Level{Background, Utility, Default, UserInitiated, DeadlineRequest, UserInteractive}
}

func (l Level) String() string {
	if l >= 0 && int(l) < len(names) {
		return names[l]
	}
	return "qos" + strconv.Itoa(int(l))
}

// Valid reports whether l is one of the six levels.
func (l Level) Valid() bool { return l >= Background && l <= UserInteractive }

// MarshalText writes the level's name.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// UnmarshalText reads a level name.
func (l *Level) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	*l = v
	return err
}

// Parse reads a level: its name ("user-interactive"), OpenHarmony's
// constant ("QOS_USER_INTERACTIVE") or number (5, "qos5").
func Parse(s string) (Level, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "qos_")
	t = strings.ReplaceAll(t, "_", "-")
	for i, n := range names {
		if t == n {
			return Level(i), nil
		}
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(t, "qos")); err == nil && Level(n).Valid() {
		return Level(n), nil
	}
	return 0, fmt.Errorf("unknown QoS level %q (want one of %s, or 0-5)", s, strings.Join(names, ", "))
}

// Setting is what a level means on a Linux kernel without a QoS node.
type Setting struct {
	Policy sched.Policy
	Nice   int
	// UclampMin and UclampMax are requested where the kernel has uclamp;
	// Uclamp false means "leave the clamp at the system default".
	Uclamp               bool
	UclampMin, UclampMax uint32
}

// Linux returns the level's setting for a mainline kernel. The mapping
// follows the vendors' own tables (OpenHarmony's foreground policy, Apple's
// classes, Android's thread priorities):
//
//	level             policy  nice  uclamp min-max  why
//	background        batch   10    0-205           small cores, lowest share; batch is reversible without privilege
//	utility           batch    5    0-512           below default, off the biggest cores
//	default           other    0    (system)        what a new thread gets
//	user-initiated    other   -5    512-1024        preferred on big cores, raised frequency
//	deadline-request  other  -10    768-1024        as fast as possible, not realtime
//	user-interactive  other  -10    1024-1024       the biggest core at its top frequency
//
// uclamp acts on placement (capacity- and energy-aware scheduling) and
// frequency (schedutil); nice acts on the CPU share under contention.
// Realtime is never part of a level: it needs privilege and starves the
// rest of the system. Ladders in the session package fall back to the nice
// part alone where uclamp is refused.
func (l Level) Linux() Setting {
	switch l {
	case Background:
		return Setting{Policy: sched.Batch, Nice: 10, Uclamp: true, UclampMin: 0, UclampMax: 205}
	case Utility:
		return Setting{Policy: sched.Batch, Nice: 5, Uclamp: true, UclampMin: 0, UclampMax: 512}
	case UserInitiated:
		return Setting{Policy: sched.Normal, Nice: -5, Uclamp: true, UclampMin: 512, UclampMax: 1024}
	case DeadlineRequest:
		return Setting{Policy: sched.Normal, Nice: -10, Uclamp: true, UclampMin: 768, UclampMax: 1024}
	case UserInteractive:
		return Setting{Policy: sched.Normal, Nice: -10, Uclamp: true, UclampMin: 1024, UclampMax: 1024}
	}
	return Setting{Policy: sched.Normal}
}
