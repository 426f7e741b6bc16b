package procfs

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"corepin.dev/corepin/fsroot"
)

func TestParseCPUInfo(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       CPUInfo
	}{
		{"x86", "processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\ncpu MHz\t\t: 2100.000\n\nprocessor\t: 1\nmodel name\t: Intel(R) Xeon(R)\ncpu MHz\t\t: 1800.5\n",
			CPUInfo{0: {{"model name", "Intel(R) Xeon(R)"}, {"cpu MHz", "2100.000"}}, 1: {{"model name", "Intel(R) Xeon(R)"}, {"cpu MHz", "1800.5"}}}},
		// A one-CPU ARM kernel prints no processor line before the fields.
		{"arm, one CPU", "CPU implementer\t: 0x41\nCPU part\t: 0xd0b\n",
			CPUInfo{0: {{"CPU implementer", "0x41"}, {"CPU part", "0xd0b"}}}},
		// A value may hold a colon; a line without one is no field; a
		// processor line that is not a number (s390's) changes nothing.
		{"odd lines", "processor : 3\nflags : a:b\nno colon here\nprocessor : x\nbogomips : 10\n",
			CPUInfo{3: {{"flags", "a:b"}, {"bogomips", "10"}}}},
		{"empty", "", CPUInfo{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseCPUInfo([]byte(tc.text)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCPUInfoValue(t *testing.T) {
	info := ParseCPUInfo([]byte("processor : 0\ncpu : \nmodel name : Power10\ncpu : POWER10 (raw)\n"))
	if v, ok := info.Value(0, "model name", "cpu"); !ok || v != "Power10" {
		t.Errorf("the first non-empty value of the keys: %q, %v", v, ok)
	}
	if v, ok := info.Value(1, "model name"); ok || v != "" {
		t.Errorf("a processor the file does not name: %q, %v", v, ok)
	}
}

func TestReadCPUInfo(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadCPUInfo(fsroot.Root(dir)); !os.IsNotExist(err) {
		t.Errorf("no cpuinfo under the root: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "proc"), 0o755)
	os.WriteFile(filepath.Join(dir, "proc", "cpuinfo"), []byte("processor : 2\ncpu MHz : 3000\n"), 0o644)
	if info, err := ReadCPUInfo(fsroot.Root(dir)); err != nil || !reflect.DeepEqual(info, CPUInfo{2: {{"cpu MHz", "3000"}}}) {
		t.Errorf("ReadCPUInfo = %v, %v", info, err)
	}
}

func FuzzParseCPUInfo(f *testing.F) {
	f.Add([]byte("processor\t: 0\nmodel name\t: x\n"))
	f.Add([]byte("CPU part : 0xd0b\nprocessor : -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, fields := range ParseCPUInfo(data) {
			for _, fl := range fields {
				if fl.Key == "processor" {
					t.Fatalf("a processor line kept as a field: %q", data)
				}
			}
		}
	})
}
