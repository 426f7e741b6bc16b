package topology

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/fsroot"
)

func TestReadBadRoot(t *testing.T) {
	if _, err := Read(fsroot.Root(filepath.Join(t.TempDir(), "nope"))); !errors.Is(err, ErrNotSysfs) {
		t.Errorf("missing root: %v, want ErrNotSysfs", err)
	}
	if _, err := Read(fsroot.Root(t.TempDir())); !errors.Is(err, ErrNotSysfs) || !strings.Contains(err.Error(), "sys/devices/system/cpu") {
		t.Errorf("empty root: %v, want ErrNotSysfs naming the folder", err)
	}
	empty := t.TempDir()
	os.MkdirAll(filepath.Join(empty, cpuDir), 0o755)
	if _, err := Read(fsroot.Root(empty)); !errors.Is(err, ErrNotSysfs) {
		t.Errorf("no cpuN: %v, want ErrNotSysfs", err)
	}
}

// copyTree copies a fixture tree, links included, to a fresh folder.
func copyTree(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "root")
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		switch {
		case info.Mode()&os.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, out)
		case info.IsDir():
			return os.MkdirAll(out, 0o755)
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(out, data, 0o644)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestReadGarbageFiles(t *testing.T) {
	for _, tt := range []struct{ file, content string }{
		{"sys/devices/system/cpu/online", "0-x"},
		{"sys/devices/system/cpu/cpu1/cpu_capacity", "big"},
		{"sys/devices/system/cpu/cpu1/topology/core_cpus_list", "1-0"},
		{"sys/devices/system/cpu/cpufreq/policy12/cpuinfo_max_freq", "\x00\x01"},
		{"sys/devices/system/cpu/cpu0/topology/physical_package_id", ""},
		{"sys/devices/system/node/node0/cpulist", "0-1,,"},
	} {
		name := "vm-2cpu"
		if strings.Contains(tt.file, "policy12") {
			name = "sgu-al10"
		}
		root := copyTree(t, machineRoot(name))
		if err := os.WriteFile(filepath.Join(root, tt.file), []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Read(fsroot.Root(root))
		// The error names the file, as reached through cpuN/cpufreq links.
		if err == nil || !strings.Contains(err.Error(), filepath.Base(tt.file)) {
			t.Errorf("%s = %q: error %v, want one naming the file", tt.file, tt.content, err)
		}
	}
}

func TestReadTruncatedTree(t *testing.T) {
	root := copyTree(t, machineRoot("sgu-al10"))
	// A dump that lost a CPU's topology and cpufreq: the CPU is still
	// read, its unknowns stay unknown.
	os.RemoveAll(filepath.Join(root, "sys/devices/system/cpu/cpu13/topology"))
	os.Remove(filepath.Join(root, "sys/devices/system/cpu/cpu13/cpufreq"))
	os.RemoveAll(filepath.Join(root, "sys/devices/system/cpu/cpufreq/policy12"))
	topo, err := Read(fsroot.Root(root))
	if err != nil {
		t.Fatal(err)
	}
	c := topo.CPU(13)
	if c == nil || c.Core != nil || c.Package != nil || c.MaxMHz != nil {
		t.Errorf("CPU 13 = %+v, want its unknowns nil", c)
	}
}

func TestEscapingLinkIsMissing(t *testing.T) {
	root := copyTree(t, machineRoot("vm-2cpu"))
	link := filepath.Join(root, "sys/devices/system/cpu/cpu1/cpufreq")
	if err := os.Symlink("/sys/devices/system/cpu/cpu1/cpufreq", link); err != nil {
		t.Fatal(err)
	}
	topo, err := Read(fsroot.Root(root))
	if err != nil {
		t.Fatal(err)
	}
	if topo.CPU(1).MaxMHz != nil {
		t.Error("an absolute link in a fixture tree was followed to the host")
	}
}

// FuzzReadTree writes arbitrary text into the files of one tree: Read must
// return a topology or an error, never panic.
func FuzzReadTree(f *testing.F) {
	files := []string{
		"sys/devices/system/cpu/online",
		"sys/devices/system/cpu/cpu12/cpu_capacity",
		"sys/devices/system/cpu/cpu12/topology/core_cpus_list",
		"sys/devices/system/cpu/cpu12/topology/thread_siblings",
		"sys/devices/system/cpu/cpufreq/policy12/cpuinfo_max_freq",
		"sys/devices/system/cpu/cpufreq/policy12/related_cpus",
		"sys/devices/system/node/node0/cpulist",
		"proc/cpuinfo",
	}
	for i, text := range []string{"0-13", "1024", "12-13", "3000", "ff", "processor : 1\nmodel name : x"} {
		f.Add(uint8(i), text)
	}
	root := copyTree(f, machineRoot("sgu-al10"))
	f.Fuzz(func(t *testing.T, which uint8, content string) {
		path := filepath.Join(root, files[int(which)%len(files)])
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(path, orig, 0o644)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		topo, err := Read(fsroot.Root(root))
		if err != nil {
			return
		}
		topo.Select("prime")
	})
}
