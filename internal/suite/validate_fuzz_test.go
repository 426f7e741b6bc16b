package suite

import (
	"math"
	"os"
	"strings"
	"testing"
)

// FuzzValidate: a suite that parses keeps inside the bounds run relies on.
func FuzzValidate(f *testing.F) {
	f.Add("[[benchmark]]\nname = \"a\"\ncmd = \"true\"\nreference_seconds = nan\n")
	f.Add("[settings]\nruns = 99999999\n[[benchmark]]\nname = \"a\"\ncmd = \"x\"\nenv = { \"A=B\" = \"1\" }\ntimeout = \"-5s\"\n")
	real, err := os.ReadFile("../../suites/real.toml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(real))
	f.Fuzz(func(t *testing.T, text string) {
		s, err := Parse("f.toml", []byte(text))
		if err != nil {
			return
		}
		for _, b := range s.Benchmarks {
			if len(b.Name) > MaxNameLen || b.Runs > MaxRuns || len(b.Checks) > MaxChecks || b.Timeout.Duration < 0 ||
				math.IsNaN(b.ReferenceSeconds) || math.IsInf(b.ReferenceSeconds, 0) {
				t.Fatalf("accepted %+v", b)
			}
			for k := range b.Env {
				if strings.ContainsAny(k, "=\x00") || k == "" {
					t.Fatalf("accepted env key %q", k)
				}
			}
		}
	})
}
