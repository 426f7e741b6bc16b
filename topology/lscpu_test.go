package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/internal/sysfstest"
	"corepin.dev/corepin/results/evidence"
)

// TestRealDumps reads every real machine's dump and checks, CPU by CPU, the
// online state, the raw core and package ids, the NUMA node and the
// frequency limits against lscpu's own output, and the sibling sets against
// the dump's sibling files.
func TestRealDumps(t *testing.T) {
	for _, name := range sysfstest.Names(t) {
		t.Run(name, func(t *testing.T) {
			root := sysfstest.Unpack(t, name)
			topo, err := Read(fsroot.Root(root))
			if err != nil {
				t.Fatal(err)
			}
			rows := parseLscpuP(t, sysfstest.Oracle(t, name, "lscpu-p-physical-all"))
			if len(rows) != len(topo.CPUs) {
				t.Errorf("read %d CPUs, lscpu lists %d", len(topo.CPUs), len(rows))
			}
			for _, row := range rows {
				c := topo.CPU(row.cpu)
				if c == nil {
					t.Errorf("CPU %d missing", row.cpu)
					continue
				}
				checkRow(t, c, row)
				checkSiblings(t, root, c)
			}
			for _, g := range topo.Groups {
				if !g.CPUs.IsSubsetOf(topo.Online) {
					t.Errorf("group %d holds offline CPUs: %s", g.Rank, g.CPUs)
				}
			}
			if _, err := topo.Select("prime"); err != nil {
				t.Errorf("Select(prime): %v", err)
			}
		})
	}
}

type lscpuRow struct {
	cpu                int
	core, socket, node string
	online             bool
	maxMHz, minMHz     string
}

// parseLscpuP reads lscpu -p=CPU,CORE,SOCKET,CLUSTER,NODE,ONLINE,MAXMHZ,MINMHZ.
func parseLscpuP(t *testing.T, text string) []lscpuRow {
	var rows []lscpuRow
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) != 8 {
			t.Fatalf("unexpected lscpu line %q", line)
		}
		cpu, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatalf("unexpected lscpu line %q", line)
		}
		rows = append(rows, lscpuRow{cpu: cpu, core: f[1], socket: f[2], node: f[4],
			online: f[5] == "Y", maxMHz: f[6], minMHz: f[7]})
	}
	return rows
}

func checkRow(t *testing.T, c *evidence.CPU, row lscpuRow) {
	t.Helper()
	if c.Online != row.online {
		t.Errorf("CPU %d online = %v, lscpu says %v", c.ID, c.Online, row.online)
	}
	if got := fmtMHz(c.MaxMHz); got != row.maxMHz {
		t.Errorf("CPU %d max MHz = %q, lscpu says %q", c.ID, got, row.maxMHz)
	}
	if got := fmtMHz(c.MinMHz); got != row.minMHz {
		t.Errorf("CPU %d min MHz = %q, lscpu says %q", c.ID, got, row.minMHz)
	}
	if got := fmtID(c.Package); got != row.socket {
		t.Errorf("CPU %d package = %q, lscpu says %q", c.ID, got, row.socket)
	}
	// lscpu prints no core id for an offline CPU without topology files.
	if got := fmtID(c.CoreID); got != row.core && !(row.core == "-" && c.CoreID == nil) {
		t.Errorf("CPU %d core_id = %q, lscpu says %q", c.ID, got, row.core)
	}
	if got := fmtNode(c.Node); got != row.node {
		t.Errorf("CPU %d node = %q, lscpu says %q", c.ID, got, row.node)
	}
}

// checkSiblings compares the CPU's siblings with the dump's own file.
func checkSiblings(t *testing.T, root string, c *evidence.CPU) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, fmt.Sprintf("sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", c.ID)))
	if err != nil {
		if !c.Siblings.IsEmpty() || c.Core != nil {
			t.Errorf("CPU %d has siblings %s but no thread_siblings_list", c.ID, c.Siblings)
		}
		return
	}
	want := cpuset.MustParse(string(data))
	if !c.Siblings.Equal(want) {
		t.Errorf("CPU %d siblings = %s, thread_siblings_list says %s", c.ID, c.Siblings, want)
	}
	if c.Core == nil {
		t.Errorf("CPU %d has siblings but no core id", c.ID)
	}
}

func fmtMHz(v *float64) string {
	if v == nil {
		return ""
	}
	return strconv.FormatFloat(*v, 'f', 4, 64)
}

func fmtID(v *int) string {
	if v == nil {
		return "-"
	}
	return strconv.Itoa(*v)
}

func fmtNode(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

// TestCoreIDsUnique checks the promise of CPU.Core on every dump: two CPUs
// share a core id exactly when they are SMT siblings.
func TestCoreIDsUnique(t *testing.T) {
	for _, name := range sysfstest.Names(t) {
		topo, err := Read(fsroot.Root(sysfstest.Unpack(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range topo.CPUs {
			for _, b := range topo.CPUs {
				if a.Core == nil || b.Core == nil || a.ID == b.ID {
					continue
				}
				if (*a.Core == *b.Core) != a.Siblings.Contains(b.ID) {
					t.Errorf("%s: CPUs %d and %d: core %d/%d, siblings %s", name, a.ID, b.ID, *a.Core, *b.Core, a.Siblings)
				}
			}
		}
	}
}
