package results

import "fmt"

// WhyInvalid says why a benchmark is invalid, from the first counted run
// that failed: its error, or its first failed output check. It is "" for
// a valid benchmark.
func (b *Benchmark) WhyInvalid() string {
	if b.Valid {
		return ""
	}
	for _, r := range b.Runs {
		if r.Warmup {
			continue
		}
		if r.Error != "" {
			return fmt.Sprintf("run %d: %s", r.Index, r.Error)
		}
		for _, c := range r.Checks {
			if !c.Passed {
				return fmt.Sprintf("run %d: %s failed: %s", r.Index, c.What, c.Detail)
			}
		}
	}
	return "no counted run finished"
}
