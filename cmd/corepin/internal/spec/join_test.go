package spec

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cmd/corepin/internal/telemetry"
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/samples"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// report is an exec report of a command on cpu that took wall seconds
// from start, with others taking share of its CPU.
func report(cpu int, start time.Time, wall, share float64) *evidence.Scheduling {
	zero, one := 0, 1.0
	s := &evidence.Scheduling{Start: evidence.StartFork}
	s.Target = evidence.TargetReport{Mode: evidence.Exact, CPU: cpu, CPUs: cpuset.Of(cpu)}
	s.Readback = evidence.Readback{CPUs: cpuset.Of(cpu), CPU: cpu, ExactAtReadback: true, InTargetGroup: true}
	s.Accept = evidence.AcceptResult{Rule: "exact", OK: true, Why: "on the CPU"}
	s.Ladder = evidence.LadderResult{Name: "geekbench", AcceptedStep: 4}
	end := start.Add(time.Duration(wall * float64(time.Second)))
	s.Child = evidence.ChildReport{ExitCode: &zero, WallS: wall, UserS: wall, Started: true,
		Times: &evidence.Times{StartUnixNS: start.UnixNano(), EndUnixNS: end.UnixNano()}}
	s.Sharing = &evidence.Sharing{UsableCPUs: 1, Others: &evidence.Others{S: share * wall, Share: share, Source: "cpuacct",
		WorkSource: "cgroup", Exact: true, BusyS: wall, WorkS: wall * (1 - share), WindowS: wall, CPUs: 1}}
	s.Coverage = &evidence.Coverage{TreeCPUS: wall * (1 - share), TreeSource: "cgroup", Residency: &one, ResidencySource: "cpuacct"}
	s.Watch = &evidence.Watch{}
	s.Tree = &evidence.TreeReport{Mechanism: "cgroup-v1"}
	return s
}

