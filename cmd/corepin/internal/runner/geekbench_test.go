package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/importers"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/results"
	"corepin.dev/corepin/session"
)

// standInGeekbench is a stand-in for Geekbench's CLI, which is not
// installed here: it takes the flags corepin's recipe gives it and writes
// an export of the documented shape, its single-core or multi-core score,
// and, beside them, the CPUs it was allowed to run on.
const standInGeekbench = `#!/bin/sh
export=""
mode=single
while [ $# -gt 0 ]; do
	case "$1" in
	--export-json) export="$2"; shift ;;
	--multi-core) mode=multi ;;
	esac
	shift
done
cpus=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
if [ "$mode" = single ]; then
	score='"score": 1704,'
else
	score='"multicore_score": 3100,'
fi
cat > "$export" <<JSON
{"version": "6.2.2", $score "allowed_cpus": "$cpus",
 "sections": [{"name": "Single-Core", "score": 1704, "workloads": [{"name": "File Compression", "score": 1529}]}]}
JSON
echo "Geekbench 6.2.2 Tryout (stand-in)"
`

// Geekbench's CLI run by corepin as docs/geekbench.md says: single-core on
// the target CPU, multi-core on its performance group; each run's score
// is its export's, carries the run's read-back, and the export is kept
// beside the run, which corepin import reads as Geekbench's.
func TestGeekbenchUnderCorepin(t *testing.T) {
	cfg := config(t)
	dir := t.TempDir()
	gb := filepath.Join(dir, "bin", "geekbench6")
	os.MkdirAll(filepath.Dir(gb), 0o755)
	os.WriteFile(gb, []byte(standInGeekbench), 0o755)
	text := fmt.Sprintf(`[settings]
runs = 1
warmup = 0
work = true
path = [%q]
[[benchmark]]
name = "geekbench-single"
cmd = "geekbench6"
args = ["--cpu", "--single-core", "--no-upload", "--export-json", "geekbench.json"]
install = "Geekbench 6"
  [benchmark.metric]
  file = "geekbench.json"
  geekbench = "score"
[[benchmark]]
name = "geekbench-multi"
cmd = "geekbench6"
args = ["--cpu", "--multi-core", "--no-upload", "--export-json", "geekbench.json"]
install = "Geekbench 6"
cpus = "group"
  [benchmark.metric]
  file = "geekbench.json"
  geekbench = "multicore_score"
`, filepath.Dir(gb))
	path := filepath.Join(dir, "gb.toml")
	os.WriteFile(path, []byte(text), 0o644)
	s, err := suite.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite, cfg.Runs, cfg.Warmup = s, 0, -1
	// The mask alone, which any user may set (adb shell's too): a soft
	// run whose ladder no step of holds is refused, and the ladder is the
	// session's tests' concern, not the score's.
	cfg.Request.Ladder = session.AffinityOnly()
	run, folder, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	group := cfg.Target.SoftCPUs
	for i, want := range []struct {
		score float64
		cpus  cpuset.Set
	}{{1704, cpuset.Of(cfg.Request.CPU)}, {3100, group}} {
		b := run.Benchmarks[i]
		skipUnvouchedInGuest(t, b.Runs...)
		r := b.Runs[0]
		if m, fig := b.Figures(); !b.Valid || !m.Higher() || fig.N != 1 || fig.Median != want.score {
			t.Fatalf("%s: valid %v, measure %+v, figures %+v, runs %+v", b.Name, b.Valid, m, fig, b.Runs)
		}
		if r.Scheduling == nil || !r.Scheduling.Readback.CPUs.Equal(want.cpus) {
			t.Errorf("%s: read-back %+v, want the mask %s", b.Name, r.Scheduling, want.cpus)
		}
		if r.Source == nil || r.Source.Tool != results.KindGeekbench {
			t.Fatalf("%s: the export is not kept: %+v", b.Name, r.Source)
		}
		data, err := os.ReadFile(filepath.Join(folder.Path, r.Source.File))
		if err != nil {
			t.Fatal(err)
		}
		var export struct {
			Allowed string `json:"allowed_cpus"`
		}
		json.Unmarshal(data, &export)
		if allowed, err := cpuset.Parse(export.Allowed); err != nil || !allowed.Equal(want.cpus) {
			t.Errorf("%s: Geekbench was allowed CPUs %q, want %s", b.Name, export.Allowed, want.cpus)
		}
		// The kept export is one corepin import reads.
		if _, _, err := importers.Import(results.KindGeekbench, []string{filepath.Join(folder.Path, r.Source.File)}, t.TempDir(), r.Started); err != nil {
			t.Errorf("%s: the kept export does not import: %v", b.Name, err)
		}
	}
	if strings.Contains(fmt.Sprint(run.Warnings), "skipped") {
		t.Errorf("a Geekbench benchmark was skipped: %v", run.Warnings)
	}
}
