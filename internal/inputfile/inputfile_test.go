package inputfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO without a writer, a folder and a device are refused at once; a
// regular file, directly or through a link, is read.
func TestOpen(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f.toml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "s.toml")
	os.WriteFile(file, []byte("x = 1\n"), 0o644)
	link := filepath.Join(dir, "link.toml")
	os.Symlink(file, link)
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, c := range []struct {
		path, kind string
	}{{fifo, "FIFO"}, {dir, "folder"}, {"/dev/null", "character device"}} {
		var nr *NotRegularError
		if f, err := Open(c.path); !errors.As(err, &nr) || !strings.Contains(err.Error(), c.kind) {
			t.Errorf("Open(%s) = %v, %v; want it refused as a %s", c.path, f, err, c.kind)
		}
	}
	var nr *NotRegularError
	if _, err := OpenIn(root, "f.toml"); !errors.As(err, &nr) {
		t.Errorf("OpenIn of a FIFO: %v", err)
	}
	for _, open := range []func() (*os.File, error){
		func() (*os.File, error) { return Open(file) },
		func() (*os.File, error) { return Open(link) },
		func() (*os.File, error) { return OpenIn(root, "s.toml") },
	} {
		f, err := open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(data) != "x = 1\n" {
			t.Errorf("read %q, %v", data, err)
		}
	}
}
