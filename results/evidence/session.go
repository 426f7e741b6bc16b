package evidence

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
)

// Session (what session.Run returns) is everything a session asked for and
// everything the kernel said: it travels with every result, so that a run
// can be explained later from its files alone.
type Session struct {
	TID      int            `json:"tid"`
	Target   TargetReport   `json:"target"`
	Capture  Snapshot       `json:"capture"`
	Affinity AffinityResult `json:"affinity"`
	Ladder   LadderResult   `json:"ladder"`
	QoS      *QoSResult     `json:"qos_request,omitempty"`
	Readback Readback       `json:"readback"`
	Accept   AcceptResult   `json:"accept"`
	// Observations counts read-backs taken during the run (Observe and
	// Refresh); Reasserts counts requests made again because something
	// had drifted; Migrations counts changes of CPU between read-backs.
	Observations int           `json:"observations"`
	Reasserts    int           `json:"reasserts"`
	Migrations   int           `json:"migrations"`
	Restore      RestoreResult `json:"restore"`
	// Panic holds the value of a panic in the workload, recovered by session.Run.
	Panic string `json:"panic,omitempty"`
}

// TargetReport is where the session was asked to put the thread.
type TargetReport struct {
	Mode Mode       `json:"mode"`
	CPU  int        `json:"cpu"`  // the exact CPU
	CPUs cpuset.Set `json:"cpus"` // the mask asked for: {CPU} or the group
	// Node is the NUMA node holding every CPU of the mask, where the
	// caller knows it (corepin exec records it from the topology).
	Node *int `json:"node,omitempty"`
}

// Snapshot is a thread's scheduling state before the session changed it.
type Snapshot struct {
	CPUs cpuset.Set `json:"cpus"`
	// The attributes as reported; uclamp only where the kernel has it.
	Policy   Policy      `json:"policy"`
	Priority int         `json:"priority"`
	Flags    uint64      `json:"flags"`
	SliceNs  uint64      `json:"slice_ns,omitempty"`
	Uclamp   UclampState `json:"uclamp"`
	// Nice is read with getpriority: the kernel keeps a nice value for a
	// realtime thread but sched_getattr reports 0 for it.
	Nice int `json:"nice"`
	// QoS is the thread's level on a kernel with a QoS node; QoSKnown is
	// false for a thread that was never given one, which is not "default".
	QoS      *string `json:"qos"`
	QoSKnown bool    `json:"qos_known"`
	// Complete is false when a part could not be read; Missing says which.
	Complete bool     `json:"complete"`
	Missing  []string `json:"missing,omitempty"`
}

// AffinityResult is the affinity request.
type AffinityResult struct {
	Asked cpuset.Set `json:"asked"`
	OK    bool       `json:"ok"`
	Errno Errno      `json:"errno,omitempty"`
	Error string     `json:"error,omitempty"`
}

// LadderResult is the scheduling-attribute requests, step by step.
type LadderResult struct {
	Name  string       `json:"name"`
	Steps []StepResult `json:"steps"`
	// AcceptedStep is the 1-based number of the step whose read-back
	// matched, or 0 when none did (or the ladder was empty).
	AcceptedStep int `json:"accepted_step"`
}

// Held is the step whose read-back matched, nil when none did (or when a
// run.json names a step the ladder does not have).
func (l LadderResult) Held() *StepResult {
	if k := l.AcceptedStep; k > 0 && k <= len(l.Steps) {
		return &l.Steps[k-1]
	}
	return nil
}

// AboveUnsupported reports whether every step tried above the accepted
// one failed because the kernel lacks what it asks (uclamp on a kernel
// built without it): nothing a person can do on that machine.
func (l LadderResult) AboveUnsupported() bool {
	tried := 0
	for _, st := range l.Steps {
		if st.Step >= l.AcceptedStep || st.Skipped != "" {
			continue
		}
		tried++
		if st.Errno != "EOPNOTSUPP" && st.Errno != "ENOSYS" {
			return false
		}
	}
	return tried > 0 && l.AcceptedStep > 0
}

// StepResult is one step: what it asked, what the kernel answered, whether
// the read-back matched.
type StepResult struct {
	Step     int    `json:"step"`
	Asked    string `json:"asked"`
	Errno    Errno  `json:"errno,omitempty"`
	Error    string `json:"error,omitempty"`
	Skipped  string `json:"skipped,omitempty"`
	Accepted bool   `json:"accepted"`
	// Mismatch says what differed in the read-back of a step the kernel
	// took without error.
	Mismatch string `json:"mismatch,omitempty"`
}

// QoSResult is a request on the HarmonyOS QoS node.
type QoSResult struct {
	Requested string  `json:"requested"`
	Backend   string  `json:"backend"` // "harmonyos-node" or "linux-sched" (via the ladder)
	Effective *string `json:"effective"`
	Errno     Errno   `json:"errno,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// Readback is what the kernel reports now.
type Readback struct {
	CPUs     cpuset.Set  `json:"cpus"` // the effective mask
	CPU      int         `json:"cpu"`  // where the thread is (getcpu)
	Policy   Policy      `json:"policy"`
	Priority int         `json:"priority"`
	Nice     int         `json:"nice"`
	SliceNs  uint64      `json:"slice_ns,omitempty"`
	Uclamp   UclampState `json:"uclamp"`
	QoS      *string     `json:"qos"`
	// ExactAtReadback: the mask is exactly {target} and getcpu = target.
	ExactAtReadback bool `json:"exact_at_readback"`
	// InTargetGroup: the mask lies inside the target set and the thread
	// is on one of its CPUs.
	InTargetGroup bool     `json:"in_target_group"`
	Errors        []string `json:"errors,omitempty"`
}

// UclampState is a uclamp read-back. Where the kernel has no uclamp the
// values are absent: sched_getattr then reports 0/0, which means nothing.
type UclampState struct {
	Supported bool    `json:"supported"`
	Min       *uint32 `json:"min,omitempty"`
	Max       *uint32 `json:"max,omitempty"`
}

// AcceptResult is the verdict of the acceptance rule.
type AcceptResult struct {
	Rule string `json:"rule"`
	OK   bool   `json:"ok"`
	Why  string `json:"why"`
}

// RestoreResult is the restore, step by step, in the order it ran.
type RestoreResult struct {
	Done  bool          `json:"done"`
	OK    bool          `json:"ok"`
	Steps []RestoreStep `json:"steps"`
}

// RestoreStep is one restore and its verification.
type RestoreStep struct {
	What     string `json:"what"` // qos, attributes, affinity
	OK       bool   `json:"ok"`
	Errno    Errno  `json:"errno,omitempty"`
	Error    string `json:"error,omitempty"`
	Mismatch string `json:"mismatch,omitempty"`
}

// PolicyText is the policy as people write it: "fifo:1", or "other nice
// -20" for a policy that takes a nice value.
func (rb Readback) PolicyText() string {
	if rb.Policy.Realtime() {
		return fmt.Sprintf("%s:%d", rb.Policy, rb.Priority)
	}
	return fmt.Sprintf("%s nice %d", rb.Policy, rb.Nice)
}

// Failure describes the first restore step that failed; "" when none did.
func (r RestoreResult) Failure() string {
	for _, st := range r.Steps {
		if !st.OK {
			msg := st.Error
			if msg == "" {
				msg = st.Mismatch
			}
			return st.What + ": " + msg
		}
	}
	if r.Done && !r.OK {
		return "unknown failure"
	}
	return ""
}
