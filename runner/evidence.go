package runner

import (
	"encoding/json"
	"fmt"

	"corepin.dev/corepin/launch"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/system"
	"corepin.dev/corepin/topology"
)

// The evidence a run keeps is results' own plain data (package evidence),
// so that a reader of run.json does not link the launcher. The session's
// report, the watcher's result, the launch report's parts and a check's
// outcome are declared there, and their producers fill them in; the
// topology and the machine's condition have types of their own in their
// producers, and are filled in here through their JSON form, which is what
// run.json holds and what an old run.json is read from, so that the
// evidence has exactly the keys and values the producer writes.

// asEvidence fills rec from v's JSON form.
func asEvidence(v, rec any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, rec)
}

// schedulingEvidence is the launch report as the run's record keeps it;
// nil for no report. The record holds the report's parts themselves, not
// copies: the report is not used once recorded.
func schedulingEvidence(rep *launch.Report) *evidence.Scheduling {
	if rep == nil {
		return nil
	}
	return &evidence.Scheduling{
		Session:    rep.Report,
		Command:    rep.Command,
		Start:      rep.Start,
		Child:      rep.Child,
		Watch:      rep.Watch,
		WatchError: rep.WatchError,
		Parent:     rep.Parent,
		Tree:       rep.Tree,
		Sharing:    rep.Sharing,
		Coverage:   rep.Coverage,
		Broken:     rep.Broken,
		Refused:    rep.Refused,
		ExecError:  rep.ExecError,
		ExecErrno:  evidence.Errno(rep.ExecErrno.String()),
	}
}

// topologyEvidence is the topology as run.json keeps it; nil for none.
func topologyEvidence(t *topology.Topology) (*evidence.Topology, error) {
	if t == nil {
		return nil, nil
	}
	var rec evidence.Topology
	if err := asEvidence(t, &rec); err != nil {
		return nil, fmt.Errorf("recording the topology: %w", err)
	}
	return &rec, nil
}

// factsEvidence is the machine's condition as run.json keeps it; nil
// where it could not be read.
func factsEvidence(f *system.Facts) (*evidence.Facts, error) {
	if f == nil {
		return nil, nil
	}
	var rec evidence.Facts
	if err := asEvidence(f, &rec); err != nil {
		return nil, fmt.Errorf("recording the machine's condition: %w", err)
	}
	return &rec, nil
}

// tunedEvidence is the tune made for the run as run.json keeps it; nil
// for none.
func tunedEvidence(t *system.Tuned) (*evidence.Tuned, error) {
	if t == nil {
		return nil, nil
	}
	var rec evidence.Tuned
	if err := asEvidence(t, &rec); err != nil {
		return nil, fmt.Errorf("recording the tune: %w", err)
	}
	return &rec, nil
}

// RecordTune keeps in the run what the tune made for it did, its reset
// included: the caller that undoes the tune after the run calls it before
// saving the run again.
func RecordTune(run *results.Run, t *system.Tuned) error {
	if run.System == nil {
		return nil
	}
	rec, err := tunedEvidence(t)
	if err != nil {
		return err
	}
	run.System.Tuned = rec
	return nil
}
