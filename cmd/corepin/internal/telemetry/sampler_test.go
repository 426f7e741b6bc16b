package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/samples"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

// tree is a fixture root whose files a test changes between samples.
type tree struct {
	t    *testing.T
	root string
}

func newTree(t *testing.T) *tree {
	return &tree{t: t, root: t.TempDir()}
}

func (tr *tree) write(path, content string) {
	tr.t.Helper()
	full := filepath.Join(tr.root, path)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *tree) remove(path string) { os.Remove(filepath.Join(tr.root, path)) }

// stat writes /proc/stat with per-CPU busy and idle ticks.
func (tr *tree) stat(lines ...string) {
	tr.write("proc/stat", "cpu  1 2 3 4 5 6 7 8 0 0\n"+strings.Join(lines, "\n")+"\nintr 1\n")
}

func cpuLine(cpu int, user, idle uint64) string {
	return fmt.Sprintf("cpu%d %d 0 0 %d 0 0 0 0 0 0", cpu, user, idle)
}

func freqPath(cpu int, name string) string {
	return fmt.Sprintf("sys/devices/system/cpu/cpu%d/cpufreq/%s", cpu, name)
}

func TestSampleExactValues(t *testing.T) {
	tr := newTree(t)
	tr.stat(cpuLine(0, 100, 100), cpuLine(1, 100, 100))
	tr.write(freqPath(0, "cpuinfo_avg_freq"), "2750000\n")
	tr.write(freqPath(0, "scaling_cur_freq"), "1000000\n")
	tr.write(freqPath(1, "scaling_cur_freq"), "1804800\n")
	s, err := newSampler(Options{Root: fsroot.Root(tr.root)})
	if err != nil {
		t.Fatal(err)
	}
	// CPU 0 busy 75 of 100 ticks, CPU 1 busy 10 of 40.
	tr.stat(cpuLine(0, 175, 125), cpuLine(1, 110, 130))
	s.sample()
	got := s.series.Samples
	if len(got) != 2 {
		t.Fatalf("%d samples, want 2", len(got))
	}
	check := func(smp samples.Sample, util, mhz float64, src string) {
		t.Helper()
		if smp.UtilPct == nil || *smp.UtilPct != util || smp.FreqMHz == nil || *smp.FreqMHz != mhz || smp.FreqSource != src {
			t.Errorf("CPU %d = util %v, %v MHz from %s; want %v, %v from %s", smp.CPU, deref(smp.UtilPct), deref(smp.FreqMHz), smp.FreqSource, util, mhz, src)
		}
	}
	check(got[0], 75, 2750, SourceAvgFreq)
	check(got[1], 25, 1804.8, SourceScalingCur)

	// The best source vanishes: the next one serves, and says so.
	tr.remove(freqPath(0, "cpuinfo_avg_freq"))
	tr.stat(cpuLine(0, 200, 200), cpuLine(1, 110, 230))
	s.sample()
	check(s.series.Samples[2], 25, 1000, SourceScalingCur)
	check(s.series.Samples[3], 0, 1804.8, SourceScalingCur)
}

func TestSourcesInOrder(t *testing.T) {
	tr := newTree(t)
	tr.stat(cpuLine(0, 1, 1))
	tr.write("proc/cpuinfo", "processor\t: 0\ncpu MHz\t\t: 2445.430\n\n")
	s, err := newSampler(Options{Root: fsroot.Root(tr.root)})
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		file, content, want string
		mhz                 float64
	}{
		{"", "", SourceProcCpuinfo, 2445.43},
		{freqPath(0, "cpuinfo_cur_freq"), "1200000", SourceCpuinfoCur, 1200},
		{freqPath(0, "scaling_cur_freq"), "1300000", SourceScalingCur, 1300},
		{freqPath(0, "cpuinfo_avg_freq"), "1400000", SourceAvgFreq, 1400},
	} {
		if step.file != "" {
			tr.write(step.file, step.content)
		}
		for range reprobeEvery { // a new, better source is taken up within this many samples
			s.sample()
		}
		last := s.series.Samples[len(s.series.Samples)-1]
		if last.FreqSource != step.want || *last.FreqMHz != step.mhz {
			t.Errorf("with %s: %v MHz from %s, want %v from %s", step.file, deref(last.FreqMHz), last.FreqSource, step.mhz, step.want)
		}
	}
}