// writeReports writes the reports under their keys' names into dir,
// made under a new folder.
func writeReports(t *testing.T, dir string, reports map[Key]*evidence.Scheduling) string {
	t.Helper()
	dir = filepath.Join(t.TempDir(), dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for k, s := range reports {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ReportName(k.Benchmark, k.Tune, k.Iteration, k.Workload, k.Copy)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// importFor imports res joined with the reports in dir ("" for none),
// and returns the run and the files it keeps beside run.json.
func importFor(t *testing.T, im *Import, dir string) (*results.Run, map[string][]byte) {
	t.Helper()
	if dir != "" {
		reps, err := IndexReports(context.Background(), dir)
		if err != nil {
			t.Fatal(err)
		}
		im.Reports = reps
	}
	im.Source = results.Source{Tool: results.KindSpec}
	files := map[string][]byte{}
	run, err := im.Run(context.Background(), func(name string, data []byte) error {
		files[name] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return run, files
}

func parseRSF(t *testing.T, name string, edits ...string) *Result {
	t.Helper()
	text := string(read(t, name))
	for i := 0; i+1 < len(edits); i += 2 {
		text = strings.ReplaceAll(text, edits[i], edits[i+1])
	}
	res, err := ParseRSF([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// t0 is 505.mcf_r's rate start in rate.rsf.
var t0 = time.Unix(1710000000, 100000000)

func mcf(iter, copy int) Key { return Key{"505.mcf_r", "base", iter, 0, copy} }

// The raw file joined with reports of its commands: a shared target
// makes its iteration invalid by evidence with SPEC's S kept beside it;
// SPEC's VE stays; the times are compared; the mean is recomputed as
// SPEC does and over the iterations the evidence vouches for; a report
// of no iteration is said.
func TestJoin(t *testing.T) {
	dir := writeReports(t, "corepin.042", map[Key]*evidence.Scheduling{
		mcf(0, 0): report(1, t0, 327.0, 0.001), mcf(0, 1): report(0, t0, 328.3, 0.001),
		mcf(1, 0): report(1, t0.Add(400*time.Second), 328.3, 0.4), mcf(1, 1): report(0, t0.Add(400*time.Second), 328.3, 0),
		mcf(2, 0): report(1, t0.Add(800*time.Second), 300, 0), mcf(2, 1): report(0, t0.Add(800*time.Second), 300, 0),
		{"557.xz_r", "base", 0, 0, 0}:  report(1, t0.Add(1200*time.Second), 354, 0),
		{"505.mcf_r", "peak", 0, 0, 0}: report(1, t0, 1, 0),
	})
	run, files := importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, dir)
	if len(run.Benchmarks) != 3 || run.Kind() != results.KindSpec {
		t.Fatalf("%d benchmarks of kind %s", len(run.Benchmarks), run.Kind())
	}
	b := run.Benchmarks[1]
	// corepin's own ratio is of the runs that count: the shared one does
	// not (its median is that of the other two).
	if b.Name != "505.mcf_r.base" || len(b.Runs) != 3 || b.ReferenceS != 2*1616 || b.Ratio == nil || !near(*b.Ratio, 3232/((328.4+331.561)/2), 1e-9) {
		t.Fatalf("mcf: %s, %d runs, reference %v, ratio %v", b.Name, len(b.Runs), b.ReferenceS, b.Ratio)
	}
	for i, r := range b.Runs {
		sp := r.Spec
		if len(sp.Commands) != 2 || *sp.Commands[0].CPU != 1 || *sp.Commands[1].CPU != 0 || sp.Valid != "S" {
			t.Errorf("iteration %d: %+v", i, sp)
		}
		if shared := len(sp.InvalidByEvidence) > 0; shared != (i == 1) || r.Valid == shared {
			t.Errorf("iteration %d: invalid by evidence %q, valid %v", i, sp.InvalidByEvidence, r.Valid)
		}
		if _, kept := files[sp.Commands[0].Report]; !kept {
			t.Errorf("iteration %d: the report %s is not kept", i, sp.Commands[0].Report)
		}
	}
	if e := b.Runs[1].Spec.InvalidByEvidence[0]; !strings.Contains(e, "workload 0, copy 0: the target CPU was shared: others took 40.0%") {
		t.Errorf("the shared iteration says %q", e)
	}
	if n := b.Runs[0].Spec.TimeNote; n != "" || *b.Runs[0].Spec.CorepinS != 328.3 {
		t.Errorf("328.4 s against 328.3: %q, corepin %v", n, *b.Runs[0].Spec.CorepinS)
	}
	if n := b.Runs[2].Spec.TimeNote; !strings.Contains(n, "differ by 9.5%") {
		t.Errorf("331.561 s against 300: %q", n)
	}
	xz := run.Benchmarks[2].Runs[0]
	if xz.Valid || xz.Spec.Valid != "VE" || len(xz.Spec.InvalidByEvidence) > 0 || !strings.Contains(xz.Error, "SPEC: VE (Output miscompare)") {
		t.Errorf("xz: valid %v, SPEC's %q, evidence %q, error %q", xz.Valid, xz.Spec.Valid, xz.Spec.InvalidByEvidence, xz.Error)
	}
	sr := run.Spec
	if *sr.RecomputedBaseMean != *sr.BaseMean || sr.MeanNote != "" || sr.EvidenceBaseMean == nil || *sr.EvidenceBaseMean != 9.747829 {
		t.Errorf("means: SPEC's %v, recomputed %v, without the shared iteration %v (%q)", *sr.BaseMean, *sr.RecomputedBaseMean, sr.EvidenceBaseMean, sr.MeanNote)
	}
	if sr.Reports != 7 || len(sr.Unjoined) != 1 || sr.Unjoined[0] != "505.mcf_r.peak.i0.w0.c0.json" || !filepath.IsAbs(sr.Evidence) {
		t.Errorf("%d joined, unjoined %q, evidence %q", sr.Reports, sr.Unjoined, sr.Evidence)
	}
	if run.Target.ExactCPU != 1 || run.Target.SoftCPUs.String() != "0-1" {
		t.Errorf("target %+v", run.Target)
	}
	// Every warning of an iteration says which, and names the threshold
	// an import has, not a flag of run's.
	for _, w := range b.Runs[2].Warnings {
		if !strings.HasPrefix(w.Text, "iteration 2: ") || strings.Contains(w.Text, "--max-others") {
			t.Errorf("iteration 2's warning %q", w.Text)
		}
	}
}

// Without reports, where it ran is not recorded, and nothing is invalid
// by evidence; there is no mean by corepin's evidence, and the note says
// why.
func TestJoinWithoutEvidence(t *testing.T) {
	run, files := importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, "")
	r := run.Benchmarks[1].Runs[0]
	if r.Spec.NotRecorded == "" || r.Scheduling != nil || !r.Valid || run.Target.CPUs().Len() != 0 || len(files) != 0 {
		t.Errorf("without reports: %+v, valid %v, target %+v, files %d", r.Spec, r.Valid, run.Target, len(files))
	}
	if !r.Started.Equal(t0) {
		t.Errorf("started %v, want the rate start", r.Started)
	}
	if sr := run.Spec; sr.EvidenceBaseMean != nil || !strings.Contains(sr.MeanNote, "no base mean by corepin's evidence: no report of corepin's was joined") {
		t.Errorf("evidence mean %v, note %q", sr.EvidenceBaseMean, sr.MeanNote)
	}
}

// The reports of another run are not joined: their folder names another
// lognum, or their commands ran outside SPEC's times of the iteration.
// Each such iteration is "not recorded", and the run says why its
// reports were not joined.
func TestJoinRefusesAnotherRunsReports(t *testing.T) {
	reports := map[Key]*evidence.Scheduling{mcf(0, 0): report(1, t0, 327.0, 0), mcf(0, 1): report(0, t0, 328.3, 0)}
	// Run 002's folder given for run 042.
	run, files := importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, writeReports(t, "corepin.002", reports))
	r := run.Benchmarks[1].Runs[0]
	if r.Spec.NotRecorded == "" || r.Scheduling != nil || len(r.Spec.Commands) != 0 || run.Spec.Reports != 0 || len(run.Spec.Unjoined) != 2 || len(files) != 0 {
		t.Errorf("another run's folder: not recorded %q, commands %d, joined %d, unjoined %q, kept %d", r.Spec.NotRecorded, len(r.Spec.Commands), run.Spec.Reports, run.Spec.Unjoined, len(files))
	}
	if !hasWarning(results.WarningTexts(run.Warnings), "2 of corepin's reports in ", "not joined: the folder is corepin.002, run 002's, not this result's run 042") {
		t.Errorf("warnings %q", run.Warnings)
	}

	// Run 042's folder, but a copy that ran an hour before the iteration.
	reports[mcf(0, 1)] = report(0, t0.Add(-time.Hour), 328.3, 0)
	run, _ = importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, writeReports(t, "corepin.042", reports))
	r = run.Benchmarks[1].Runs[0]
	if !strings.Contains(r.Spec.NotRecorded, "workload 0, copy 1 ran from 2024-03-09 15:00:00.100 to") ||
		!strings.Contains(r.Spec.NotRecorded, "outside SPEC's rate start and end of the iteration (2024-03-09 16:00:00.100 to 2024-03-09 16:05:28.500)") ||
		len(r.Spec.Commands) != 0 || run.Spec.Reports != 0 {
		t.Errorf("a copy outside the iteration: not recorded %q, commands %d, joined %d", r.Spec.NotRecorded, len(r.Spec.Commands), run.Spec.Reports)
	}
	if !hasWarning(results.WarningTexts(run.Warnings), "2 of corepin's reports in ", "not joined: another run's, by their commands' times (outside SPEC's of their iterations)") ||
		!hasWarning(results.WarningTexts(run.Benchmarks[1].Warnings), "iteration 0: where it ran: not recorded") {
		t.Errorf("warnings %q, %q", run.Warnings, results.WarningTexts(run.Benchmarks[1].Warnings))
	}

	// Run 042's folder, but a report whose curves went to run 002's.
	reports[mcf(0, 1)] = report(0, t0, 328.3, 0)
	reports[mcf(0, 1)].Telemetry = &evidence.TelemetryFile{File: "/spec/result/corepin.002/505.mcf_r.base.i0.w0.c1.csv"}
	run, _ = importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, writeReports(t, "corepin.042", reports))
	if r := run.Benchmarks[1].Runs[0]; !strings.Contains(r.Spec.NotRecorded, "workload 0, copy 1 wrote its curves into corepin.002: another run's report") {
		t.Errorf("a report of another run's curves: not recorded %q", r.Spec.NotRecorded)
	}
}

// A speed run has no rate start and end: specinvoke's own times of each
// command, in the speccmds.out its run folder keeps (the last iteration
// run there), bound its report's.
func TestJoinWindowFromSpeccmdsOut(t *testing.T) {
	top := t.TempDir()
	result := filepath.Join(top, "result", "CPU2026.007.fpspeed.refspeed.rsf")
	run0 := filepath.Join(top, "benchspec", "CPU", "872.marian_s", "run", "run_base_refspeed_none.0000")
	for _, d := range []string{filepath.Dir(result), run0} {
		os.MkdirAll(d, 0o755)
	}
	start := time.Unix(1760000000, 0)
	out := "timer ticks over every 1000 ns\n" +
		"child started: 0,\t1760000000, 000000000, pid=42, 'mkdir -p /r/corepin.007;echo \"x\" > corepin.sh;corepin exec -q --cpu 3 --report /r/corepin.007/872.marian_s.base.i0.w0.c0.json -- sh corepin.sh'\n" +
		"child finished: 0,\t1760000080, 500000000, sec=80, nsec=500000000, pid=42, rc=0\n"
	os.WriteFile(filepath.Join(run0, "speccmds.out"), []byte(out), 0o644)
	inv := ReadInvocations(context.Background(), result)
	if dirs := inv.ReportFolders("007"); len(dirs) != 1 || dirs[0] != "/r/corepin.007" {
		t.Errorf("the reports' folders of run 007: %q", dirs)
	}
	for _, c := range []struct {
		start  time.Time
		joined bool
	}{{start.Add(10 * time.Millisecond), true}, {start.Add(-time.Minute), false}} {
		dir := writeReports(t, "corepin.007", map[Key]*evidence.Scheduling{{"872.marian_s", "base", 0, 0, 0}: report(3, c.start, 80, 0)})
		run, _ := importFor(t, &Import{Result: parseRSF(t, "speed2026.rsf"), Invocations: inv}, dir)
		sp := run.Benchmarks[0].Runs[0].Spec
		if joined := sp.NotRecorded == ""; joined != c.joined || (!joined && !strings.Contains(sp.NotRecorded, "outside specinvoke's times of the command (speccmds.out)")) {
			t.Errorf("a command from %v: not recorded %q", c.start, sp.NotRecorded)
		}
	}
}

// The evidence mean is SPEC's mean, or none: with every iteration of one
// benchmark ruled out, a mean of the others would be another figure.
func TestEvidenceMeanNeedsEveryBenchmark(t *testing.T) {
	// xz's iteration valid to SPEC, so that the mean is of two benchmarks.
	res := parseRSF(t, "rate.rsf", "557_xz_r.base.000.valid: VE", "557_xz_r.base.000.valid: S")
	xz := Key{"557.xz_r", "base", 0, 0, 0}
	reports := map[Key]*evidence.Scheduling{xz: report(1, t0.Add(1200*time.Second), 354, 0.5)}
	for i := range 3 {
		reports[mcf(i, 0)] = report(1, t0.Add(time.Duration(i)*400*time.Second), 327, 0)
	}
	run, _ := importFor(t, &Import{Result: res}, writeReports(t, "corepin.042", reports))
	sr := run.Spec
	if sr.RecomputedBaseMean == nil || sr.EvidenceBaseMean != nil ||
		!strings.Contains(sr.MeanNote, "no base mean by corepin's evidence: 557.xz_r kept no iteration that SPEC and corepin's evidence both hold valid") {
		t.Errorf("recomputed %v, evidence %v, note %q", sr.RecomputedBaseMean, sr.EvidenceBaseMean, sr.MeanNote)
	}
	// With xz's report clean, the evidence mean is the recomputed one.
	reports[xz] = report(1, t0.Add(1200*time.Second), 354, 0)
	run, _ = importFor(t, &Import{Result: res}, writeReports(t, "corepin.042", reports))
	if sr := run.Spec; sr.EvidenceBaseMean == nil || *sr.EvidenceBaseMean != *sr.RecomputedBaseMean {
		t.Errorf("recomputed %v, evidence %v, note %q", sr.RecomputedBaseMean, sr.EvidenceBaseMean, sr.MeanNote)
	}
}

// A report that cannot be read leaves its command not recorded, with
// why; the import goes on, and the iteration's evidence is incomplete.
func TestJoinCorruptReport(t *testing.T) {
	dir := writeReports(t, "corepin.042", map[Key]*evidence.Scheduling{mcf(0, 0): report(1, t0, 327, 0)})
	os.WriteFile(filepath.Join(dir, "505.mcf_r.base.i0.w0.c1.json"), []byte("{not json"), 0o644)
	run, _ := importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, dir)
	sp := run.Benchmarks[1].Runs[0].Spec
	if len(sp.Commands) != 2 || !strings.Contains(sp.Commands[1].NotRecorded, "its report cannot be read: reading corepin's report") ||
		sp.Evidence() != results.EvidenceIncomplete || run.Spec.Reports != 1 || len(run.Spec.Unjoined) != 0 {
		t.Errorf("the corrupt report: %+v, evidence %s, joined %d, unjoined %q", sp.Commands, sp.Evidence(), run.Spec.Reports, run.Spec.Unjoined)
	}
}

// A folder of many reports of no iteration names the first
// MaxUnjoined in run.json, and counts the rest.
func TestUnjoinedBounded(t *testing.T) {
	reports := map[Key]*evidence.Scheduling{}
	small := report(1, t0, 1, 0)
	for i := range results.MaxUnjoined + 10 {
		reports[Key{"999.other_r", "base", i, 0, 0}] = small
	}
	run, _ := importFor(t, &Import{Result: parseRSF(t, "rate.rsf")}, writeReports(t, "corepin.042", reports))
	if sr := run.Spec; len(sr.Unjoined) != results.MaxUnjoined || sr.UnjoinedOmitted != 10 {
		t.Errorf("unjoined %d listed, %d omitted", len(sr.Unjoined), sr.UnjoinedOmitted)
	}
	if !hasWarning(results.WarningTexts(run.Warnings), "74 of corepin's reports in ", "not joined: no iteration of this result has them") {
		t.Errorf("warnings %q", run.Warnings)
	}
}

// A cancelled import stops: nothing is built.
func TestJoinCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := writeReports(t, "corepin.042", map[Key]*evidence.Scheduling{mcf(0, 0): report(1, t0, 327, 0)})
	if _, err := IndexReports(ctx, dir); err == nil {
		t.Error("the reports were indexed under a cancelled context")
	}
	if _, err := (&Import{Result: parseRSF(t, "rate.rsf")}).Run(ctx, func(string, []byte) error { return nil }); err == nil {
		t.Error("the import ran under a cancelled context")
	}
}

func hasWarning(ws []string, parts ...string) bool {
	for _, w := range ws {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(w, p)
		}
		if all {
			return true
		}
	}
	return false
}

