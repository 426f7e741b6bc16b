package topology

import (
	"slices"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/sysfstest"
)

// On every ARM dump, the models decoded from the implementer and part
// numbers are the ones lscpu names, CPU kind by CPU kind.
func TestARMModelsAsLscpu(t *testing.T) {
	checked := 0
	for _, name := range sysfstest.Names(t) {
		oracle := sysfstest.Oracle(t, name, "lscpu")
		if !strings.Contains(oracle, "Vendor ID:") || !strings.Contains(oracle, " ARM\n") {
			continue
		}
		topo, err := Read(fsroot.Root(sysfstest.Unpack(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		var models []string
		for _, c := range topo.CPUs {
			models = append(models, c.Model)
		}
		for _, line := range strings.Split(oracle, "\n") {
			v, ok := strings.CutPrefix(strings.TrimSpace(line), "Model name:")
			if v = strings.TrimSpace(v); !ok || v == "-" {
				continue
			}
			checked++
			if !slices.Contains(models, v) {
				t.Errorf("%s: lscpu names %q, corepin's CPUs are %q", name, v, models)
			}
		}
		if topo.Model == "" {
			t.Errorf("%s: no model", name)
		}
	}
	if checked == 0 {
		t.Fatal("no ARM dump with a model name to check")
	}
}

func TestARMModel(t *testing.T) {
	for _, tc := range []struct {
		implementer, part int
		want              string
	}{
		{0x41, 0xd07, "Cortex-A57"}, // qemu's virt board with -cpu cortex-a57
		{0x41, 0xd4e, "Cortex-X3"},
		{0x51, 0x805, "Kryo-4XX-Silver"},
		{0x41, 0xfff, "ARM part 0xfff"},
		{0x99, 0x001, ""},
		{-1, -1, ""},
	} {
		if got := armModel(tc.implementer, tc.part); got != tc.want {
			t.Errorf("armModel(%#x, %#x) = %q, want %q", tc.implementer, tc.part, got, tc.want)
		}
	}
}
