package results

import "fmt"

// WhyInvalid says why a benchmark is invalid, from the first counted run
// that failed: its error, its first failed check, or that it is not valid.
// It is "" for a valid benchmark. An imported SPEC iteration is named by
// its number.
func (b *Benchmark) WhyInvalid() string {
	if b.Valid {
		return ""
	}
	for _, r := range b.Runs {
		if r.Warmup {
			continue
		}
		run := fmt.Sprintf("run %d", r.Index)
		if r.Spec != nil {
			run = fmt.Sprintf("iteration %d", r.Spec.Iteration)
		}
		if r.Error != "" {
			return run + ": " + r.Error
		}
		for _, c := range r.Checks {
			if !c.Passed {
				return fmt.Sprintf("%s: %s failed: %s", run, c.What, c.Detail)
			}
		}
		if !r.Valid {
			return run + " is not valid"
		}
	}
	return "no counted run finished"
}