func TestParseReportName(t *testing.T) {
	k, ok := ParseReportName("505.mcf_r.base.i2.w1.c3.json")
	if !ok || k != (Key{"505.mcf_r", "base", 2, 1, 3}) {
		t.Errorf("%+v %v", k, ok)
	}
	for _, bad := range []string{"505.mcf_r.base.i2.w1.c3.csv", "base.i2.w1.c3.json", "505.mcf_r.base.i2.w1.cx.json", "a b.base.i0.w0.c0.json", "505.mcf_r.base.i-1.w0.c0.json"} {
		if _, ok := ParseReportName(bad); ok {
			t.Errorf("%q read as a report's name", bad)
		}
	}
}

// Each iteration's curves are cut from the telemetry around the whole
// run by its commands' times, t_s from the iteration's start, or else
// joined from exec --telemetry's CSVs of copy 0, each placed by its own
// start; summarised over the read-back CPUs.
func TestJoinCurves(t *testing.T) {
	start := time.Unix(1760000000, 0)
	rep := report(3, start.Add(10*time.Second), 2, 0) // 10 s to 12 s into the run
	key := Key{"872.marian_s", "base", 0, 0, 0}
	dir := writeReports(t, "corepin.007", map[Key]*evidence.Scheduling{key: rep})
	util := func(v float64) *float64 { return &v }
	var whole []samples.Sample
	for i := 1; i <= 15; i++ {
		for _, cpu := range []int{2, 3} {
			whole = append(whole, samples.Sample{T: float64(i), CPU: cpu, UtilPct: util(float64(10 * cpu)), FreqSource: "none"})
		}
	}
	im := &Import{Result: parseRSF(t, "speed2026.rsf"), Telemetry: &telemetry.Series{Started: start, Period: 1, Samples: whole}, TelemetryFile: "run.json"}
	run, files := importFor(t, im, dir)
	rec := run.Benchmarks[0].Runs[0]
	csv := string(files[rec.TelemetryCSV])
	// The samples at 11 s and 12 s, and 13 s: the one after the end,
	// whose utilisation is of the period the command ended in.
	want := "t_s,cpu,util_pct,freq_mhz,freq_source\n1.000,2,20.0,,none\n1.000,3,30.0,,none\n2.000,2,20.0,,none\n2.000,3,30.0,,none\n3.000,2,20.0,,none\n3.000,3,30.0,,none\n"
	if rec.TelemetryCSV != "telemetry/872.marian_s.base-0.csv" || csv != want {
		t.Errorf("%s:\n%s\nwant\n%s", rec.TelemetryCSV, csv, want)
	}
	if st := rec.Telemetry; st.Samples != 3 || st.UtilMeanPct == nil || *st.UtilMeanPct != 30 {
		t.Errorf("summary over the target CPU 3: %+v", st)
	}

	// Without the whole run's, exec's own CSV beside the report, which
	// began 0.5 s before its command.
	rep.Telemetry = &evidence.TelemetryFile{File: "/spec/result/corepin.007/872.marian_s.base.i0.w0.c0.csv", StartUnixNS: start.Add(9500 * time.Millisecond).UnixNano(), PeriodS: 1}
	dir = writeReports(t, "corepin.007", map[Key]*evidence.Scheduling{key: rep})
	os.WriteFile(filepath.Join(dir, "872.marian_s.base.i0.w0.c0.csv"),
		[]byte("t_s,cpu,util_pct,freq_mhz,freq_source\n1.000,3,99.0,,none\n2.000,3,98.0,,none\n5.000,3,1.0,,none\n"), 0o644)
	run, files = importFor(t, &Import{Result: parseRSF(t, "speed2026.rsf")}, dir)
	rec = run.Benchmarks[0].Runs[0]
	want = "t_s,cpu,util_pct,freq_mhz,freq_source\n0.500,3,99.0,,none\n1.500,3,98.0,,none\n"
	if csv := string(files[rec.TelemetryCSV]); csv != want {
		t.Errorf("exec's curves:\n%s\nwant\n%s", csv, want)
	}
}

