package importers

import (
	"encoding/json"
	"fmt"

	"corepin.dev/corepin/results"
)

// GeekbenchScore is the measure of every score of a Geekbench export:
// higher is better.
var GeekbenchScore = results.Measure{Name: "Geekbench score", Unit: "score", Better: results.HigherIsBetter}

// geekbenchExport is what corepin reads of Geekbench's --export-json (and
// the .gb5/.gb6 files its app keeps): the single-core score, the
// multi-core score, and per section its score and its workloads' scores,
// the fields three independent parsers agree on (ARM's
// workload-automation among them). Every other field is kept as it is.
type geekbenchExport struct {
	Score          *float64 `json:"score"`
	MulticoreScore *float64 `json:"multicore_score"`
	Sections       []struct {
		Name      *string  `json:"name"`
		Score     *float64 `json:"score"`
		Workloads []struct {
			Name  *string  `json:"name"`
			Score *float64 `json:"score"`
		} `json:"workloads"`
	} `json:"sections"`
}

// parseGeekbench reads one export: a benchmark per score ("score",
// "multicore_score", each section by its name and each workload as
// "section/workload"), each with one run whose value is the score and
// whose wall time Geekbench does not give. Several exports are several
// runs (Import).
func parseGeekbench(data []byte) (*results.Run, map[string]results.RawJSON, error) {
	bad := func(format string, a ...any) error {
		return &FormatError{Tool: results.KindGeekbench, Msg: fmt.Sprintf(format, a...)}
	}
	var top map[string]results.RawJSON
	if err := decodeStrict(data, &top); err != nil {
		return nil, nil, bad("%v", err)
	}
	var f geekbenchExport
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, bad("%v", err)
	}
	run := newRun()
	var err error
	add := func(name string, score *float64) {
		switch {
		case err != nil || score == nil:
			return
		case !figure(*score):
			err = bad("%s: score %v is not a score", name, *score)
			return
		case name == "":
			err = bad("a score without a name")
			return
		}
		for n := 2; benchmarkNamed(run, name); n++ {
			name = fmt.Sprintf("%s (%d)", name, n)
		}
		b := newBenchmark(results.KindGeekbench, name, nil)
		b.Measure = &results.Measured{Measure: GeekbenchScore}
		r := record(0)
		v := *score
		r.Value = &v
		b.Runs, b.PlannedRuns = append(b.Runs, r), 1
		run.Benchmarks = append(run.Benchmarks, b)
	}
	add("score", f.Score)
	add("multicore_score", f.MulticoreScore)
	for i, s := range f.Sections {
		section := fmt.Sprintf("section %d", i+1)
		if s.Name != nil && *s.Name != "" {
			section = *s.Name
		}
		add(section, s.Score)
		for j, w := range s.Workloads {
			workload := fmt.Sprintf("workload %d", j+1)
			if w.Name != nil && *w.Name != "" {
				workload = *w.Name
			}
			add(section+"/"+workload, w.Score)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if len(run.Benchmarks) == 0 {
		return nil, nil, bad("no score, multicore_score or section score")
	}
	return run, keepMetadata(top, "score", "multicore_score"), nil
}
