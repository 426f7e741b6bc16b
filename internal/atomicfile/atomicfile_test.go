package atomicfile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"corepin.dev/corepin/internal/atomicfile"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "one"); return err }); err != nil {
		t.Fatal(err)
	}
	failed := atomicfile.Write(path, func(w io.Writer) error { io.WriteString(w, "half"); return errors.New("disk full") })
	data, _ := os.ReadFile(path)
	if failed == nil || string(data) != "one" {
		t.Errorf("after a failed write: %q, %v", data, failed)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode())
	}
}

// The file is flushed before the rename and its folder after it, or a
// power cut can leave an empty file where the old one was.
func TestWriteFlushesFileThenFolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	var synced []string
	flush := func(f *os.File) error {
		st, err := f.Stat()
		if err != nil {
			return err
		}
		_, renamed := os.Stat(path)
		kind := "file"
		if st.IsDir() {
			kind = "folder"
		}
		synced = append(synced, fmt.Sprintf("%s renamed=%v", kind, renamed == nil))
		return f.Sync()
	}
	if err := atomicfile.WriteFlushing(flush, path, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err }); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(synced, ", "); got != "file renamed=false, folder renamed=true" {
		t.Errorf("flushes: %s; want the file before the rename and the folder after", got)
	}
	failing := func(*os.File) error { return errors.New("EIO") }
	if err := atomicfile.WriteFlushing(failing, path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err == nil {
		t.Error("a failed flush was not reported")
	}
	if data, _ := os.ReadFile(path); string(data) != "{}" {
		t.Errorf("after a failed flush the file holds %q", data)
	}
}

// Several files in one folder are flushed each, and the folder once.
func TestWriteFilesFlushesTheFolderOnce(t *testing.T) {
	dir := t.TempDir()
	var files, folders int
	flush := func(f *os.File) error {
		if st, err := f.Stat(); err == nil && st.IsDir() {
			folders++
		} else {
			files++
		}
		return f.Sync()
	}
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	err := atomicfile.WriteFilesFlushing(flush, atomicfile.File{Path: filepath.Join(dir, "a"), Write: write("a")}, atomicfile.File{Path: filepath.Join(dir, "b"), Write: write("b")}, atomicfile.File{Path: filepath.Join(dir, "c"), Write: write("c")})
	if err != nil || files != 3 || folders != 1 {
		t.Errorf("%v: %d file flushes, %d folder flushes; want 3 and 1", err, files, folders)
	}
	for _, name := range []string{"a", "b", "c"} {
		if data, _ := os.ReadFile(filepath.Join(dir, name)); string(data) != name {
			t.Errorf("%s holds %q", name, data)
		}
	}
}
