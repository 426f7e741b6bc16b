package telemetry

import (
	"corepin.dev/corepin/fsroot"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkSampleLive is one sample of every CPU of this machine.
func BenchmarkSampleLive(b *testing.B) {
	s, err := newSampler(Options{Root: "/"})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s.sample()
		s.series.Samples = s.series.Samples[:0]
	}
}

// BenchmarkSample96 is one sample of a 96-CPU tree with cpufreq.
func BenchmarkSample96(b *testing.B) {
	tr := &tree{root: b.TempDir()}
	tr.t = &testing.T{}
	var lines []string
	for cpu := range 96 {
		lines = append(lines, cpuLine(cpu, uint64(100+cpu), 1000))
		tr.write(freqPath(cpu, "scaling_cur_freq"), fmt.Sprint(2300000+cpu))
	}
	tr.write("proc/stat", "cpu 1 2 3 4\n"+strings.Join(lines, "\n")+"\n")
	s, err := newSampler(Options{Root: fsroot.Root(tr.root)})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s.sample()
		s.series.Samples = s.series.Samples[:0]
	}
}
