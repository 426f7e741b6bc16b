package results

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"testing"
)

// mergeFixtures are two runs of the same job on one machine with
// different --cpu: run --quick --only fib,json --cpu 0, then --cpu 1.
func mergeFixtures(t *testing.T) ([]*Run, []string) {
	t.Helper()
	var runs []*Run
	names := []string{"cpu0", "cpu1"}
	for _, n := range names {
		r, err := Load(filepath.Join("testdata", "merge", n))
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs, names
}

func TestMergeText(t *testing.T) {
	runs, names := mergeFixtures(t)
	m := Merged(runs, names)
	var b bytes.Buffer
	if err := m.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "merge.golden")
	if *update {
		os.WriteFile(golden, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if b.String() != string(want) {
		t.Errorf("merge text differs from %s (run with -update to accept):\n%s", golden, b.String())
	}
}

func TestMergeModel(t *testing.T) {
	runs, names := mergeFixtures(t)
	// A benchmark only on the second machine, and one only on the first.
	runs[1].Benchmarks = append(runs[1].Benchmarks, Benchmark{Name: "extra", Stats: Stats{N: 6, MedianS: 1}, Valid: true})
	runs[0].Benchmarks = runs[0].Benchmarks[:1]
	m := Merged(runs, names)
	if len(m.Machines) != 2 || m.Machines[0].Target.ExactCPU != 0 || m.Machines[1].Target.ExactCPU != 1 {
		t.Fatalf("machines %+v", m.Machines)
	}
	if m.Machines[1].Scheduling == "no scheduling report" || m.Machines[0].Topology == "" {
		t.Errorf("evidence missing: %+v", m.Machines[1])
	}
	byName := map[string]MergeRow{}
	for _, r := range m.Benchmarks {
		byName[r.Name] = r
	}
	fib := byName["fib"]
	if fib.Cells[0] == nil || fib.Cells[1] == nil || fib.Cells[1].Relative == nil ||
		*fib.Cells[1].Relative != fib.Cells[1].MedianS/fib.Cells[0].MedianS || fib.Cells[0].Relative != nil {
		t.Errorf("fib: %+v %+v", fib.Cells[0], fib.Cells[1])
	}
	if c := byName["json"].Cells; c[0] != nil || c[1] == nil || c[1].Relative != nil {
		t.Errorf("json only on the second machine: %+v", c)
	}
	if c := byName["extra"].Cells; c[0] != nil || c[1] == nil {
		t.Errorf("extra: %+v", c)
	}
	var b bytes.Buffer
	if err := m.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != 1+4 { // fib twice, json once, extra once
		t.Errorf("csv: %v, %d rows\n%s", err, len(rows), b.String())
	}
}