func TestNoFrequencySourceSaysSo(t *testing.T) {
	tr := newTree(t)
	tr.stat(cpuLine(0, 1, 1))
	s, _ := newSampler(Options{Root: fsroot.Root(tr.root)})
	s.sample()
	smp := s.series.Samples[0]
	if smp.FreqMHz != nil || smp.FreqSource != SourceNone || len(s.series.Sources) != 0 {
		t.Errorf("without any source: %+v, sources %v", smp, s.series.Sources)
	}
	var buf bytes.Buffer
	s.series.WriteCSV(&buf)
	if !strings.Contains(buf.String(), "t_s,cpu,util_pct,freq_mhz,freq_source\n") || !strings.Contains(buf.String(), ",,none\n") {
		t.Errorf("CSV:\n%s", buf.String())
	}
}

func TestHotUnplugIsAGap(t *testing.T) {
	tr := newTree(t)
	tr.stat(cpuLine(0, 1, 1), cpuLine(1, 1, 1))
	tr.write(freqPath(1, "scaling_cur_freq"), "1000000")
	s, _ := newSampler(Options{Root: fsroot.Root(tr.root), CPUs: cpuset.Of(0, 1)})
	// CPU 1 goes offline: its /proc/stat line and cpufreq files vanish.
	tr.stat(cpuLine(0, 2, 2))
	tr.remove(freqPath(1, "scaling_cur_freq"))
	s.sample()
	// It comes back with counters reset.
	tr.stat(cpuLine(0, 3, 3), cpuLine(1, 0, 1))
	s.sample()
	for _, smp := range s.series.Samples {
		if smp.CPU == 1 && (smp.UtilPct != nil || smp.FreqMHz != nil) {
			t.Errorf("CPU 1 while unplugged or just back: %+v, want a gap", smp)
		}
	}
	if !strings.Contains(noteTexts(s.series.Notes), "CPU 1 left /proc/stat") {
		t.Errorf("notes %q do not mention the gap", s.series.Notes)
	}
}

func TestMalformedProcStat(t *testing.T) {
	tr := newTree(t)
	tr.stat(cpuLine(0, 1, 1), "cpu1 x y z", "cpuQ 1 2 3 4", "cpu2 1 2")
	s, err := newSampler(Options{Root: fsroot.Root(tr.root)})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.prev) != 1 || len(s.series.Notes) != 3 {
		t.Errorf("parsed %d CPUs with notes %q; want 1 CPU and 3 notes", len(s.prev), s.series.Notes)
	}
	tr.write("proc/stat", "garbage")
	s.sample() // must not panic
	if _, err := newSampler(Options{Root: fsroot.Root(tr.root)}); err == nil {
		t.Error("a /proc/stat without CPU lines was accepted")
	}
	if _, err := newSampler(Options{Root: fsroot.Root(t.TempDir())}); err == nil {
		t.Error("a root without /proc/stat was accepted")
	}
	if _, err := newSampler(Options{Root: fsroot.Root(tr.root), Period: time.Millisecond}); err == nil {
		t.Error("a 1 ms period was accepted")
	}
}

