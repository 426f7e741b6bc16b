package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCaptureOptions: each wrong flag is refused before a sample, naming
// the flag; a right capture gives the sampler's options.
func TestCaptureOptions(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		capture Capture
		want    string
	}{
		{Capture{Interval: time.Second, CPUs: "x"}, "--cpus: "},
		{Capture{Interval: time.Second, Avoid: "3-1"}, "--avoid: "},
		{Capture{Interval: time.Millisecond}, "--interval 1ms is shorter than"},
		{Capture{Interval: time.Second, Out: dir}, "--out: "},
		{Capture{Interval: time.Second, ThermalFile: dir}, "--thermal: "},
		{Capture{Interval: time.Second, Format: "xml"}, `--format "xml": want table, csv or json`},
	} {
		if _, err := c.capture.Options(); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.capture, err, c.want)
		}
	}
	opts, err := Capture{Interval: time.Second, CPUs: "0-1", Avoid: "1", ThermalFile: filepath.Join(dir, "t.csv")}.Options()
	if err != nil || opts.CPUs.String() != "0-1" || opts.Avoid.String() != "1" || !opts.Thermal || opts.Period != time.Second {
		t.Errorf("options %+v, %v", opts, err)
	}
}

// TestCaptureSave: the series goes to its file in the format asked, and
// nothing is printed then.
func TestCaptureSave(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cpu.csv")
	var stdout strings.Builder
	if err := (Capture{Format: "csv", Out: out}).Save(&stdout, testSeries()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(data), "scaling_cur_freq") || stdout.Len() != 0 {
		t.Errorf("file %q (%v), stdout %q", data, err, stdout.String())
	}
}

// TestCaptureRecord: a capture with a duration ends by itself, says
// nothing on stderr, and returns the samples it recorded.
func TestCaptureRecord(t *testing.T) {
	c := Capture{Interval: MinPeriod, Duration: 4 * MinPeriod}
	opts, err := c.Options()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	s, err := c.Record(context.Background(), opts, &stdout, &stderr, false)
	if err != nil {
		t.Skipf("this machine cannot be sampled: %v", err)
	}
	if len(s.Samples) == 0 || stderr.Len() != 0 || stdout.Len() != 0 {
		t.Errorf("%d samples, stdout %q, stderr %q", len(s.Samples), stdout.String(), stderr.String())
	}
}
