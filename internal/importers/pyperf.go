package importers

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"corepin.dev/corepin/results"
)

// pyperfFile is what corepin reads of pyperf's JSON (psf/pyperf
// _bench.py, format versions 5, 6 and "1.0"): benchmarks of runs, each run
// one worker process with its warm-ups and values, and metadata at three
// levels, the run's over the benchmark's over the file's.
type pyperfFile struct {
	Version    json.RawMessage   `json:"version"`
	Metadata   map[string]any    `json:"metadata"`
	Benchmarks []pyperfBenchmark `json:"benchmarks"`
}

type pyperfBenchmark struct {
	Metadata       map[string]any `json:"metadata"`
	CommonMetadata map[string]any `json:"common_metadata"` // version 5
	Runs           []struct {
		Metadata map[string]any `json:"metadata"`
		Values   []float64      `json:"values"`
		Samples  []float64      `json:"samples"` // version 5
	} `json:"runs"`
}

// maxGunzipped bounds what a .json.gz may expand to.
const maxGunzipped = 256 << 20

// parsePyperf reads pyperf's JSON, gzipped or not: a benchmark per pyperf
// benchmark, a run per value. A value is the time of one loop iteration:
// its run's raw time is value × loops × inner_loops, as pyperf's own
// _get_raw_values computes it. Runs without values are calibration runs,
// and warm-ups are warm-ups: both are left out. A unit other than
// seconds (pyperf --track-memory's bytes) is a measure of its own, lower
// better, taken as it is.
func parsePyperf(data []byte) (*results.Run, map[string]results.RawJSON, error) {
	bad := func(format string, a ...any) error {
		return &FormatError{Tool: results.KindPyperf, Msg: fmt.Sprintf(format, a...)}
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, nil, bad("gzip: %v", err)
		}
		if data, err = io.ReadAll(io.LimitReader(zr, maxGunzipped+1)); err != nil {
			return nil, nil, bad("gzip: %v", err)
		}
		if len(data) > maxGunzipped {
			return nil, nil, bad("it expands to more than %d MB", maxGunzipped>>20)
		}
	}
	var top map[string]results.RawJSON
	if err := decodeStrict(data, &top); err != nil {
		return nil, nil, bad("%v", err)
	}
	var f pyperfFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, bad("%v", err)
	}
	v := string(bytes.TrimSpace(f.Version))
	if v != `"1.0"` && v != "6" && v != "5" {
		return nil, nil, bad("format version %s: corepin reads pyperf's versions 5, 6 and \"1.0\"", v)
	}
	if len(f.Benchmarks) == 0 {
		return nil, nil, bad("no benchmarks")
	}
	run := newRun()
	for i, pb := range f.Benchmarks {
		common := merge(f.Metadata, pb.Metadata)
		if v == "5" {
			common = merge(nil, pb.CommonMetadata) // no file metadata before version 6
		}
		var b results.Benchmark
		for j, pr := range pb.Runs {
			meta := merge(common, pr.Metadata)
			if j == 0 || b.Name == "" {
				name, _ := meta["name"].(string)
				if name == "" {
					return nil, nil, bad("benchmark %d has no name", i+1)
				}
				if benchmarkNamed(run, name) {
					return nil, nil, bad("two benchmarks named %q", name)
				}
				var command []string
				if c, ok := meta["command"].(string); ok { // pyperf command's
					command, _ = splitCommand(c)
				}
				b = newBenchmark(results.KindPyperf, name, command)
				b.Description, _ = meta["description"].(string)
				if unit, _ := meta["unit"].(string); unit != "" && unit != "second" {
					b.Measure = &results.Measured{Measure: results.Measure{Name: unit, Unit: unit, Better: results.LowerIsBetter}}
				}
			}
			values := pr.Values
			if v == "5" {
				values = pr.Samples
			}
			loops, err := loopCount(meta, "loops")
			if err != nil {
				return nil, nil, bad("%s: %v", b.Name, err)
			}
			inner, err := loopCount(meta, "inner_loops")
			if err != nil {
				return nil, nil, bad("%s: %v", b.Name, err)
			}
			for _, x := range values {
				if !figure(x) {
					return nil, nil, bad("%s: value %v is not a number of the unit", b.Name, x)
				}
				r := record(len(b.Runs))
				if b.Measure == nil {
					r.WallS = x * loops * inner
				} else {
					x := x
					r.Value = &x
				}
				b.Runs = append(b.Runs, r)
			}
		}
		if b.Name == "" {
			return nil, nil, bad("benchmark %d has no runs", i+1)
		}
		b.PlannedRuns = len(b.Runs)
		run.Benchmarks = append(run.Benchmarks, b)
	}
	meta := keepMetadata(top, "benchmarks", "metadata")
	if raw, ok := top["metadata"]; ok {
		var inner map[string]results.RawJSON
		if json.Unmarshal(raw, &inner) == nil {
			for k, v := range keepMetadata(inner) {
				if meta == nil {
					meta = map[string]results.RawJSON{}
				}
				meta[k] = v
			}
		}
	}
	if host, ok := f.Metadata["hostname"].(string); ok {
		run.Host.Hostname = host
	}
	if model, ok := f.Metadata["cpu_model_name"].(string); ok {
		run.Host.CPUModel = model
	}
	return run, meta, nil
}

// merge is over laid on under, as pyperf merges its metadata.
func merge(under, over map[string]any) map[string]any {
	out := make(map[string]any, len(under)+len(over))
	for k, v := range under {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// loopCount is the loop count key of a run's metadata: 1 when absent, a
// positive whole number otherwise.
func loopCount(meta map[string]any, key string) (float64, error) {
	v, ok := meta[key]
	if !ok || v == nil {
		return 1, nil
	}
	n, ok := v.(float64)
	if !ok || n < 1 || n != math.Trunc(n) || n > 1<<53 {
		return 0, fmt.Errorf("%s is %v, not a loop count", key, v)
	}
	return n, nil
}
