package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"corepin.dev/corepin/results"
	"corepin.dev/corepin/telemetry"
	"corepin.dev/corepin/telemetry/samples"
)

// ParseResult reads a raw result file or, where it begins as runcpu's CSV
// report does, the CSV.
func ParseResult(data []byte) (*Result, error) {
	if bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("valid,")) {
		return ParseCSV(data)
	}
	return ParseRSF(data)
}

// maxTelemetryFile bounds corepin telemetry's JSON around a whole run, as
// run.json is bounded: a sample is some 100 bytes, so 256 MiB is a day at
// one a second on 32 CPUs.
const maxTelemetryFile = 256 << 20

// ReadTelemetry reads corepin telemetry's JSON (--format json), whose
// start on the wall clock places its samples. A CSV is refused: its times
// count from its own start, which it does not hold.
func ReadTelemetry(path string) (*telemetry.Series, error) {
	data, err := readRegular(path, maxTelemetryFile)
	if err != nil {
		return nil, err
	}
	var s telemetry.Series
	if !bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{")) {
		return nil, fmt.Errorf("%s is not corepin telemetry's JSON: a CSV's times count from its own start, which it does not record; record the run with corepin telemetry --format json --out FILE", path)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if s.Started.IsZero() || s.Period <= 0 {
		return nil, fmt.Errorf("%s is not corepin telemetry's JSON: no start or period", path)
	}
	return &s, nil
}

// ReadCurves reads the CSVs exec --telemetry wrote beside the reports in
// dir, by their names; a report's CSV that is not there is left out.
func ReadCurves(dir string, reports []Report) (map[string][]telemetry.Sample, error) {
	out := map[string][]telemetry.Sample{}
	for _, r := range reports {
		tf := r.Scheduling.Telemetry
		if tf == nil {
			continue
		}
		name := filepath.Base(tf.File)
		if _, done := out[name]; done {
			continue
		}
		data, err := readRegular(filepath.Join(dir, name), maxReportFile*4)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading exec's telemetry: %w", err)
		}
		got, _, err := samples.ReadCSV(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("reading exec's telemetry %s: %w", filepath.Join(dir, name), err)
		}
		out[name] = got
	}
	return out, nil
}

// Write builds the import and writes it into a new results folder under
// out, with the result file kept byte for byte beside run.json.
func (im *Import) Write(out string, data []byte) (*results.Folder, *results.Run, error) {
	run, files := im.Run()
	host := "spec"
	if l := strings.TrimSpace(im.Result.Lognum); l != "" {
		host += "." + l
	}
	folder, err := results.Create(out, host, run.Started)
	if err != nil {
		return nil, nil, err
	}
	if err := folder.KeepSource(im.Source, data); err != nil {
		return folder, nil, err
	}
	for name, content := range files {
		if err := os.MkdirAll(filepath.Join(folder.Path, filepath.Dir(name)), 0o755); err != nil {
			return folder, nil, fmt.Errorf("writing %s: %w", name, err)
		}
		if err := folder.WriteFile(name, func(w io.Writer) error { _, err := w.Write(content); return err }); err != nil {
			return folder, nil, fmt.Errorf("writing %s: %w", name, err)
		}
	}
	return folder, run, folder.Save(run)
}
