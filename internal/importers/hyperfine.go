package importers

import (
	"encoding/json"
	"fmt"

	"corepin.dev/corepin/results"
)

// hyperfineFile is what corepin reads of hyperfine --export-json: per
// command its times in seconds (the JSON exporter ignores --time-unit),
// its exit codes (null for a command a signal ended) and, from hyperfine
// 1.16 on, its peak memory per run. Means, medians and the rest are
// hyperfine's statistics of these, which corepin computes again.
type hyperfineFile struct {
	Results []struct {
		Command   *string    `json:"command"`
		Times     []float64  `json:"times"`
		ExitCodes []*int     `json:"exit_codes"`
		Memory    []*float64 `json:"memory_usage_byte"`
	} `json:"results"`
}

// parseHyperfine reads hyperfine's JSON: a benchmark per command, named
// by its command line, a run per time.
func parseHyperfine(data []byte) (*results.Run, map[string]results.RawJSON, error) {
	bad := func(format string, a ...any) error {
		return &FormatError{Tool: results.KindHyperfine, Msg: fmt.Sprintf(format, a...)}
	}
	var top map[string]results.RawJSON
	if err := decodeStrict(data, &top); err != nil {
		return nil, nil, bad("%v", err)
	}
	var f hyperfineFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, bad("%v", err)
	}
	if f.Results == nil {
		return nil, nil, bad("no \"results\" list")
	}
	run := newRun()
	for i, res := range f.Results {
		if res.Command == nil || *res.Command == "" {
			return nil, nil, bad("result %d has no command", i+1)
		}
		name := *res.Command
		if dup := benchmarkNamed(run, name); dup {
			name = fmt.Sprintf("%s (%d)", name, i+1) // a command given twice, as hyperfine allows
		}
		command, _ := splitCommand(*res.Command)
		b := newBenchmark(results.KindHyperfine, name, command)
		for j, t := range res.Times {
			if !figure(t) {
				return nil, nil, bad("%q: time %d is %v, not a number of seconds", *res.Command, j+1, t)
			}
			r := record(j)
			r.WallS = t
			if j < len(res.ExitCodes) {
				switch code := res.ExitCodes[j]; {
				case code == nil:
					r.Valid, r.Error = false, "ended by a signal (hyperfine's exit code is null)"
				case *code != 0:
					r.Valid, r.Error = false, fmt.Sprintf("exit status %d (hyperfine --ignore-failure)", *code)
				}
			}
			if j < len(res.Memory) && res.Memory[j] != nil && figure(*res.Memory[j]) && *res.Memory[j] < 1<<62 {
				r.MaxRSSKB = int64(*res.Memory[j]) / 1024
			}
			b.Runs = append(b.Runs, r)
		}
		b.PlannedRuns = len(b.Runs)
		run.Benchmarks = append(run.Benchmarks, b)
	}
	meta := keepMetadata(top, "results", "metadata")
	// hyperfine 1.17 on: {"metadata": {"hyperfine_version": …, "platform": …}}
	var inner map[string]results.RawJSON
	if raw, ok := top["metadata"]; ok && json.Unmarshal(raw, &inner) == nil {
		for k, v := range keepMetadata(inner) {
			if meta == nil {
				meta = map[string]results.RawJSON{}
			}
			meta[k] = v
		}
	}
	return run, meta, nil
}

// benchmarkNamed reports whether the run has a benchmark of that name.
func benchmarkNamed(run *results.Run, name string) bool {
	for _, b := range run.Benchmarks {
		if b.Name == name {
			return true
		}
	}
	return false
}
