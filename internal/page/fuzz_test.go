package page

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"corepin.dev/corepin/results"
)

// FuzzRunJSON reads any run.json as report and compare do: whatever it
// holds, reading, settling, the page and the comparison never panic.
func FuzzRunJSON(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "small", "run.json")); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"schema":"corepin.run/v1","state":"running","benchmarks":[{"name":"x","planned_runs":3,"runs":[{"wall_s":1e308,"scheduling":{"ladder":{"accepted_step":7}}}]}]}`))
	f.Add([]byte(`{"schema":"corepin.run/v1","benchmarks":[{"name":"a","runs":[{"warmup":false,"wall_s":-1,"telemetry_csv":"../x"}]}]}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := results.Parse(data)
		if err != nil {
			return
		}
		r.Settle()
		Write(io.Discard, r, dir)
		c := results.Compare(r, r)
		c.WriteText(io.Discard)
		c.WriteCSV(io.Discard)
		r.WriteSummaryCSV(io.Discard)
		r.WriteBenchFormat(io.Discard)
	})
}
