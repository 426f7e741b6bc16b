package spec

import (
	"os"
	"path/filepath"
	"testing"
)

// The parsers of SPEC's files never panic, whatever the bytes, and what
// they accept holds no iteration beyond their bounds.

func addFiles(f *testing.F, names ...string) {
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzParseRSF(f *testing.F) {
	addFiles(f, "rate.rsf", "speed2026.rsf")
	f.Add([]byte("spec.cpu2017.results.5_x.base.000.copies: -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRSF(data)
		if err == nil && len(r.Iterations) > MaxIterations {
			t.Fatalf("%d iterations", len(r.Iterations))
		}
	})
}

func FuzzParseCSV(f *testing.F) {
	addFiles(f, "rate.csv")
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseCSV(data)
		if err == nil && len(r.Iterations) > MaxIterations+2 {
			t.Fatalf("%d iterations", len(r.Iterations))
		}
	})
}

func FuzzParseCommandFile(f *testing.F) {
	addFiles(f, "speccmds.cmd", "compare.cmd")
	f.Fuzz(func(t *testing.T, data []byte) {
		cf, err := ParseCommandFile(data)
		if err != nil {
			return
		}
		if len(cf.Commands) == 0 || len(cf.Copies) == 0 {
			t.Fatalf("accepted without a command or a copy: %+v", cf)
		}
		Diffs(cf)
	})
}

func FuzzParseTimings(f *testing.F) {
	addFiles(f, "speccmds.out")
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseTimings(data)
	})
}

func FuzzParseReftime(f *testing.F) {
	addFiles(f, "reftime")
	f.Fuzz(func(t *testing.T, data []byte) {
		refs, err := ParseReftime(data)
		for _, r := range refs {
			if err == nil && !(r.Seconds > 0) {
				t.Fatalf("reference %v", r.Seconds)
			}
		}
	})
}

func FuzzParseReportName(f *testing.F) {
	f.Add("505.mcf_r.base.i2.w1.c3.json")
	f.Add("a.b.i0.w0.c0.json")
	f.Fuzz(func(t *testing.T, name string) {
		k, ok := ParseReportName(name)
		if !ok {
			return
		}
		if again := ReportName(k.Benchmark, k.Tune, k.Iteration, k.Workload, k.Copy); again != name {
			// Numbers may be written with leading zeros; the key reads
			// the same from the name it writes.
			if k2, ok := ParseReportName(again); !ok || k2 != k {
				t.Fatalf("%q read as %+v, written %q, read back %+v", name, k, again, k2)
			}
		}
	})
}

// The report a command of speccmds.out names is read from outside text:
// never a panic, and never more than the command holds.
func FuzzReportArgument(f *testing.F) {
	f.Add("mkdir -p /r/corepin.007;echo \"x\" > corepin.sh;corepin exec -q --cpu 3 --report /r/corepin.007/a.base.i0.w0.c0.json -- sh corepin.sh")
	f.Add("corepin exec --report='/my dir'/corepin.1/x.json")
	f.Add("--report")
	f.Fuzz(func(t *testing.T, command string) {
		if r := reportArgument(command); len(r) > len(command) {
			t.Fatalf("%q named %q", command, r)
		}
	})
}
