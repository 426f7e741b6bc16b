package runner

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/page"
	"corepin.dev/corepin/internal/suite"
	"corepin.dev/corepin/results"
)

// realPrograms are the programs of suites/real.toml at small sizes, each
// with the Debian package that provides it: a benchmark whose program is
// missing here is left out, and its test skips, naming the package.
var realPrograms = []struct{ name, program, pkg, toml string }{
	{"stockfish", "stockfish", "stockfish", `
[[benchmark]]
name = "stockfish"
cmd = "stockfish"
args = ["bench", "16", "1", "5"]
package = "stockfish"
version = ["stockfish"]
  [[benchmark.check]]
  stderr = true
  signature = 'Nodes searched\s*:\s*(\d+)'
  known = { "Stockfish 15.1 by the Stockfish developers (see AUTHORS file)" = "18388" }
  [benchmark.metric]
  stderr = true
  regex = 'Nodes/second\s*:\s*(\d+)'
  name = "Nodes/second"
  unit = "nodes/s"
  better = "higher"

[[benchmark]]
name = "stockfish-wrong"
cmd = "stockfish"
args = ["bench", "16", "1", "5"]
package = "stockfish"
version = ["stockfish"]
  [[benchmark.check]]
  stderr = true
  signature = 'Nodes searched\s*:\s*(\d+)'
  known = { "Stockfish 15.1 by the Stockfish developers (see AUTHORS file)" = "999999" }
`},
	{"zstd", "zstd", "zstd", `
[[benchmark]]
name = "zstd"
cmd = "sh"
args = ["-c", "zstd -q -19 -T1 -f -o text.zst text && zstd -q -d -f -o text.out text.zst"]
requires = ["zstd"]
package = "zstd"
  [[benchmark.input]]
  file = "text"
  text_bytes = 20000
  [[benchmark.check]]
  file = "text.out"
  sha256_of = "text"

[[benchmark]]
name = "zstd-corrupt"
cmd = "sh"
args = ["-c", "zstd -q -19 -T1 -f -o text.zst text && zstd -q -d -c text.zst | tr e E > text.out"]
requires = ["zstd", "tr"]
package = "zstd"
  [[benchmark.input]]
  file = "text"
  text_bytes = 20000
  [[benchmark.check]]
  file = "text.out"
  sha256_of = "text"
`},
	{"xz", "xz", "xz-utils", `
[[benchmark]]
name = "xz"
cmd = "sh"
args = ["-c", "xz -q -T1 -6 -c text > text.xz && xz -q -d -c text.xz > text.out"]
requires = ["xz"]
package = "xz-utils"
  [[benchmark.input]]
  file = "text"
  text_bytes = 20000
  [[benchmark.check]]
  file = "text.out"
  sha256_of = "text"
`},
	{"gcc", "gcc", "gcc", `
[[benchmark]]
name = "gcc"
cmd = "gcc"
args = ["-O2", "-S", "gen.c", "-o", "gen.s"]
package = "gcc"
version = ["gcc", "--version"]
  [[benchmark.input]]
  file = "gen.c"
  c_functions = 3
  [[benchmark.check]]
  file = "gen.s"
  sha256 = "recorded"
`},
	{"python", "python3", "python3", `
[[benchmark]]
name = "python"
cmd = "python3"
args = ["-I", "-B", "-c", "import hashlib; print('checksum', hashlib.sha256(str(sum(i * i for i in range(3000))).encode()).hexdigest())"]
package = "python3"
  [[benchmark.check]]
  stdout = true
  regex = '^checksum b72430462291c601036cb559b8d5f08563ac8e5e2c6aa9bffb3b87e93f5703f5$'
`},
}

