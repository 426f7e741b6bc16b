package spec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
	"corepin.dev/corepin/telemetry"
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

// writeReports writes the reports under their keys' names in a new
// folder.
func writeReports(t *testing.T, reports map[Key]*evidence.Scheduling) string {
	t.Helper()
	dir := t.TempDir()
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

// The raw file joined with reports of its commands: a shared target
// makes its iteration invalid by evidence with SPEC's S kept beside it;
// SPEC's VE stays; the times are compared; the mean is recomputed as
// SPEC does and without the iteration the evidence rules out; a report
// of no iteration is said.
func TestJoin(t *testing.T) {
	res, err := ParseRSF(read(t, "rate.rsf"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1710000000, 100000000)
	mcf := func(iter, copy int) Key { return Key{"505.mcf_r", "base", iter, 0, copy} }
	dir := writeReports(t, map[Key]*evidence.Scheduling{
		mcf(0, 0): report(1, t0, 327.0, 0.001), mcf(0, 1): report(0, t0, 328.3, 0.001),
		mcf(1, 0): report(1, t0.Add(400*time.Second), 328.3, 0.4), mcf(1, 1): report(0, t0.Add(400*time.Second), 328.3, 0),
		mcf(2, 0): report(1, t0.Add(800*time.Second), 300, 0), mcf(2, 1): report(0, t0.Add(800*time.Second), 300, 0),
		{"557.xz_r", "base", 0, 0, 0}:  report(1, t0.Add(1200*time.Second), 354, 0),
		{"505.mcf_r", "peak", 0, 0, 0}: report(1, t0, 1, 0),
	})
	reports, err := ReadReports(dir)
	if err != nil {
		t.Fatal(err)
	}
	im := &Import{Result: res, Reports: reports, EvidenceDir: dir, Source: results.Source{Tool: results.KindSpec}}
	run, files := im.Run()
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
	if *sr.RecomputedBaseMean != *sr.BaseMean || sr.MeanNote != "" || *sr.EvidenceBaseMean != 9.747829 {
		t.Errorf("means: SPEC's %v, recomputed %v, without the shared iteration %v (%q)", *sr.BaseMean, *sr.RecomputedBaseMean, *sr.EvidenceBaseMean, sr.MeanNote)
	}
	if sr.Reports != 7 || len(sr.Unjoined) != 1 || sr.Unjoined[0] != "505.mcf_r.peak.i0.w0.c0.json" {
		t.Errorf("%d joined, unjoined %q", sr.Reports, sr.Unjoined)
	}
	if run.Target.ExactCPU != 1 || run.Target.SoftCPUs.String() != "0-1" {
		t.Errorf("target %+v", run.Target)
	}
}

// Without reports, where it ran is not recorded, and nothing is invalid
// by evidence.
func TestJoinWithoutEvidence(t *testing.T) {
	res, err := ParseRSF(read(t, "rate.rsf"))
	if err != nil {
		t.Fatal(err)
	}
	run, _ := (&Import{Result: res, Source: results.Source{Tool: results.KindSpec}}).Run()
	r := run.Benchmarks[1].Runs[0]
	if r.Spec.NotRecorded == "" || r.Scheduling != nil || !r.Valid || run.Target.CPUs().Len() != 0 {
		t.Errorf("without reports: %+v, valid %v, target %+v", r.Spec, r.Valid, run.Target)
	}
	if !r.Started.Equal(time.Unix(1710000000, 100000000)) {
		t.Errorf("started %v, want the rate start", r.Started)
	}
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
	res, err := ParseRSF(read(t, "speed2026.rsf"))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1760000000, 0)
	rep := report(3, t0.Add(10*time.Second), 2, 0) // 10 s to 12 s into the run
	reports := []Report{{Key: Key{"872.marian_s", "base", 0, 0, 0}, Name: "872.marian_s.base.i0.w0.c0.json", Data: []byte("{}"), Scheduling: rep}}
	util := func(v float64) *float64 { return &v }
	var whole []telemetry.Sample
	for i := 1; i <= 15; i++ {
		for _, cpu := range []int{2, 3} {
			whole = append(whole, telemetry.Sample{T: float64(i), CPU: cpu, UtilPct: util(float64(10 * cpu)), FreqSource: "none"})
		}
	}
	im := &Import{Result: res, Reports: reports, EvidenceDir: "e", Source: results.Source{Tool: results.KindSpec},
		Telemetry: &telemetry.Series{Started: t0, Period: 1, Samples: whole}, TelemetryFile: "run.json"}
	run, files := im.Run()
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
	rep.Telemetry = &evidence.TelemetryFile{File: "/spec/result/corepin.007/872.marian_s.base.i0.w0.c0.csv", StartUnixNS: t0.Add(9500 * time.Millisecond).UnixNano(), PeriodS: 1}
	im.Telemetry, im.TelemetryFile = nil, ""
	im.Curves = map[string][]telemetry.Sample{"872.marian_s.base.i0.w0.c0.csv": {
		{T: 1, CPU: 3, UtilPct: util(99), FreqSource: "none"}, {T: 2, CPU: 3, UtilPct: util(98), FreqSource: "none"}, {T: 5, CPU: 3, UtilPct: util(1), FreqSource: "none"}}}
	run, files = im.Run()
	rec = run.Benchmarks[0].Runs[0]
	want = "t_s,cpu,util_pct,freq_mhz,freq_source\n0.500,3,99.0,,none\n1.500,3,98.0,,none\n"
	if csv := string(files[rec.TelemetryCSV]); csv != want {
		t.Errorf("exec's curves:\n%s\nwant\n%s", csv, want)
	}
}

// Work off the target makes its iteration invalid by evidence; a ratio
// that is not what the time and reference make it is said.
func TestJoinOffTargetAndRatio(t *testing.T) {
	res, err := ParseRSF([]byte(strings.ReplaceAll(string(read(t, "speed2026.rsf")), "peak.000.ratio: 13", "peak.000.ratio: 14")))
	if err != nil {
		t.Fatal(err)
	}
	rep := report(3, time.Unix(1760000000, 0), 80, 0)
	half := 0.5
	rep.Coverage.Residency = &half
	reports := []Report{{Key: Key{"872.marian_s", "base", 0, 0, 0}, Name: "r.json", Scheduling: rep}}
	run, _ := (&Import{Result: res, Reports: reports, EvidenceDir: "e", Source: results.Source{Tool: results.KindSpec}}).Run()
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
