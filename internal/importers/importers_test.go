package importers

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/results"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden reads each file of testdata as its tool and holds the run it
// makes, with the metadata kept, in a golden file beside it.
func TestGolden(t *testing.T) {
	for _, tt := range []struct{ file, tool string }{
		{"hyperfine-1.15.json", results.KindHyperfine},
		{"hyperfine-1.18.json", results.KindHyperfine},
		{"pyperf-loops.json", results.KindPyperf},
		{"pyperf-memory.json", results.KindPyperf},
		{"geekbench.json", results.KindGeekbench},
	} {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			run, meta, err := Parse(tt.tool, data)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(struct {
				Run      *results.Run               `json:"run"`
				Metadata map[string]results.RawJSON `json:"metadata"`
			}{run, meta}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(tt.file, ".json")+".golden")
			if *update {
				os.WriteFile(golden, append(got, '\n'), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if string(want) != string(got)+"\n" {
				t.Errorf("%s differs from %s (go test -update to accept):\n%s", tt.file, golden, got)
			}
		})
	}
}

// hyperfine's times are seconds, one run each; a failed run is no figure.
func TestHyperfine(t *testing.T) {
	run, meta := parseFile(t, results.KindHyperfine, "hyperfine-1.18.json")
	ok, failed := run.Benchmarks[0], run.Benchmarks[1]
	if ok.Name != "sh -c 'exit 0'" || strings.Join(ok.Command, "|") != "sh|-c|exit 0" || ok.N != 3 || ok.MedianS != 0.0021 || !ok.Valid {
		t.Errorf("benchmark %q %q: n %d, median %v, valid %v", ok.Name, ok.Command, ok.N, ok.MedianS, ok.Valid)
	}
	if ok.Runs[0].MaxRSSKB != 1440 || ok.Runs[0].Timed() != true || !math.IsNaN(ok.Runs[0].UserS) {
		t.Errorf("run %+v", ok.Runs[0])
	}
	if failed.Valid || failed.N != 0 || !strings.Contains(failed.Runs[1].Error, "signal") {
		t.Errorf("a failed command: valid %v, n %d, runs %+v", failed.Valid, failed.N, failed.Runs)
	}
	if version(results.KindHyperfine, meta) != "1.18.0" {
		t.Errorf("metadata %s", meta)
	}
}

// pyperf's values are per loop iteration: a run's time is value × loops ×
// inner_loops (here 2^10 × 10); calibration runs and warm-ups are left
// out; a gzipped file reads the same.
func TestPyperfLoops(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pyperf-loops.json"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	for _, in := range [][]byte{data, gz.Bytes()} {
		run, _, err := Parse(results.KindPyperf, in)
		if err != nil {
			t.Fatal(err)
		}
		b := run.Benchmarks[0]
		want := []float64{2.0e-08, 2.1e-08, 1.9e-08, 2.0e-08, 2.2e-08, 2.0e-08}
		if b.Name != "dict_lookup" || len(b.Runs) != len(want) {
			t.Fatalf("benchmark %q with %d runs, want %d (no calibration run, no warm-up)", b.Name, len(b.Runs), len(want))
		}
		for i, w := range want {
			if got := b.Runs[i].WallS; math.Abs(got-w*1024*10) > 1e-15 {
				t.Errorf("run %d: %v s, want %v × 1024 × 10 = %v", i, got, w, w*1024*10)
			}
		}
		sleep := run.Benchmarks[1]
		if strings.Join(sleep.Command, "|") != "/usr/bin/python3|-c|import time; time.sleep(0.01)" || sleep.N != 3 || sleep.MedianS != 0.0102 {
			t.Errorf("pyperf command: %q, n %d, median %v", sleep.Command, sleep.N, sleep.MedianS)
		}
		if run.Host.Hostname != "vm" || run.Host.CPUModel != "AMD EPYC" {
			t.Errorf("host %+v", run.Host)
		}
	}
}

