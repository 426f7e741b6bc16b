package results

import (
	"fmt"
	"slices"

	"corepin.dev/corepin/results/evidence"
)

// A run's record has a bounded size, so that run.json and the journal
// grow by a bounded amount per run whatever the suite, the work or the
// machine's messages are: the command is its benchmark's, written once
// (Benchmark.Command), never in each record; the lists that grow with the
// work's threads or with the length of a run keep their first (or
// busiest) entries and say what was left out; text from outside is
// clipped. With the suite's own bounds (suite.MaxChecks, the clipped
// check outcomes) this keeps a record under MaxRecordBytes.
const (
	// MaxRecordBytes is the most one run adds to run.json (indented, the
	// benchmark's warnings drawn from the run included) and to the
	// journal, with RecordBytesPerCPU for each CPU of the machine: at
	// the worst, every text from outside as long as it may be and at six
	// bytes a character in JSON. A run usually adds some 4 KiB to the
	// journal and 10 KiB to run.json.
	MaxRecordBytes = 96 << 10
	// RecordBytesPerCPU is what each CPU of the machine adds to a run at
	// most: the record's lists of CPUs (the captured mask, where corepin's
	// own threads and the watcher ran, the tree's time per CPU) hold up
	// to every CPU.
	RecordBytesPerCPU = 128
	// MaxThreadsListed threads are listed in a record's watcher result,
	// those with the most running samples; the others are added up in
	// one more entry (see foldThreads).
	MaxThreadsListed = 16
	// MaxNotesListed telemetry notes, and as many errors of the watcher
	// and of the tree, are kept, each of at most MaxNoteText bytes (as
	// the launch report's reasons: refused, exec error), and one more
	// says how many were left out.
	MaxNotesListed = 4
	MaxNoteText    = 256
	// MaxErrorText bounds a run's error: it ends with the end of the
	// command's standard error.
	MaxErrorText = 1 << 10
)

// Bound makes the record keep within MaxRecordBytes: it is called on
// every record before it is written.
func (r *RunRecord) Bound() {
	r.Error = evidence.Clip(r.Error, MaxErrorText)
	r.Telemetry.Notes = boundNotes(r.Telemetry.Notes)
	s := r.Scheduling
	if s == nil {
		return
	}
	s.Refused, s.ExecError = evidence.Clip(s.Refused, MaxNoteText), evidence.Clip(s.ExecError, MaxNoteText)
	s.WatchError, s.Broken = evidence.Clip(s.WatchError, MaxNoteText), evidence.Clip(s.Broken, MaxNoteText)
	if s.Watch != nil {
		s.Watch.Threads = foldThreads(s.Watch.Threads, MaxThreadsListed)
		s.Watch.Errors = boundTexts(s.Watch.Errors)
	}
	if s.Tree != nil {
		s.Tree.Errors = boundTexts(s.Tree.Errors)
	}
	if s.Sharing != nil {
		s.Sharing.PreemptorsError = evidence.Clip(s.Sharing.PreemptorsError, MaxNoteText)
		if sw := s.Sharing.Switches; sw != nil {
			sw.Error = evidence.Clip(sw.Error, MaxNoteText)
		}
	}
}

// foldThreads keeps the max threads with the most running samples, in
// their order, and adds up the others in one last entry: TID 0, which no
// thread has, named "(N more threads)", with their CPU time, samples,
// migrations and re-assertions summed, so that every total a reader
// makes of the list stays what the watcher measured. Its last CPU is -1,
// unknown.
func foldThreads(ts []evidence.ThreadStat, max int) []evidence.ThreadStat {
	if len(ts) <= max {
		return ts
	}
	byRunning := make([]int, len(ts))
	for i := range byRunning {
		byRunning[i] = i
	}
	slices.SortStableFunc(byRunning, func(a, b int) int { return ts[b].Running - ts[a].Running })
	keep := make([]bool, len(ts))
	for _, i := range byRunning[:max] {
		keep[i] = true
	}
	rest := evidence.ThreadStat{LastCPU: -1}
	var runS, waitS float64
	var invol int64
	haveSched, haveInvol := true, true
	out := make([]evidence.ThreadStat, 0, max+1)
	n := 0
	for i, t := range ts {
		if keep[i] {
			out = append(out, t)
			continue
		}
		n++
		rest.CPUSeconds += t.CPUSeconds
		rest.Running += t.Running
		rest.OnTarget += t.OnTarget
		rest.Migrations += t.Migrations
		rest.SampledMigrations += t.SampledMigrations
		rest.Reasserts += t.Reasserts
		rest.Compute = rest.Compute || t.Compute
		if t.RunS != nil && t.WaitS != nil {
			runS, waitS = runS+*t.RunS, waitS+*t.WaitS
		} else {
			haveSched = false
		}
		if t.Involuntary != nil {
			invol += *t.Involuntary
		} else {
			haveInvol = false
		}
	}
	rest.Name = fmt.Sprintf("(%d more threads)", n)
	if rest.Running > 0 {
		ratio := float64(rest.OnTarget) / float64(rest.Running)
		rest.OnTargetRatio = &ratio
	}
	if haveSched {
		rest.RunS, rest.WaitS = &runS, &waitS
	}
	if haveInvol {
		rest.Involuntary = &invol
	}
	return append(out, rest)
}

// boundNotes keeps the first MaxNotesListed telemetry notes, each
// clipped, and says how many more there were.
func boundNotes(notes []string) []string {
	return boundList(notes, "%d more notes left out of the record")
}

// boundTexts keeps the first MaxNotesListed texts, each clipped, and says
// how many more there were.
func boundTexts(texts []string) []string {
	return boundList(texts, "%d more left out of the record")
}

// boundList clips every text and keeps the first MaxNotesListed, with one
// more that says, in the words of more, how many were left out.
func boundList(texts []string, more string) []string {
	for i := range texts {
		texts[i] = evidence.Clip(texts[i], MaxNoteText)
	}
	if len(texts) <= MaxNotesListed {
		return texts
	}
	return append(texts[:MaxNotesListed:MaxNotesListed], fmt.Sprintf(more, len(texts)-MaxNotesListed))
}
