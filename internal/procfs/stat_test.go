package procfs

import (
	"os"
	"path/filepath"
	"testing"

	"corepin.dev/corepin/fsroot"
)

const sampleStat = `cpu  100 2 30 4000 5 6 7 8 0 0
cpu0 50 1 15 2000 2 3 3 4 0 0
cpu1 50 1 15 2000 3 3 4 4 0 0
intr 12345
ctxt 999
`

func TestParseStat(t *testing.T) {
	cpus, bad := ParseStat([]byte(sampleStat))
	if len(bad) != 0 || len(cpus) != 2 {
		t.Fatalf("got %v, bad %v", cpus, bad)
	}
	c := cpus[1]
	if c.Busy() != 50+1+15+3+4+4 || c.Tasks() != 66 || c.Total() != c.Busy()+2000+3 {
		t.Errorf("cpu1 = %+v: busy %d tasks %d total %d", c, c.Busy(), c.Tasks(), c.Total())
	}
}

func TestParseStatOldAndMalformed(t *testing.T) {
	// A 2.6.11 kernel has no steal column; a line with a word in a count
	// is skipped and reported.
	cpus, bad := ParseStat([]byte("cpu0 1 2 3 4 5 6 7\ncpu1 1 x 3 4 5\ncpu2 1 2\n"))
	if len(cpus) != 1 || cpus[0].Steal != 0 || cpus[0].SoftIRQ != 7 {
		t.Errorf("cpus %+v", cpus)
	}
	if len(bad) != 2 {
		t.Errorf("bad %v, want the two malformed lines", bad)
	}
}

func TestReadStat(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "proc"), 0o755)
	if _, err := ReadStat(fsroot.Root(dir)); err == nil {
		t.Error("a missing /proc/stat read without an error")
	}
	os.WriteFile(filepath.Join(dir, "proc", "stat"), []byte(sampleStat), 0o644)
	cpus, err := ReadStat(fsroot.Root(dir))
	if err != nil || len(cpus) != 2 {
		t.Fatalf("ReadStat: %v, %v", cpus, err)
	}
	os.WriteFile(filepath.Join(dir, "proc", "stat"), []byte("intr 1\n"), 0o644)
	if _, err := ReadStat(fsroot.Root(dir)); err == nil {
		t.Error("a /proc/stat without CPU lines read without an error")
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add([]byte(sampleStat))
	f.Add([]byte("cpu0 18446744073709551615 1 2 3 4 5 6 7 8 9\ncpu-1 1 2 3 4\ncpu"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cpus, _ := ParseStat(data)
		for cpu := range cpus {
			if cpu < 0 {
				t.Fatalf("negative CPU %d", cpu)
			}
		}
	})
}
