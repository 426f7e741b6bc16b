package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fullDisk mounts a tmpfs of size on a new folder and returns a results
// folder made on it; fill then fills the disk.
func fullDisk(t *testing.T, size string) (f *Folder, fill func()) {
	t.Helper()
	dir := t.TempDir()
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size="+size+",mode=0755"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (needs root): %v", err)
	}
	t.Cleanup(func() { unix.Unmount(dir, unix.MNT_DETACH) })
	f, err := Create(dir, "host", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return f, func() {
		w, err := os.Create(filepath.Join(dir, "fill"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		block := make([]byte, 4096)
		for {
			if _, err := w.Write(block); err != nil {
				if !errors.Is(err, syscall.ENOSPC) {
					t.Fatal(err)
				}
				return
			}
		}
	}
}

// A folder whose disk filled up saves its run at the end with the disk
// its reserve held, and gives the reserve back; without a reserve the run
// is kept in $TMPDIR, in a folder that says where its own is.
func TestSaveOnAFullDisk(t *testing.T) {
	r := &Run{Schema: Schema, State: StateFinished, Benchmarks: []Benchmark{{Name: "fib", Runs: []RunRecord{{WallS: 0.17, Valid: true}}}}}
	f, fill := fullDisk(t, "512k")
	f.Reserve(ReserveFor(4))
	fill()
	if err := f.Save(r); err != nil {
		t.Fatalf("with its reserve: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.Path, reserveFile)); err == nil {
		t.Error("the reserve is still there")
	}
	if got, err := Load(f.Path); err != nil || len(got.Benchmarks[0].Runs) != 1 {
		t.Errorf("run.json after the save: %v", err)
	}

	g, fill := fullDisk(t, "256k")
	fill()
	err := g.Save(r)
	if !full(err) {
		t.Fatalf("without a reserve: %v, want a full disk", err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	kept, err := g.KeepElsewhere(r, err)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Load(kept.Path)
	if err != nil || filepath.Dir(kept.Path) != os.TempDir() || len(got.Benchmarks[0].Runs) != 1 ||
		!strings.Contains(strings.Join(WarningTexts(got.Warnings), " "), g.Path+" could not be written") {
		t.Errorf("kept in %s: %+v, %v", kept.Path, got, err)
	}
}
