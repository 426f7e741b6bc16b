package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/internal/testcpu"
	"corepin.dev/corepin/sched"
	"corepin.dev/corepin/topology"
)

func TestExperimentQoSQuick(t *testing.T) {
	skipInShort(t)
	requireExec(t)
	dir := t.TempDir()
	// The command line, the JSON and the files are judged here; whether
	// the levels act under load, with work long enough for them to, is
	// experiment's TestQoSRatioHoldsWithLoadApart (its sized work takes
	// seconds at background beside go test's other packages).
	out, errOut, code := corepin(t, "experiment", "qos", "--quick", "--work", "fib:25", "--runs", "1", "--load", "1", "--json", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Levels []struct {
			Name             string   `json:"name"`
			MedianMsLoaded   *float64 `json:"median_ms_loaded"`
			MedianMsUnloaded *float64 `json:"median_ms_unloaded"`
			Restored         bool     `json:"restored"`
		} `json:"levels"`
		RatioLoaded *float64 `json:"ratio_loaded"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Levels) != 2 || doc.Levels[0].Name != "background" || doc.Levels[1].Name != "user-interactive" || doc.RatioLoaded == nil {
		t.Fatalf("JSON %s", out)
	}
	for _, lv := range doc.Levels {
		// Without privilege nice 10 cannot be undone; the thread is then
		// destroyed instead, and the restore honestly reads as failed.
		if lv.MedianMsLoaded == nil || lv.MedianMsUnloaded == nil || (!lv.Restored && sched.NiceLowering().Supported) {
			t.Errorf("level %+v", lv)
		}
	}
	for _, f := range []string{"experiment-qos.json", "experiment-qos.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestExperimentPartitionQuick(t *testing.T) {
	skipInShort(t)
	requireExec(t)
	testcpu.Alone(t) // the strategies' times are compared with the ideal
	dir := t.TempDir()
	// --runs 2: the quick one's 7 rounds are for the ratio's figure; here
	// the rows, the ideal and the files are judged, on a quarter of its
	// array.
	out, errOut, code := corepin(t, "experiment", "partition", "--quick", "--runs", "2", "--size", "262144", "--slowdown", "2", "--json", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Rows []struct {
			Strategy string  `json:"strategy"`
			Chunks   int     `json:"chunks"`
			MedianMs float64 `json:"median_ms"`
		} `json:"rows"`
		IdealMs  float64    `json:"ideal_ms"`
		Emulated bool       `json:"emulated"`
		How      string     `json:"how"`
		SlowCPUs cpuset.Set `json:"slow_cpus"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range doc.Rows {
		seen[r.Strategy] = true
		if r.MedianMs <= 0 || (r.Strategy == "dynamic") != (r.Chunks > 0) && r.Strategy != "pinned-dynamic" {
			t.Errorf("row %+v", r)
		}
	}
	for _, s := range []string{"pinned-static", "static", "dynamic"} {
		if !seen[s] {
			t.Errorf("no %s row", s)
		}
	}
	// A machine with real slow cores (big.LITTLE, hybrid) uses them and
	// emulates nothing; one of equal cores slows the upper half.
	topo, err := topology.Read("/")
	if err != nil {
		t.Fatal(err)
	}
	if topo.Heterogeneous {
		fastest := topo.Groups[0].CPUs
		if doc.Emulated || !strings.Contains(doc.How, "slower cores") || doc.SlowCPUs.IsEmpty() || !doc.SlowCPUs.Intersect(fastest).IsEmpty() {
			t.Errorf("real slow cores: emulated %v, slow %s (fastest group %s), how %q", doc.Emulated, doc.SlowCPUs, fastest, doc.How)
		}
		if !strings.Contains(errOut, "--slowdown 2 is not used") {
			t.Errorf("real slow cores, --slowdown given: no word that it is not used:\n%s", errOut)
		}
	} else if !doc.Emulated || !strings.Contains(doc.How, "upper half") || !strings.Contains(doc.How, "1/2") || strings.Contains(errOut, "is not used") {
		t.Errorf("equal cores, --slowdown 2: emulated %v, how %q\n%s", doc.Emulated, doc.How, errOut)
	}
	if doc.IdealMs <= 0 {
		t.Errorf("ideal %v", doc.IdealMs)
	}
	html, err := os.ReadFile(filepath.Join(dir, "experiment-partition.html"))
	if err != nil || strings.Count(string(html), `<svg class="chart"`) < 4 {
		t.Errorf("page: %v", err)
	}
}

func TestExperimentBadInput(t *testing.T) {
	// Slow CPUs named on the command line are emulated on any machine, and
	// emulation needs a slowdown of 2 or more; without them a machine with
	// real slower cores (big.LITTLE) uses those and has no use for one.
	slow := strconv.Itoa(testcpu.Usable(t).Last()) // with one CPU, refused as all of them
	for _, args := range [][]string{
		{"experiment", "qos", "--level-low", "fast"},
		{"experiment", "qos", "--level-low", "utility", "--level-high", "utility"},
		{"experiment", "qos", "--work", "fib:x"},
		{"experiment", "qos", "--cpu", "99"},
		{"experiment", "partition", "--chunks", "4,x"},
		{"experiment", "partition", "--cpus", "0-99"},
		{"experiment", "partition", "--slow-cpus", "0-1", "--cpus", "0-1"},
		{"experiment", "partition", "--slowdown", "0"},
		{"experiment", "partition", "--slowdown", "1", "--slow-cpus", slow},
		{"experiment", "partition", "--slow-by", "magic"},
	} {
		if _, _, code := corepin(t, args...); code != exitUsage {
			t.Errorf("corepin %s: exit %d, want %d", strings.Join(args, " "), code, exitUsage)
		}
	}
}
