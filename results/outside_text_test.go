package results

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/internal/termsafetest"
)

// evilRun is a run read from a results folder that anyone may have
// written: every string of it is termsafetest.Evil, every optional part
// is there, each benchmark has two of each.
func evilRun(valid bool) *Run {
	var r Run
	termsafetest.Fill(&r, termsafetest.Evil, valid)
	return &r
}

// TestViewsMakeOutsideTextSafe: whatever a run holds, no text view, CSV or
// bench.txt shows a byte a terminal would obey, and the CSV and benchmark
// lines keep their shape.
func TestViewsMakeOutsideTextSafe(t *testing.T) {
	for _, valid := range []bool{true, false} {
		r := evilRun(valid)
		view := func(what string, write func(*bytes.Buffer) error) []byte {
			t.Helper()
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			termsafetest.Check(t, what, b.Bytes())
			return b.Bytes()
		}
		view("the run's summary", func(b *bytes.Buffer) error { return r.WriteSummary(b, nil) })
		checkCSV(t, "summary.csv", view("summary.csv", func(b *bytes.Buffer) error { return r.WriteSummaryCSV(b) }))
		checkBench(t, view("bench.txt", func(b *bytes.Buffer) error { return r.WriteBenchFormat(b) }))
		m := Merged([]*Run{r, evilRun(!valid)}, []string{termsafetest.Evil, termsafetest.Evil + "2"})
		view("merge's text", func(b *bytes.Buffer) error { return m.WriteText(b) })
		checkCSV(t, "merge's CSV", view("merge's CSV", func(b *bytes.Buffer) error { return m.WriteCSV(b) }))
		c := Compare(r, evilRun(!valid))
		view("compare's text", func(b *bytes.Buffer) error { return c.WriteText(b) })
		checkCSV(t, "compare's CSV", view("compare's CSV", func(b *bytes.Buffer) error { return c.WriteCSV(b) }))
	}
}

// checkCSV reads the CSV back: every row as long as the header, and the
// first cell of each row the name as Text shows it.
func checkCSV(t *testing.T, what string, data []byte) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll() // rows of another length are an error
	if err != nil {
		t.Fatalf("%s does not read back: %v\n%s", what, err, data)
	}
	if len(rows) < 2 || rows[1][0] != termsafe.Text(termsafetest.Evil) {
		t.Errorf("%s: %d rows, the first named %q", what, len(rows), rows[min(1, len(rows)-1)][0])
	}
}

// checkBench checks the Go benchmark format: a result line is a name
// without spaces, the iterations and a value with its unit; any other
// line is a configuration line "key: value".
func checkBench(t *testing.T, data []byte) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(line, "Benchmark") {
			// the wall time, and the value of a benchmark's own measure
			if f := strings.Fields(line); len(f) < 4 || len(f) > 6 || len(f)%2 != 0 || f[1] != "1" {
				t.Errorf("bench.txt: result line %q", line)
			}
			continue
		}
		if strings.HasPrefix(line, "Unit ") {
			if f := strings.Fields(line); len(f) != 3 || (f[2] != "better=higher" && f[2] != "better=lower") {
				t.Errorf("bench.txt: unit line %q", line)
			}
			continue
		}
		if key, _, ok := strings.Cut(line, ": "); !ok || strings.ContainsAny(key, " \t") {
			t.Errorf("bench.txt: line %q is neither a result nor a configuration line", line)
		}
	}
}

// TestLoadReadsOnlyInsideTheFolder: a run.json or a journal that is a
// symbolic link out of the results folder is not read; one that links
// inside it is.
func TestLoadReadsOnlyInsideTheFolder(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	os.Mkdir(outside, 0o700)
	running := `{"schema":"corepin.run/v1","state":"running","writer":{"pid":-1},"benchmarks":[{"name":"x"}]}`
	journal := `{"benchmark":"x","record":{"index":0,"wall_s":1,"valid":true}}` + "\n"
	os.WriteFile(filepath.Join(outside, "run.json"), []byte(running), 0o600)
	os.WriteFile(filepath.Join(outside, JournalFile), []byte(journal), 0o600)
	folder := func(name string, links map[string]string) string {
		dir := filepath.Join(base, name)
		os.Mkdir(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "run.json"), []byte(running), 0o644)
		os.WriteFile(filepath.Join(dir, "journal.real"), []byte(journal), 0o644)
		for link, to := range links {
			os.Remove(filepath.Join(dir, link))
			if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	if _, err := Load(folder("run-out", map[string]string{"run.json": "../outside/run.json"})); err == nil {
		t.Error("a run.json linked out of its folder was read")
	}
	if _, err := Load(filepath.Join(folder("run-out-direct", map[string]string{"run.json": filepath.Join(outside, "run.json")}), "run.json")); err == nil {
		t.Error("a run.json linked out of its folder, named directly, was read")
	}
	for name, to := range map[string]string{"journal-out": "../outside/" + JournalFile, "journal-in": "journal.real"} {
		r, err := Load(folder(name, map[string]string{JournalFile: to}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got, want := len(r.Benchmarks[0].Runs), map[string]int{"journal-out": 0, "journal-in": 1}[name]; got != want {
			t.Errorf("%s: %d runs read from the journal, want %d", name, got, want)
		}
	}
}

// TestRunJSONKeepsTheBytes: run.json and the journal hold every string's
// exact bytes, and nothing raw that a terminal showing them would obey.
func TestRunJSONKeepsTheBytes(t *testing.T) {
	f, err := Create(t.TempDir(), termsafetest.Evil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	r := evilRun(false)
	r.Schema, r.State = Schema, StateFinished
	if err := f.Save(r); err != nil {
		t.Fatal(err)
	}
	j, _ := f.OpenJournal()
	j.Append(termsafetest.Evil, &r.Benchmarks[0].Runs[0])
	j.Close()
	for _, name := range []string{"run.json", JournalFile} {
		data, _ := os.ReadFile(filepath.Join(f.Path, name))
		termsafetest.Check(t, name, data)
	}
	back, err := Load(f.Path)
	if err != nil {
		t.Fatal(err)
	}
	if b := back.Benchmarks[0]; b.Name != termsafetest.Evil || b.Runs[0].Error != termsafetest.Evil || back.Host.Hostname != termsafetest.Evil {
		t.Errorf("run.json read back %q, %q, %q; want %q", b.Name, b.Runs[0].Error, back.Host.Hostname, termsafetest.Evil)
	}
}
