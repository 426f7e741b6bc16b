package page

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/termsafetest"
	"corepin.dev/corepin/results"
)

// TestPagesMakeOutsideTextSafe: whatever a run read from a folder holds,
// in every string, the run's page, the comparison and the merge hold no
// byte a terminal (or a reader of the page's source) would obey.
func TestPagesMakeOutsideTextSafe(t *testing.T) {
	for _, valid := range []bool{true, false} {
		dir := t.TempDir()
		evilRun := func(valid bool) *results.Run {
			var r results.Run
			termsafetest.Fill(&r, termsafetest.Evil, valid)
			return &r
		}
		r := evilRun(valid)
		// A telemetry file that is there, whose frequency source is evil.
		r.Benchmarks[0].Runs[0].TelemetryCSV = "t.csv"
		os.WriteFile(filepath.Join(dir, "t.csv"), []byte("t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,1,50,1000,\"\x1b[31m\"\n0.2,1,60,1100,\"\x1b[31m\"\n"), 0o644)
		render := func(what string, write func(*bytes.Buffer) error) {
			t.Helper()
			var b bytes.Buffer
			if err := write(&b); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			termsafetest.Check(t, what, b.Bytes())
		}
		render("the run's page", func(b *bytes.Buffer) error { return Write(b, r, dir) })
		other := evilRun(!valid)
		render("the comparison page", func(b *bytes.Buffer) error {
			return ComparePage(r, other, termsafetest.Evil, termsafetest.Evil).Render(b)
		})
		render("the merge page", func(b *bytes.Buffer) error {
			return MergePage(results.Merged([]*results.Run{r, other}, []string{termsafetest.Evil, termsafetest.Evil})).Render(b)
		})
	}
}

// TestPageReadsOnlyInsideTheFolder: a telemetry file that is a symbolic
// link out of the results folder, to a file only root may read, is not
// read into the page, nor is one named by a path that leaves the folder; a
// link that stays inside the folder is read.
func TestPageReadsOnlyInsideTheFolder(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret")
	os.WriteFile(secret, []byte("t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,1,50,1000,TOPSECRET\n"), 0o600)
	dir := filepath.Join(base, "results")
	os.MkdirAll(filepath.Join(dir, "telemetry"), 0o755)
	os.WriteFile(filepath.Join(dir, "telemetry", "real.csv"), []byte("t_s,cpu,util_pct,freq_mhz,freq_source\n0.1,1,50,1000,INSIDE\n"), 0o644)
	for link, to := range map[string]string{"out.csv": "../../secret", "abs.csv": secret, "in.csv": "real.csv"} {
		if err := os.Symlink(to, filepath.Join(dir, "telemetry", link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(base), filepath.Join(dir, "up")); err != nil {
		t.Fatal(err)
	}
	r := smallRun(t)
	runs := r.Benchmarks[0].Runs[:0]
	for i, rel := range []string{"telemetry/out.csv", "telemetry/abs.csv", "up/secret", "../secret", "telemetry/in.csv"} {
		runs = append(runs, results.RunRecord{Index: i, Valid: true, Started: r.Started, TelemetryCSV: rel})
	}
	r.Benchmarks = r.Benchmarks[:1]
	r.Benchmarks[0].Runs = runs
	var b bytes.Buffer
	if err := Write(&b, r, dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "TOPSECRET") {
		t.Error("the page holds the content of a file outside the results folder")
	}
	if !strings.Contains(b.String(), "INSIDE") {
		t.Error("the page lacks a telemetry file linked inside the folder")
	}
	if n := strings.Count(b.String(), "telemetry unreadable"); n != 4 {
		t.Errorf("%d runs' telemetry said unreadable, want 4", n)
	}
}
