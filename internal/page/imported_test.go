package page

import (
	"bytes"
	"corepin.dev/corepin/internal/judge"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/results/evidence"
)

// specRun is an imported SPEC rate result joined with corepin's reports:
// 505.mcf_r's three iterations valid to SPEC, the second shared on its
// target by corepin's evidence; 557.xz_r's one a miscompare, its evidence
// clean.
func specRun() *results.Run {
	start := time.Date(2024, 3, 9, 16, 0, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	one := 1.0
	rep := &evidence.Scheduling{Command: []string{"sh", "corepin.sh"}}
	rep.Readback = evidence.Readback{CPUs: cpuset.Of(1), CPU: 1, Policy: "other", Nice: -20, ExactAtReadback: true}
	rep.Ladder = evidence.LadderResult{Name: "spec", AcceptedStep: 3}
	rep.Accept = evidence.AcceptResult{Rule: "exact", OK: true, Why: "exact: on CPU 1"}
	rep.Watch = &evidence.Watch{OnTargetRatio: &one, Threads: []evidence.ThreadStat{{TID: 1, Running: 10, OnTarget: 10}}}
	run := &results.Run{Schema: results.Schema, Started: start, State: results.StateFinished,
		Host:   results.Host{CPUModel: "Example 8-core CPU", OS: "Debian GNU/Linux 12 6.1.0-18-arm64", GoVersion: "go1.26.8", Corepin: "v0.test"},
		Target: results.Target{Spec: "bind", Mode: "exact", ExactCPU: 1, SoftCPUs: cpuset.Of(0, 1), Why: "SPEC's bind, as corepin exec was asked: copy 0 on CPUs 1, copy 1 on CPUs 0"},
		Source: &results.Source{Tool: results.KindSpec, Version: "cpu2017 1.1.9 (runcpu 6247)", Name: "CPU2017.042.intrate.refrate.rsf",
			File: "source/CPU2017.042.intrate.refrate.rsf", SHA256: "21a81e542f85685ed24e21fdd74ee2a831cf29c2b3ac3090bb6c667f67a135d1", Bytes: 3470},
		Spec: &results.SpecRun{Suite: "cpu2017", Lognum: "042", Runmode: "rate", Size: "refrate (ref)", Metric: "CINT2017", Invalid: true,
			Errors: []string{"557.xz_r (base) had invalid runs!"}, BaseMean: f(9.841657), RecomputedBaseMean: f(9.841657),
			MeanNote: "no base mean by corepin's evidence: 505.mcf_r kept no iteration that SPEC and corepin's evidence both hold valid",
			Evidence: "/spec/result/corepin.042", Reports: 8, Unjoined: []string{"505.mcf_r.peak.i0.w0.c0.json"}},
		Options: results.Options{Isolation: "process", Runs: 3, Ladder: "spec"},
	}
	mcf := results.Benchmark{Name: "505.mcf_r.base", Description: "SPEC CPU2017 505.mcf_r, base tuning, refrate (ref) rate, 2 copies", Kind: results.KindSpec, ReferenceS: 3232, PlannedRuns: 3}
	for i, t := range []float64{328.4, 328.4, 331.561} {
		sp := &results.SpecIteration{Iteration: i, Valid: "S", Selected: i == 1, ReportedS: f(t), ReferenceS: f(1616), Ratio: f(3232 / t), Copies: 2, Threads: 1,
			CorepinS: f(t - 0.1), Commands: []results.SpecCommand{{Copy: 0, CPU: &rep.Readback.CPU, CPUs: cpuset.Of(1), Accepted: true}}}
		rec := results.RunRecord{Index: i, WallS: t, Valid: true, Scheduling: rep, Started: start.Add(time.Duration(i) * 400 * time.Second), Spec: sp,
			Checks: []evidence.Outcome{{What: "SPEC's verdict", Passed: true}, {What: "corepin's evidence", Passed: true}}}
		if i == 1 {
			why := "workload 0, copy 0: the target CPU was shared: others took 40.0% of the target CPU's time"
			sp.InvalidByEvidence = []string{why}
			rec.Valid, rec.Error = false, "invalid by corepin's evidence: "+why
			rec.Checks[1] = evidence.Outcome{What: "corepin's evidence", Detail: why}
		}
		mcf.Runs = append(mcf.Runs, rec)
	}
	xz := results.Benchmark{Name: "557.xz_r.base", Description: "SPEC CPU2017 557.xz_r, base tuning, refrate (ref) rate, 2 copies", Kind: results.KindSpec, ReferenceS: 2160, PlannedRuns: 1}
	xz.Runs = []results.RunRecord{{Index: 0, WallS: 354.1, Error: "SPEC: VE (Output miscompare)", Scheduling: rep, Started: start.Add(1200 * time.Second),
		Spec: &results.SpecIteration{Iteration: 0, Valid: "VE", Errors: []string{"Output miscompare"}, ReportedS: f(354.1), Ratio: f(6.099972), Copies: 2,
			Commands: []results.SpecCommand{{Copy: 0}}},
		Checks: []evidence.Outcome{{What: "SPEC's verdict", Detail: "VE (Output miscompare)"}, {What: "corepin's evidence", Passed: true}}}}
	for _, b := range []*results.Benchmark{&mcf, &xz} {
		b.Summarize()
		judge.Words{}.Benchmark(b)
	}
	run.Benchmarks = []results.Benchmark{mcf, xz}
	run.Warnings = []results.Warning{
		{Run: results.NoRun, Kind: results.KindSpecVerdict, Text: "SPEC marked the result invalid: 557.xz_r (base) had invalid runs!"},
		{Run: results.NoRun, Kind: results.KindSpecMean, Text: run.Spec.MeanNote},
	}
	return run
}

// hyperfineRun is an imported hyperfine result: where it ran is not
// recorded, one run failed.
func hyperfineRun() *results.Run {
	run := &results.Run{Schema: results.Schema, Started: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), State: results.StateFinished,
		Host: results.Host{GoVersion: "go1.26.8", Corepin: "v0.test"}, Target: results.Target{ExactCPU: -1},
		Source: &results.Source{Tool: results.KindHyperfine, Version: "1.18.0", Name: "hf.json", File: "source/hf.json", SHA256: "ab12"}}
	b := results.Benchmark{Name: "stockfish bench", Kind: results.KindHyperfine, Command: []string{"stockfish", "bench"}, PlannedRuns: 3}
	for i, t := range []float64{1.5, 1.6, 1.55} {
		r := results.RunRecord{Index: i, WallS: t, Valid: i != 2}
		if i == 2 {
			r.Error = "exit status 1 (hyperfine --ignore-failure)"
		}
		b.Runs = append(b.Runs, r)
	}
	b.Summarize()
	judge.Words{}.Benchmark(&b)
	run.Benchmarks = []results.Benchmark{b}
	return run
}

