package runner

import (
	"corepin.dev/corepin/cmd/corepin/internal/system"
	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/topology"
)

// The evidence a run keeps is results' own plain data (package evidence),
// so that a reader of run.json does not link the launcher. Its producers
// fill it in: the session's report, the watcher's result, the launch
// report's parts, a check's outcome and the machine's condition are
// evidence's types by alias, and the topology and a tune hold theirs as
// their first field, so that what run.json holds is what the producer
// wrote, key for key.

// schedulingEvidence is the launch report as the run's record keeps it;
// nil for no report. The record holds the report's parts themselves, not
// copies: the report is not used once recorded.
func schedulingEvidence(rep *launch.Report) *evidence.Scheduling {
	if rep == nil {
		return nil
	}
	return &rep.Scheduling
}

// topologyEvidence is the topology as run.json keeps it; nil for none.
func topologyEvidence(t *topology.Topology) *evidence.Topology {
	if t == nil {
		return nil
	}
	return &t.Topology
}

// tunedEvidence is the tune made for the run as run.json keeps it; nil
// for none. It is the tune's own record, so that the reset its Undo
// makes as the run ends (untune) is in it.
func tunedEvidence(t *system.Tuned) *evidence.Tuned {
	if t == nil {
		return nil
	}
	return &t.Tuned
}
