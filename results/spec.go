package results

import (
	"fmt"

	"corepin.dev/corepin/cpuset"
)

// SpecRun is what an imported SPEC CPU result says of the run as a whole
// (Run.Spec), beside what corepin recomputed from it: SPEC's figures are
// kept as SPEC wrote them, corepin's next to them.
type SpecRun struct {
	Suite   string `json:"suite"` // "cpu2017", "cpu2026"
	Lognum  string `json:"lognum"`
	Runmode string `json:"runmode"` // "rate" or "speed"
	Size    string `json:"size,omitempty"`
	Metric  string `json:"metric,omitempty"`
	// Invalid is SPEC's verdict on the whole result, Errors its reasons.
	Invalid bool     `json:"invalid"`
	Errors  []string `json:"errors,omitempty"`
	// BaseMean and PeakMean are SPEC's estimated SPECrate or SPECspeed
	// means; the recomputed ones are the same rule applied to the
	// result's iterations (per benchmark the selected, the lower median
	// by time of its valid iterations; their geometric mean), and the
	// evidence ones that rule over the iterations corepin's reports
	// hold valid (Evidence). Null where there is no figure; an evidence
	// mean is null unless every benchmark of the recomputed one keeps an
	// iteration that SPEC and corepin's evidence both hold valid.
	BaseMean           *float64 `json:"base_mean"`
	PeakMean           *float64 `json:"peak_mean"`
	RecomputedBaseMean *float64 `json:"recomputed_base_mean"`
	RecomputedPeakMean *float64 `json:"recomputed_peak_mean"`
	EvidenceBaseMean   *float64 `json:"evidence_base_mean"`
	EvidencePeakMean   *float64 `json:"evidence_peak_mean"`
	// MeanNote says where SPEC's mean and the recomputed one differ, and
	// why an evidence mean is null.
	MeanNote string `json:"mean_note,omitempty"`
	// Evidence is the folder of corepin's exec reports that was joined,
	// as an absolute path; Reports how many were joined, and Unjoined
	// the first MaxUnjoined of those that were not (another run's, a
	// tuning not in the result), UnjoinedOmitted counting the rest.
	Evidence        string   `json:"evidence,omitempty"`
	Reports         int      `json:"reports"`
	Unjoined        []string `json:"unjoined,omitempty"`
	UnjoinedOmitted int      `json:"unjoined_omitted,omitempty"`
	// Telemetry is the file of corepin telemetry around the whole run
	// that each iteration's curves were cut from.
	Telemetry string `json:"telemetry,omitempty"`
}

// MeanLines say the means of each tuning SPEC or corepin has one of:
// SPEC's as written, the recomputed one and corepin's evidence's, "none"
// for a null one.
func (s *SpecRun) MeanLines() []string {
	figure := func(v *float64) string {
		if v == nil {
			return "none"
		}
		return fmt.Sprintf("%g", *v)
	}
	var lines []string
	for _, m := range []struct {
		tune              string
		spec, again, seen *float64
	}{{"base", s.BaseMean, s.RecomputedBaseMean, s.EvidenceBaseMean}, {"peak", s.PeakMean, s.RecomputedPeakMean, s.EvidencePeakMean}} {
		if m.spec != nil || m.again != nil {
			lines = append(lines, fmt.Sprintf("%s mean: SPEC's %s, recomputed %s, by corepin's evidence %s", m.tune, figure(m.spec), figure(m.again), figure(m.seen)))
		}
	}
	return lines
}

// SpecIteration is one SPEC iteration imported as a run
// (RunRecord.Spec): SPEC's figures and verdict, and corepin's reports of
// its commands, one per workload and copy.
type SpecIteration struct {
	// Iteration is runcpu's number, from 0.
	Iteration int `json:"iteration"`
	// Valid is SPEC's verdict ("S", "RE", "VE", …) and Errors its
	// reasons; Selected whether SPEC chose this iteration for the
	// benchmark's figure.
	Valid    string   `json:"valid"`
	Errors   []string `json:"errors,omitempty"`
	Selected bool     `json:"selected"`
	// ReportedS is SPEC's time, ReferenceS the reference machine's, Ratio
	// SPEC's ratio (copies × reference / time for rate); null where SPEC
	// wrote none.
	ReportedS  *float64 `json:"reported_s"`
	ReferenceS *float64 `json:"reference_s"`
	Ratio      *float64 `json:"ratio"`
	Copies     int      `json:"copies"`
	Threads    int      `json:"threads"`
	// InvalidByEvidence says why corepin's reports make the iteration
	// invalid whatever SPEC's verdict: a shared target, an acceptance
	// rule that failed or stopped holding, work off the target, a start
	// corepin refused.
	InvalidByEvidence []string `json:"invalid_by_evidence,omitempty"`
	// CorepinS is corepin's time of the iteration: the longest copy's sum
	// of its commands' wall times; TimeDifference is (SPEC's − corepin's)
	// / SPEC's, said in TimeNote above 1%. Null without reports.
	CorepinS       *float64 `json:"corepin_s"`
	TimeDifference *float64 `json:"time_difference"`
	TimeNote       string   `json:"time_note,omitempty"`
	// Commands are the reports of the iteration's commands, those that
	// make it invalid first where there are more than MaxSpecCommands
	// (a rate run of hundreds of copies); CommandsOmitted counts the
	// rest, whose reports are kept all the same.
	Commands        []SpecCommand `json:"commands"`
	CommandsOmitted int           `json:"commands_omitted,omitempty"`
	// NotRecorded says why no report of corepin's is joined with the
	// iteration: where it ran is not recorded.
	NotRecorded string `json:"not_recorded,omitempty"`
}