// A memory peak is a measure of its own, not a time per loop.
func TestPyperfMemory(t *testing.T) {
	run, _ := parseFile(t, results.KindPyperf, "pyperf-memory.json")
	b := run.Benchmarks[0]
	m, fig := b.Figures()
	if m.Unit != "byte" || m.Higher() || fig.N != 2 || fig.Median != (7360512+7364608)/2 || b.N != 0 {
		t.Errorf("measure %+v, figures %+v, wall n %d", m, fig, b.N)
	}
}

// Geekbench's scores are higher-is-better, one benchmark each; what the
// export says beside them is kept.
func TestGeekbench(t *testing.T) {
	run, meta := parseFile(t, results.KindGeekbench, "geekbench.json")
	var names []string
	for _, b := range run.Benchmarks {
		names = append(names, b.Name)
		if m, _ := b.Figures(); !m.Higher() || b.Runs[0].Timed() {
			t.Errorf("%s: measure %+v, timed %v", b.Name, m, b.Runs[0].Timed())
		}
	}
	want := "score,multicore_score,Single-Core,Single-Core/File Compression,Single-Core/Clang,Multi-Core,Multi-Core/File Compression,Multi-Core/Clang"
	if strings.Join(names, ",") != want {
		t.Errorf("benchmarks %s", strings.Join(names, ","))
	}
	if string(meta["processor"]) != `"AMD EPYC"` || version(results.KindGeekbench, meta) != "6.2.2" || meta["sections"] == nil {
		t.Errorf("metadata %s", meta)
	}
}

// Import writes a results folder with the file kept byte for byte; five
// exports whose scores are 10% higher compare as 10% faster.
func TestImportGeekbenchExports(t *testing.T) {
	dir := t.TempDir()
	export := func(name string, scale float64, i int) string {
		p := filepath.Join(dir, name)
		score := math.Round(scale * (1500 + float64(i)))
		os.WriteFile(p, []byte(`{"score": `+fmt.Sprint(score)+`, "sections": [{"name": "Single-Core", "workloads": [{"name": "Clang", "score": `+fmt.Sprint(score+100)+`}]}], "extra": {"kept": true}}`), 0o644)
		return p
	}
	var old, new []string
	for i := range 5 {
		old = append(old, export("old"+fmt.Sprint(float64(i))+".json", 1, i))
		new = append(new, export("new"+fmt.Sprint(float64(i))+".json", 1.1, i))
	}
	a, fa, err := Import(results.KindGeekbench, old, filepath.Join(dir, "results"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Import(results.KindGeekbench, new, filepath.Join(dir, "results"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	kept, err := os.ReadFile(filepath.Join(fa.Path, a.Source.File))
	orig, _ := os.ReadFile(old[0])
	if err != nil || !bytes.Equal(kept, orig) || a.Benchmarks[0].Runs[3].Source.Name != "old3.json" {
		t.Errorf("the export is not kept byte for byte: %v", err)
	}
	if _, err := os.Stat(filepath.Join(fa.Path, "telemetry")); err == nil {
		t.Error("the import, which has no curves, left an empty telemetry folder")
	}
	back, err := results.Load(fa.Path)
	if err != nil || back.Kind() != results.KindGeekbench || back.Benchmarks[0].Measure.Stats.N != 5 {
		t.Fatalf("loading the folder: %v", err)
	}
	c := results.Compare(back, b)
	for _, d := range c.Deltas {
		if d.Change == nil || math.Abs(*d.Change-0.1) > 0.01 || d.Verdict() != results.VerdictFaster {
			t.Errorf("%s: change %v, verdict %q", d.Name, d.Change, d.Verdict())
		}
	}
}

// A file that is not the tool's is a FormatError naming the file.
func TestImportRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.json")
	os.WriteFile(p, []byte(`{"benchmarks": []}`), 0o644)
	for _, tool := range Tools {
		_, _, err := Import(tool, []string{p}, dir, time.Now())
		var fe *FormatError
		if err == nil || !strings.Contains(err.Error(), p) || !errors.As(err, &fe) {
			t.Errorf("%s: %v", tool, err)
		}
	}
}

func parseFile(t *testing.T, tool, name string) (*results.Run, map[string]results.RawJSON) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	run, meta, err := Parse(tool, data)
	if err != nil {
		t.Fatal(err)
	}
	return run, meta
}
