package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/samples"
)

// An exec report says when its command ran on both clocks, inside
// corepin's own process, in which folder, and where its telemetry is:
// what a join with another record of the invocation needs. Both ways of
// starting the command.
func TestExecReportCanBeJoined(t *testing.T) {
	cpu := requireExec(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range starts {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			report, curves := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.csv")
			args := append([]string{"exec", "-q", "--cpu", fmt.Sprint(cpu), "--report", report, "--telemetry", curves, "--telemetry-interval", "50ms"}, s.flags...)
			_, errOut, code := corepin(t, append(args, "--", "sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			rep := readReport(t, report)
			tm, own := rep.Child.Times, rep.Corepin
			if tm == nil || own == nil {
				t.Fatalf("times %+v, corepin %+v", tm, own)
			}
			t.Logf("corepin from %d (%s), the command %.1f ms later for %.1f ms, the report %.1f ms after it",
				own.StartUnixNS, own.StartSource, ms(tm.StartUnixNS-own.StartUnixNS), ms(tm.EndUnixNS-tm.StartUnixNS), ms(own.EndUnixNS-tm.EndUnixNS))
			if !(own.StartUnixNS <= tm.StartUnixNS && tm.StartUnixNS < tm.EndUnixNS && tm.EndUnixNS <= own.EndUnixNS) {
				t.Errorf("out of order: corepin %d-%d, the command %d-%d", own.StartUnixNS, own.EndUnixNS, tm.StartUnixNS, tm.EndUnixNS)
			}
			if mono, wall := tm.EndMonoNS-tm.StartMonoNS, tm.EndUnixNS-tm.StartUnixNS; mono != wall {
				t.Errorf("the command lasted %d ns on the monotonic clock, %d on the wall clock", mono, wall)
			}
			// The wall time is the kernel's where it may be read: it lies
			// within corepin's own readings around the command.
			if w := rep.Child.WallS * 1e9; w > float64(tm.EndUnixNS-tm.StartUnixNS)+1e6 {
				t.Errorf("wall_s %.6f is longer than the command's span %d ns", rep.Child.WallS, tm.EndUnixNS-tm.StartUnixNS)
			}
			if rep.Dir != wd {
				t.Errorf("dir %q, want %q", rep.Dir, wd)
			}
			tf := rep.Telemetry
			if tf == nil || tf.File != curves || tf.SamplerCPUs.Contains(cpu) || tf.StartUnixNS > tm.StartUnixNS {
				t.Fatalf("telemetry %+v: want %s, sampled off CPU %d, begun before the command", tf, curves, cpu)
			}
			f, err := os.Open(curves)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			got, _, err := samples.ReadCSV(f)
			if err != nil || len(got) != tf.Samples || len(got) == 0 {
				t.Fatalf("%d samples read (%v), the report says %d", len(got), err, tf.Samples)
			}
		})
	}
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// --telemetry is refused with --replace, which leaves nothing to sample
// around, and with a period the sampler cannot keep.
func TestExecTelemetryRefused(t *testing.T) {
	for _, args := range [][]string{
		{"exec", "--replace", "--telemetry", filepath.Join(t.TempDir(), "t.csv"), "--", "true"},
		{"exec", "--telemetry", filepath.Join(t.TempDir(), "t.csv"), "--telemetry-interval", "1ms", "--", "true"},
	} {
		_, errOut, code := corepin(t, args...)
		if code != exitUsage || !strings.Contains(errOut, "--telemetry") {
			t.Errorf("corepin %s: exit %d, %q", strings.Join(args, " "), code, errOut)
		}
	}
}