// TestBusyCPUOnThisMachine pins a busy loop to the default target with
// taskset and samples at 200 ms until that CPU has a few readings: it must
// read as busy, and the sampler must never have run on its core.
func TestBusyCPUOnThisMachine(t *testing.T) {
	busy := testcpu.Target(t)
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		t.Skip("needs taskset (util-linux)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, taskset, "-c", fmt.Sprint(busy), "sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	s, err := Start(ctx, Options{Period: 200 * time.Millisecond, Avoid: cpuset.Of(busy)})
	if err != nil {
		t.Fatal(err)
	}
	// Sample until the busy CPU has five readings after its first (the
	// first has no interval), or until a deadline far beyond that.
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if samplesOf(s.Snapshot(), busy) >= 6 {
			break
		}
	}
	series := s.Stop()
	var n int
	var sum float64
	for _, smp := range series.Samples {
		if smp.CPU == busy && smp.UtilPct != nil {
			n++
			sum += *smp.UtilPct
		}
	}
	mean := sum / float64(max(n, 1))
	switch {
	case n < 5:
		t.Errorf("CPU %d: %d samples averaging %.1f%% busy, want 5 or more", busy, n, mean)
	case mean < 90 && os.Getenv("MACHINE_SHAPE") != "" && os.Getenv("MACHINE_ACCEL") != "kvm":
		// Under TCG the host's CPUs take turns among the guest's, and the
		// guest's kernel counts what the spinning vCPU did not get.
		t.Logf("CPU %d: %d samples averaging %.1f%% busy in a guest under %q, where a busy CPU's share is the host's to give: not judged", busy, n, mean, os.Getenv("MACHINE_ACCEL"))
	case mean < 90:
		t.Errorf("CPU %d: %d samples averaging %.1f%% busy, want >= 90%%", busy, n, mean)
	}
	core, err := topology.CoreSiblings("/", cpuset.Of(busy))
	if err != nil {
		t.Fatal(err)
	}
	if series.SamplerCPUs.Contains(busy) || series.SamplerCPUs.IsEmpty() {
		t.Errorf("sampler allowed on %s, which includes the avoided CPU %d", series.SamplerCPUs, busy)
	}
	if others := testcpu.Usable(t).Difference(core); !others.IsEmpty() && !series.SamplerCPUs.Intersect(core).IsEmpty() {
		t.Errorf("sampler allowed on %s, which includes an SMT sibling of CPU %d (core %s)", series.SamplerCPUs, busy, core)
	}
	// The reported source is the one this machine really has.
	src := series.Samples[0].FreqSource
	have := SourceNone
	for _, name := range sysfsSources {
		if _, err := os.Stat("/" + freqPath(busy, name)); err == nil {
			have = name
			break
		}
	}
	if have == SourceNone && readCpuinfoMHz("/")[busy] > 0 {
		have = SourceProcCpuinfo
	}
	if src != have {
		t.Errorf("reported source %s, this machine has %s", src, have)
	}
	t.Logf("CPU %d: %d samples, mean %.1f%% busy; frequency source %s", busy, n, sum/float64(n), src)
}

// samplesOf counts the samples of a CPU that have a utilisation.
func samplesOf(series Series, cpu int) int {
	n := 0
	for _, smp := range series.Samples {
		if smp.CPU == cpu && smp.UtilPct != nil {
			n++
		}
	}
	return n
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

// The sampler's thread must not keep a changed mask after Stop: it is
// thrown away, so the calling thread's mask is untouched.
func TestStopLeavesCallerAlone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, _ := sched.GetAffinity(0)
	s, err := Start(context.Background(), Options{Period: MinPeriod, Avoid: cpuset.Of(0)})
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	after, _ := sched.GetAffinity(0)
	if !after.Equal(before) {
		t.Errorf("caller's mask %s became %s", before, after)
	}
}

func TestThermalZones(t *testing.T) {
	tr := newTree(t)
	tr.stat(cpuLine(0, 1, 1))
	tr.write("sys/class/thermal/thermal_zone0/type", "cpu-big\n")
	tr.write("sys/class/thermal/thermal_zone0/temp", "48500\n")
	tr.write("sys/class/thermal/thermal_zone1/type", "battery\n")
	tr.write("sys/class/thermal/thermal_zone1/temp", "garbage\n")
	s, err := newSampler(Options{Root: fsroot.Root(tr.root), Thermal: true})
	if err != nil {
		t.Fatal(err)
	}
	s.sample()
	if len(s.series.Thermal) != 1 || s.series.Thermal[0].Type != "cpu-big" || s.series.Thermal[0].TempC != 48.5 {
		t.Errorf("thermal %+v", s.series.Thermal)
	}
	var buf bytes.Buffer
	s.series.WriteThermalCSV(&buf)
	if !strings.HasPrefix(buf.String(), "t_s,zone,type,temp_c\n") || !strings.Contains(buf.String(), "thermal_zone0,cpu-big,48.5") {
		t.Errorf("thermal CSV:\n%s", buf.String())
	}
}

// On a machine (or under a mask) with no CPU but the target, the sampler
// shares it and says so rather than refusing to start.
func TestSamplerWithNoOtherCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux")
	}
	s, err := Start(context.Background(), Options{Period: MinPeriod, Avoid: cpuset.Range(0, 4095)})
	if err != nil {
		t.Fatal(err)
	}
	series := s.Stop()
	if !strings.Contains(noteTexts(series.Notes), "shares CPUs") {
		t.Errorf("notes %q do not say the sampler shared the CPU", series.Notes)
	}
}

func noteTexts(notes []Note) string {
	var texts []string
	for _, n := range notes {
		texts = append(texts, n.Text)
	}
	return strings.Join(texts, "\n")
}
