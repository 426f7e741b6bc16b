package results

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// crashedFolder writes what a run leaves when its writer dies after two
// of fib's four runs and before sha256 began: run.json marked running by
// a process that is gone, and a journal whose last line was cut short.
func crashedFolder(t *testing.T) (*Folder, *Run) {
	t.Helper()
	f, err := Create(t.TempDir(), "host", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	w := ThisWriter()
	w.PID = dead.Process.Pid // ended and reaped: its PID is free, or another process's
	r := &Run{Schema: Schema, State: StateRunning, Writer: w, Started: time.Now(), Benchmarks: []Benchmark{
		{Name: "fib", ReferenceS: 1, PlannedRuns: 4, Runs: []RunRecord{}},
		{Name: "sha256", ReferenceS: 1, PlannedRuns: 4, Runs: []RunRecord{}},
	}}
	if err := f.SaveRun(r); err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []float64{0.17, 0.18} {
		rec := RunRecord{Index: i, WallS: s, Valid: true, Started: time.Now()}
		if err := j.Append("fib", &rec); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	half, _ := os.OpenFile(filepath.Join(f.Path, JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	half.WriteString(`{"benchmark":"fib","record":{"index":2,"wall_s":0.`)
	half.Close()
	return f, r
}

func TestCrashedRunHoldsOnlyCompletedRuns(t *testing.T) {
	f, _ := crashedFolder(t)
	r, err := Load(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if r.State != StateCrashed || r.Done() {
		t.Errorf("state %q, want crashed", r.State)
	}
	fib, sha := r.Benchmarks[0], r.Benchmarks[1]
	if fib.N != 2 || fib.CompletedRuns != 2 || fib.MedianS != 0.175 || fib.MinS != 0.17 || fib.Valid {
		t.Errorf("fib: %+v", fib)
	}
	if sha.N != 0 || sha.Ratio != nil || r.Score != nil {
		t.Errorf("sha256 has a result: %+v, score %v", sha, r.Score)
	}
	if err := f.Recover(r); err != nil {
		t.Fatal(err)
	}
	// run.json: null times for sha256, the state, both runs of fib.
	data, _ := os.ReadFile(filepath.Join(f.Path, "run.json"))
	var raw struct {
		State      string `json:"state"`
		Benchmarks []struct {
			Median *float64          `json:"median_s"`
			Min    *float64          `json:"min_s"`
			Runs   []json.RawMessage `json:"runs"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if raw.State != StateCrashed || raw.Benchmarks[1].Median != nil || raw.Benchmarks[1].Min != nil ||
		raw.Benchmarks[0].Median == nil || len(raw.Benchmarks[0].Runs) != 2 {
		t.Errorf("run.json: %s", data)
	}
	bench, _ := os.ReadFile(filepath.Join(f.Path, "bench.txt"))
	if strings.Contains(string(bench), "Sha256") || strings.Count(string(bench), "BenchmarkFib") != 2 ||
		!strings.Contains(string(bench), "corepin-state: crashed") {
		t.Errorf("bench.txt:\n%s", bench)
	}
	csv, _ := os.ReadFile(filepath.Join(f.Path, "summary.csv"))
	if !strings.Contains(string(csv), "sha256,false,0,,,,,,,1,,") || !strings.Contains(string(csv), ",2,4,crashed") {
		t.Errorf("summary.csv:\n%s", csv)
	}
	// Loaded again, the recovered folder stays as it is.
	again, err := Load(f.Path)
	if err != nil || again.State != StateCrashed || again.Benchmarks[0].N != 2 {
		t.Errorf("reloaded: %v %+v", err, again)
	}
}

func TestRunningRunWithLiveWriterIsNotCrashed(t *testing.T) {
	f, r := crashedFolder(t)
	r.Writer = ThisWriter()
	f.SaveRun(r)
	back, err := Load(f.Path)
	if err != nil || back.State != StateRunning || back.Benchmarks[0].N != 2 {
		t.Fatalf("%v %+v", err, back)
	}
	if !strings.Contains(strings.Join(WarningTexts(back.Warnings), "\n"), "in progress") {
		t.Errorf("warnings %q", back.Warnings)
	}
}

func TestJournalAppendCostsTheSameLate(t *testing.T) {
	f, err := Create(t.TempDir(), "host", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	j, _ := f.OpenJournal()
	defer j.Close()
	rec := RunRecord{WallS: 1}
	for range 3 {
		j.Append("fib", &rec)
	}
	st, _ := os.Stat(filepath.Join(f.Path, JournalFile))
	one, _ := json.Marshal(entry{Benchmark: "fib", Record: rec})
	// Appending writes one line; it never rewrites what is there.
	if st.Size() != 3*int64(len(one)+1) {
		t.Errorf("journal is %d bytes, want 3 lines of %d", st.Size(), len(one)+1)
	}
	var buf bytes.Buffer
	buf.Write(one)
	r := &Run{Benchmarks: []Benchmark{{Name: "fib"}}}
	if err := replay(r, &buf); err != nil || len(r.Benchmarks[0].Runs) != 1 {
		t.Errorf("replay: %v %d", err, len(r.Benchmarks[0].Runs))
	}
}
