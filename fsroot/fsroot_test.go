package fsroot

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "proc", "self"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "proc", "self", "status"), []byte("Name:\tfixture\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := Root(dir)
	if data, err := r.ReadFile("/proc/self/status"); err != nil || string(data) != "Name:\tfixture\n" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	if r.Path("proc", "self", "status") != r.Path("/proc/self/status") {
		t.Errorf("paths differ: %s, %s", r.Path("proc", "self", "status"), r.Path("/proc/self/status"))
	}
	if m, _ := r.Glob("/proc/*/status"); len(m) != 1 {
		t.Errorf("Glob = %v", m)
	}
	if r.IsHost() || !Root("").IsHost() || !Host.IsHost() || Root("").Path("proc") != "/proc" {
		t.Error("the zero Root is not the live system")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	big := make([]byte, 70000) // past the first buffer several times
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	p := filepath.Join(dir, "big")
	os.WriteFile(p, big, 0o644)
	if data, err := ReadFile(p); err != nil || string(data) != string(big) {
		t.Errorf("ReadFile read %d bytes (%v), want %d", len(data), err, len(big))
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if data, err := ReadFile(empty); err != nil || len(data) != 0 {
		t.Errorf("an empty file: %q, %v", data, err)
	}
	_, err := ReadFile(filepath.Join(dir, "missing"))
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "open" || pe.Path != filepath.Join(dir, "missing") {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := ReadFile(dir); err == nil {
		t.Error("a folder read as a file")
	}
	// A kernel file, which reports a size that is not its length.
	const online = "/sys/devices/system/cpu/online"
	if want, err := os.ReadFile(online); err == nil {
		if got, err := ReadFile(online); err != nil || string(got) != string(want) {
			t.Errorf("%s: %q, %v; os.ReadFile reads %q", online, got, err, want)
		}
	}
}
