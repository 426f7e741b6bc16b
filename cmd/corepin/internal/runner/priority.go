package runner

import (
	"fmt"
	"os"
	"strings"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/sched"
)

// What a run could not have is said once, up front, from the first run
// that started: the suite's other runs are asked the same and get the same.

// priorityNote says why the runs' priority could not be raised: the
// ladder has steps and none held. It is "" when one held, or when there
// was nothing to raise (the empty ladder).
func priorityNote(sch *evidence.Scheduling) string {
	if sch == nil || !sch.Child.Started || sch.Ladder.AcceptedStep > 0 || len(sch.Ladder.Steps) == 0 {
		return ""
	}
	var refused []string
	for _, st := range sch.Ladder.Steps {
		switch {
		case st.Skipped != "":
			refused = append(refused, fmt.Sprintf("%s skipped: %s", st.Asked, st.Skipped))
		case st.Errno != "":
			refused = append(refused, fmt.Sprintf("%s: %s", st.Asked, st.Errno))
		case st.Mismatch != "":
			refused = append(refused, fmt.Sprintf("%s read back %s", st.Asked, st.Mismatch))
		}
	}
	why := fmt.Sprintf("uid %d, %s", os.Geteuid(), sched.PriorityFacts(fsroot.Host))
	if len(refused) > 0 {
		why = strings.Join(refused, "; ") + "; " + why
	}
	return fmt.Sprintf("the runs' priority could not be raised: no step of ladder %s held (%s); they run at %s on their CPU alone",
		sch.Ladder.Name, why, sch.Readback.PolicyText())
}

// treeNote says how the runs' process trees are held where no cgroup
// holds them, and what that costs the figures; "" for a cgroup.
func treeNote(sch *evidence.Scheduling) string {
	if sch == nil || !sch.Child.Started || sch.Tree == nil || sch.Tree.Mechanism != launch.MechanismProcessGroup {
		return ""
	}
	return fmt.Sprintf("each run's process tree is held by its process group and corepin's subreaping, not a cgroup (%s): its CPU time is its rusage and its residency sampled",
		sch.Tree.NoCgroup)
}

// noteFirst tells the events, once, what the first run that started could
// not have.
func (r *suiteRun) noteFirst(sch *evidence.Scheduling) {
	for _, s := range []string{priorityNote(sch), treeNote(sch)} {
		if s != "" {
			r.note(s)
		}
	}
}