// An imported run's page says what it is and no more: the tool and its
// file with its SHA-256, where it ran only where corepin's reports say,
// none of a corepin run's own facts; a SPEC run's page has SPEC's
// figures (the means, the selected iteration and its ratio, the lognum)
// and SPEC's verdict and corepin's evidence as columns of their own.
func TestImportedPages(t *testing.T) {
	for _, c := range []struct {
		name      string
		run       *results.Run
		want, not []string
	}{
		{"spec", specRun(), []string{"cpu2017 run 042: rate, refrate (ref), CINT2017", "SHA-256 21a81e542f85", "<dt>base mean</dt><dd>SPEC&#39;s 9.841657, recomputed 9.841657, by corepin&#39;s evidence none</dd>",
			"<th>SPEC&#39;s verdict</th><th>corepin&#39;s evidence</th>", "<td class=\"num\">1</td><td class=\"num\">328.400 s</td><td class=\"num\">9.842</td><td>S</td><td class=\"bad\">2 valid, 1 invalid</td>",
			"CPU 1 (exact mode) — SPEC&#39;s bind", "<td class=\"bad\">VE</td><td>valid</td>", "No telemetry was recorded for this benchmark"},
			[]string{"Built-in suite", "warm-up", "telemetry every", "This machine reports no CPU frequency", "Output check", "FAILED", "VE (Output miscompare) SPEC&#39;s verdict"}},
		{"hyperfine", hyperfineRun(), []string{"imported from hyperfine 1.18.0&#39;s hf.json", "<dt>Where it ran</dt><dd>not recorded", "<dt>Host</dt><dd>not recorded</dd>", "INVALID"},
			[]string{"Built-in suite", "warm-up", "telemetry every", "This machine reports no CPU frequency", "Read-back CPU", "Restore", "Ladder", "<dt>Target</dt>"}},
	} {
		var out bytes.Buffer
		if err := Write(&out, c.run, t.TempDir()); err != nil {
			t.Fatal(err)
		}
		page := out.String()
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: the page lacks %q", c.name, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(page, n) {
				t.Errorf("%s: the page says %q", c.name, n)
			}
		}
		golden := filepath.Join("testdata", c.name+".golden.html")
		if *update {
			os.WriteFile(golden, out.Bytes(), 0o644)
		}
		if want, err := os.ReadFile(golden); err != nil || !bytes.Equal(want, out.Bytes()) {
			os.WriteFile(golden+".got", out.Bytes(), 0o644)
			t.Errorf("%s: the page differs from %s (%v); see %s.got (run with -update to accept)", c.name, golden, err, golden)
		}
	}
}

// A run's note says each reason once: a failed check that its error
// already says is not said again.
func TestRunNoteSaysEachReasonOnce(t *testing.T) {
	r := results.RunRecord{Error: "SPEC: VE (Output miscompare)", Checks: []evidence.Outcome{{What: "SPEC's verdict", Detail: "VE (Output miscompare)"},
		{What: "output", Detail: "line 3 differs"}}}
	if note := runRow(results.Benchmark{}, r).Note; note != "SPEC: VE (Output miscompare) output: line 3 differs" {
		t.Errorf("note %q", note)
	}
}

// compare's page says "not recorded" where an imported file names no
// host or CPU, not a blank.
func TestComparePageOfImports(t *testing.T) {
	p := ComparePage(hyperfineRun(), hyperfineRun(), "a", "b")
	if v := p.Facts[0].Value; !strings.HasPrefix(v, "not recorded, not recorded, not recorded (imported from hyperfine 1.18.0's hf.json)") {
		t.Errorf("the old run: %q", v)
	}
}
