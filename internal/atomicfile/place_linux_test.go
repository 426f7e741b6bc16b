package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// devNull makes a character device of /dev/null's numbers in a new
// folder: what a rename over /dev/null would destroy.
func devNull(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "null")
	if err := unix.Mknod(path, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Skipf("cannot make a character device (needs root): %v", err)
	}
	return path
}

// A character device and a FIFO are written through and stay what they
// are; a FIFO that nobody reads is refused at once, not waited on.
func TestWriteThroughDevicesAndFIFOs(t *testing.T) {
	null := devNull(t)
	for _, f := range []func(string) error{
		func(p string) error { return Write(p, text("page")) },
		func(p string) error { return WriteFiles(File{p, text("a")}, File{p, text("b")}) },
		func(p string) error { return JSONFile(p).Write(1) },
		func(p string) error { return WriteOrKeep(p, "the report", nil, text("r")) },
		CheckWritable,
	} {
		if err := f(null); err != nil {
			t.Errorf("writing to a character device: %v", err)
		}
		if st, err := os.Lstat(null); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
			t.Fatalf("the character device is now %v (%v)", st.Mode(), err)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(null))
	if len(entries) != 1 {
		t.Errorf("left beside the device: %v", entries)
	}

	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	var pe *PlaceError
	if err := Write(fifo, text("x")); !errors.As(err, &pe) || !strings.Contains(err.Error(), "no process reads") {
		t.Errorf("a FIFO without a reader: %v, want a PlaceError", err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := Write(fifo, text("through")); err != nil {
		t.Fatalf("a FIFO with a reader: %v", err)
	}
	buf := make([]byte, 16)
	if n, _ := r.Read(buf); string(buf[:n]) != "through" {
		t.Errorf("the reader got %q", buf[:n])
	}
	if st, _ := os.Lstat(fifo); st.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v", st.Mode())
	}
}

// A symbolic link is written through to what it names and stays a link;
// a folder, a socket, a link to nothing and a place the kernel refuses are
// PlaceErrors, before anything is written.
func TestPlaces(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.html")
	os.WriteFile(target, []byte("an old, longer page"), 0o644)
	link := filepath.Join(dir, "latest.html")
	os.Symlink(target, link)
	if err := Write(link, text("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is now %v", st.Mode())
	}
	if data, _ := os.ReadFile(target); string(data) != "new" {
		t.Errorf("the linked file holds %q", data)
	}
	if err := CheckWritable(link); err != nil {
		t.Errorf("checking a link to a file: %v", err)
	}

	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nothing", "here"), dangling)
	for _, p := range []string{dir, sock, dangling, "/proc/corepin-test-out", filepath.Join(dir, "missing", "f")} {
		var pe *PlaceError
		if err := Write(p, text("x")); !errors.As(err, &pe) {
			t.Errorf("Write(%s): %v, want a PlaceError", p, err)
		}
		if err := CheckWritable(p); !errors.As(err, &pe) {
			t.Errorf("CheckWritable(%s): %v, want a PlaceError", p, err)
		}
	}
	if st, err := os.Lstat(sock); err != nil || st.Mode()&fs.ModeSocket == 0 {
		t.Errorf("the socket is now %v (%v)", st.Mode(), err)
	}
	// The content's own failure is not the place's.
	var pe *PlaceError
	if err := Write(filepath.Join(dir, "f"), func(io.Writer) error { return errors.New("bad content") }); err == nil || errors.As(err, &pe) {
		t.Errorf("a failing content: %v", err)
	}
}
