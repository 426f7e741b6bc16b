package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/topology"
)

const intelRoot = "internal/system/testdata/machines/intel-pstate"

func TestSystemShowFixture(t *testing.T) {
	out, errOut, code := corepin(t, "system", "show", "--root", intelRoot, "--cpu", "1")
	if code != 2 {
		t.Fatalf("exit %d, want 2 (not tuned): %s", code, errOut)
	}
	golden(t, "system-show-intel-pstate.txt", out)

	out, _, code = corepin(t, "system", "show", "--root", intelRoot, "--cpus", "2-3", "--json")
	if code != 2 {
		t.Fatalf("--json: exit %d", code)
	}
	// The keys docs/schema.md documents.
	var doc struct {
		Target  []int `json:"target"`
		CPUFreq struct {
			Driver   string `json:"driver"`
			Policies []struct {
				Name     string `json:"name"`
				CPUs     []int  `json:"related_cpus"`
				Governor string `json:"governor"`
				MaxKHz   *int64 `json:"max_khz"`
				HWMaxKHz *int64 `json:"hw_max_khz"`
				BaseKHz  *int64 `json:"base_khz"`
				EPP      string `json:"epp"`
			} `json:"policies"`
			Boost *struct {
				File string `json:"file"`
				On   bool   `json:"on"`
			} `json:"boost"`
		} `json:"cpufreq"`
		IRQs struct {
			OnTarget []struct {
				Number string `json:"irq"`
			} `json:"on_target"`
		} `json:"irqs"`
		Checks []struct {
			Item      string `json:"item"`
			Good      bool   `json:"good"`
			Important bool   `json:"important"`
		} `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	p := doc.CPUFreq.Policies
	if len(doc.Target) != 2 || doc.CPUFreq.Driver != "intel_pstate" || len(p) != 4 || p[2].Name != "policy2" || p[2].Governor != "powersave" ||
		*p[2].BaseKHz != 2400000 || p[2].EPP != "balance_performance" || doc.CPUFreq.Boost == nil || !doc.CPUFreq.Boost.On ||
		len(doc.IRQs.OnTarget) != 5 || len(doc.Checks) == 0 {
		t.Errorf("JSON: %+v", doc)
	}
}

// copyMachine copies a fixture machine to a temporary folder.
func copyMachine(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "m")
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v: %s", err, out)
	}
	return dst
}

func TestSystemTuneResetFixture(t *testing.T) {
	root := copyMachine(t, intelRoot)
	journal := filepath.Join(t.TempDir(), "journal.json")
	args := []string{"--root", root, "--journal", journal}
	out, errOut, code := corepin(t, append([]string{"system", "tune", "--cpu", "1", "--irqs", "--no-boost", "--idle", "--dry-run"}, args...)...)
	if code != 0 || !strings.Contains(out, "intel_pstate/no_turbo: 0 -> 1") {
		t.Fatalf("dry run: exit %d: %s%s", code, out, errOut)
	}
	if diff, _ := exec.Command("diff", "-r", intelRoot, root).CombinedOutput(); len(diff) > 0 {
		t.Fatalf("a dry run changed the tree:\n%s", diff)
	}
	out, errOut, code = corepin(t, append([]string{"system", "tune", "--cpu", "1", "--irqs", "--no-boost", "--idle"}, args...)...)
	if code != 0 {
		t.Fatalf("tune: exit %d: %s%s", code, out, errOut)
	}
	if _, errOut, code := corepin(t, "system", "show", "--root", root, "--cpu", "1"); code != 0 {
		t.Errorf("show after the tune: exit %d, want 0 (tuned): %s", code, errOut)
	}
	out, errOut, code = corepin(t, append([]string{"system", "reset"}, args...)...)
	if code != 0 || !strings.Contains(out, "put back sys/devices/system/cpu/intel_pstate/no_turbo = 0") {
		t.Fatalf("reset: exit %d: %s%s", code, out, errOut)
	}
	if diff, _ := exec.Command("diff", "-r", intelRoot, root).CombinedOutput(); len(diff) > 0 {
		t.Errorf("tune then reset left differences:\n%s", diff)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left: %v", err)
	}
}

// On a machine without cpufreq a frequency, a governor or boost off asked
// for by name are refused, each named with why, and nothing changes
// (exit 1, as for a governor a policy lacks); a tune that asks for none
// says it left the default governor and lock out.
func TestSystemTuneWithoutCpufreq(t *testing.T) {
	root := copyMachine(t, "internal/system/testdata/machines/acpi-cpufreq")
	links, _ := filepath.Glob(filepath.Join(root, "sys/devices/system/cpu/cpu*/cpufreq"))
	for _, p := range append(links, filepath.Join(root, "sys/devices/system/cpu/cpufreq")) {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
	pristine := copyMachine(t, root)
	journal := filepath.Join(t.TempDir(), "journal.json")
	args := []string{"--root", root, "--journal", journal, "--cpu", "1"}
	out, errOut, code := corepin(t, append([]string{"system", "tune", "--freq", "max", "--governor", "performance", "--no-boost", "--irqs"}, args...)...)
	if code != 1 {
		t.Errorf("exit %d, want 1: %s%s", code, out, errOut)
	}
	for _, want := range []string{"--freq max: this kernel has no cpufreq driver", "--governor performance: ", "--no-boost: ", "nothing was changed"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr does not say %q:\n%s", want, errOut)
		}
	}
	if diff, _ := exec.Command("diff", "-r", pristine, root).CombinedOutput(); len(diff) > 0 {
		t.Errorf("a refused tune changed the tree:\n%s", diff)
	}
	for _, dry := range []bool{true, false} {
		a := append([]string{"system", "tune", "--irqs"}, args...)
		if dry {
			a = append(a, "--dry-run")
		}
		out, errOut, code = corepin(t, a...)
		if code != 0 || !strings.Contains(out, "not set: the performance governor and min = max at the highest frequency: this kernel has no cpufreq driver") {
			t.Errorf("%v: exit %d:\n%s%s", a, code, out, errOut)
		}
	}
	if _, errOut, code := corepin(t, "system", "reset", "--root", root, "--journal", journal); code != 0 {
		t.Fatalf("reset: exit %d: %s", code, errOut)
	}
	if diff, _ := exec.Command("diff", "-r", pristine, root).CombinedOutput(); len(diff) > 0 {
		t.Errorf("tune then reset left differences:\n%s", diff)
	}
}

// On this machine only reading and --dry-run: neither changes anything.
func TestSystemShowAndDryRunHere(t *testing.T) {
	topo, err := topology.Read("/")
	if err != nil {
		t.Fatal(err)
	}
	cpu := topo.Online.Last()
	irqs := func() string {
		paths, _ := filepath.Glob("/proc/irq/*/smp_affinity_list")
		var b strings.Builder
		for _, p := range paths {
			data, _ := os.ReadFile(p)
			b.WriteString(p + " " + string(data))
		}
		return b.String()
	}
	before := irqs()
	out, errOut, code := corepin(t, "system", "show", "--cpus", topo.Online.String())
	if code != 0 && code != 2 {
		t.Fatalf("show: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat("/sys/devices/system/cpu/cpufreq/policy0"); err != nil && !strings.Contains(out, "cpufreq: none") {
		t.Errorf("a machine without cpufreq does not say so:\n%s", out)
	}
	out, errOut, code = corepin(t, "system", "tune", "--cpu", strconv.Itoa(cpu), "--irqs", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s%s", code, out, errOut)
	}
	if irqs() != before {
		t.Error("a dry run changed IRQ affinities")
	}
}