// Work off the target makes its iteration invalid by evidence; a ratio
// that is not what the time and reference make it is said.
func TestJoinOffTargetAndRatio(t *testing.T) {
	rep := report(3, time.Unix(1760000000, 0), 80, 0)
	half := 0.5
	rep.Coverage.Residency = &half
	dir := writeReports(t, "corepin.007", map[Key]*evidence.Scheduling{{"872.marian_s", "base", 0, 0, 0}: rep})
	run, _ := importFor(t, &Import{Result: parseRSF(t, "speed2026.rsf", "peak.000.ratio: 13", "peak.000.ratio: 14")}, dir)
	if e := run.Benchmarks[0].Runs[0].Spec.InvalidByEvidence; len(e) != 1 || !strings.Contains(e[0], "the work ran off the target: 50.0% of its CPU time on it") {
		t.Errorf("off the target: %q", e)
	}
	if n := run.Spec.MeanNote; !strings.Contains(n, "872.marian_s.peak iteration 0: SPEC's ratio 14 is not copies × reference / time (13.000013)") {
		t.Errorf("the ratio's note: %q", n)
	}
}

// An iteration of hundreds of copies lists 64 commands, the invalid ones
// first, and counts the rest.
func TestBoundCommands(t *testing.T) {
	var all []results.SpecCommand
	for c := range 100 {
		sc := results.SpecCommand{Copy: c}
		if c == 70 {
			sc.Invalid = "shared"
		}
		all = append(all, sc)
	}
	kept, omitted := boundCommands(all)
	if len(kept) != results.MaxSpecCommands || omitted != 36 || kept[0].Copy != 70 || kept[1].Copy != 0 {
		t.Errorf("kept %d (first copies %d, %d), omitted %d", len(kept), kept[0].Copy, kept[1].Copy, omitted)
	}
}
