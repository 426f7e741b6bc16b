package fsroot

import (
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