// Bounds of an imported run's record, as a run's record is bounded: the
// commands an iteration lists, the reasons it says, and the reports not
// joined that the run names.
const (
	MaxSpecCommands = 64
	MaxSpecReasons  = 16
	MaxUnjoined     = 64
)

// What corepin's evidence says of an iteration (SpecIteration.Evidence).
const (
	EvidenceValid       = "valid"        // every command's report holds it valid
	EvidenceInvalid     = "invalid"      // a command's report makes it invalid
	EvidenceIncomplete  = "incomplete"   // a command's report could not be read
	EvidenceNotRecorded = "not recorded" // no report of its commands is joined
)

// Evidence says what corepin's reports say of the iteration: valid,
// invalid, incomplete or not recorded.
func (s *SpecIteration) Evidence() string {
	switch {
	case len(s.InvalidByEvidence) > 0:
		return EvidenceInvalid
	case s.NotRecorded != "":
		return EvidenceNotRecorded
	}
	for _, c := range s.Commands {
		if c.NotRecorded != "" {
			return EvidenceIncomplete
		}
	}
	return EvidenceValid
}

// SpecCommand is corepin's report of one command of an iteration: one
// workload of one copy, as exec wrote it (kept whole in Report).
type SpecCommand struct {
	Workload int `json:"workload"`
	Copy     int `json:"copy"`
	// Report is the kept copy of exec's report, relative to the folder.
	Report string `json:"report"`
	// CPU and CPUs are the read-back: where the thread was and its mask
	// just before the command started; Accepted whether the acceptance
	// rule held, at ladder step AcceptedStep of Ladder (0: none).
	CPU          *int       `json:"cpu"`
	CPUs         cpuset.Set `json:"cpus"`
	Accepted     bool       `json:"accepted"`
	AcceptedStep int        `json:"accepted_step"`
	Ladder       string     `json:"ladder,omitempty"`
	// OthersShare is the share of the target others took, Sharing the
	// verdict on it; Residency the share of the work's CPU time on the
	// target, Migrations its moves between CPUs; Tree how its process
	// tree was held. Null where the report has none.
	OthersShare *float64 `json:"others_share"`
	Sharing     string   `json:"sharing,omitempty"`
	Residency   *float64 `json:"residency"`
	Migrations  int      `json:"migrations"`
	Tree        string   `json:"tree,omitempty"`
	// WallS and the times are the command's own, from exec's report;
	// ExitCode or Signal how it ended, Refused why it did not start.
	WallS       float64 `json:"wall_s"`
	StartUnixNS *int64  `json:"start_unix_ns"`
	EndUnixNS   *int64  `json:"end_unix_ns"`
	ExitCode    *int    `json:"exit_code"`
	Signal      *string `json:"signal,omitempty"`
	Refused     string  `json:"refused,omitempty"`
	// Invalid says why this command's report makes its iteration invalid;
	// NotRecorded why there is no report of it to judge by (it could not
	// be read), where it ran being then not recorded.
	Invalid     string `json:"invalid,omitempty"`
	NotRecorded string `json:"not_recorded,omitempty"`
}

// The kinds of an imported SPEC run's warnings.
const (
	KindSpecVerdict  = "spec-verdict"  // SPEC's own verdict was not S
	KindSpecEvidence = "spec-evidence" // corepin's reports make an iteration invalid
	KindSpecTime     = "spec-time"     // SPEC's time and corepin's differ by more than 1%
	KindNotRecorded  = "not-recorded"  // no report of corepin's says where it ran
	KindSpecMean     = "spec-mean"     // SPEC's mean and the one recomputed differ
	KindSpecUnjoined = "spec-unjoined" // reports of corepin's of no iteration
)