// TestRealPrograms runs the real programs of the shipped suite, at small
// sizes, as corepin run does: each check passes, and the wrong output of
// each kind fails, saying why.
func TestRealPrograms(t *testing.T) {
	cfg := config(t)
	t.Setenv("XDG_STATE_HOME", t.TempDir()) // records of this test's own
	text := "[settings]\nruns = 1\nwarmup = 0\nwork = true\npath = [\"/usr/games\"]\n"
	missing := map[string]string{}
	for _, p := range realPrograms {
		if _, err := exec.LookPath(p.program); err != nil {
			if _, err := exec.LookPath(filepath.Join("/usr/games", p.program)); err != nil {
				missing[p.name] = fmt.Sprintf("%s is not installed (Debian package %s)", p.program, p.pkg)
				continue
			}
		}
		text += p.toml
	}
	if len(missing) == len(realPrograms) {
		t.Skip("none of the real programs is installed: apt-get install stockfish zstd xz-utils gcc python3")
	}
	path := filepath.Join(t.TempDir(), "real.toml")
	os.WriteFile(path, []byte(text), 0o644)
	s, err := suite.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Suite, cfg.Runs, cfg.Warmup = s, 0, -1
	run, folder, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	bench := func(t *testing.T, name string) *results.Benchmark {
		t.Helper()
		if why := missing[strings.TrimSuffix(strings.TrimSuffix(name, "-wrong"), "-corrupt")]; why != "" {
			t.Skip(why)
		}
		for i := range run.Benchmarks {
			if run.Benchmarks[i].Name == name {
				skipUnvouchedInGuest(t, run.Benchmarks[i].Runs...)
				return &run.Benchmarks[i]
			}
		}
		t.Fatalf("no benchmark %s in %+v", name, run.Benchmarks)
		return nil
	}
	for _, name := range []string{"stockfish", "zstd", "xz", "gcc", "python"} {
		t.Run(name+" passes", func(t *testing.T) {
			b := bench(t, name)
			if !b.Valid || len(b.Runs) != 1 || len(b.Runs[0].Checks) == 0 {
				t.Fatalf("valid %v, runs %+v", b.Valid, b.Runs)
			}
			for _, c := range b.Runs[0].Checks {
				if !c.Passed {
					t.Errorf("check %s: %s", c.What, c.Detail)
				}
			}
		})
	}
	t.Run("a wrong Stockfish signature fails with both values", func(t *testing.T) {
		b := bench(t, "stockfish-wrong")
		if !strings.HasPrefix(b.Version, "Stockfish 15.1 ") {
			t.Skipf("the signatures here are Debian 12's Stockfish 15.1's; the installed one is %q", b.Version)
		}
		c := b.Runs[0].Checks[0]
		if b.Valid || c.Passed || !strings.Contains(c.Detail, "999999") || !strings.Contains(c.Detail, "is ") {
			t.Errorf("valid %v, check %+v", b.Valid, c)
		}
		if right := bench(t, "stockfish"); !strings.Contains(c.Detail, "is "+strings.SplitN(right.Runs[0].Checks[0].Detail, ",", 2)[0]) {
			t.Errorf("the message %q lacks the nodes searched %q", c.Detail, right.Runs[0].Checks[0].Detail)
		}
	})
	t.Run("a corrupted zstd round trip fails", func(t *testing.T) {
		b := bench(t, "zstd-corrupt")
		if c := b.Runs[0].Checks[0]; b.Valid || c.Passed || !strings.Contains(c.Detail, "text's is") {
			t.Errorf("valid %v, check %+v", b.Valid, c)
		}
	})
	t.Run("Stockfish's nodes per second is higher-is-better", func(t *testing.T) {
		b := bench(t, "stockfish")
		m, fig := b.Figures()
		if !m.Higher() || m.Unit != "nodes/s" || fig.N != 1 || b.Runs[0].Value == nil || *b.Runs[0].Value <= 0 {
			t.Fatalf("measure %+v, figures %+v", m, fig)
		}
		back, err := results.Load(folder.Path)
		if err != nil || back.Benchmarks[0].Measure == nil || back.Benchmarks[0].Measure.Better != "higher" {
			t.Fatalf("run.json: %v", err)
		}
		data, _ := os.ReadFile(filepath.Join(folder.Path, "summary.csv"))
		rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
		if err != nil || !strings.Contains(strings.Join(rows[1], ","), "Nodes/second,nodes/s,higher") {
			t.Errorf("summary.csv: %v\n%s", err, data)
		}
		var html bytes.Buffer
		if err := page.Write(&html, back, folder.Path); err != nil || !strings.Contains(html.String(), "Nodes/second (nodes/s, higher is better)") {
			t.Errorf("the page does not say which way is better: %v", err)
		}
		faster := *back
		faster.Benchmarks = append([]results.Benchmark{}, back.Benchmarks...)
		sf := &faster.Benchmarks[0]
		sf.Runs = append([]results.RunRecord{}, sf.Runs...)
		measure := *sf.Measure
		sf.Measure = &measure
		v := *sf.Runs[0].Value * 1.1
		sf.Runs[0].Value = &v
		sf.Summarize()
		d := results.Compare(back, &faster).Deltas[0]
		if !d.Measure.Higher() || d.Change == nil || *d.Change < 0.09 || *d.Change > 0.11 || !d.Better() {
			t.Errorf("compare: %+v", d)
		}
	})
	if len(missing) > 0 {
		t.Logf("left out: %v", missing)
	}
}
