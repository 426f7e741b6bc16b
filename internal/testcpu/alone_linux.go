package testcpu

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Alone holds, until the test ends, a lock that every test taking it
// shares with the others: the tests that judge a CPU's share or speed by
// giving a thread the largest CPU weight. go test ./... runs the packages
// at once, and two such tests on one target would each take half of it
// from the other.
func Alone(tb testing.TB) {
	tb.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "corepin-test-alone.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		tb.Fatalf("opening the tests' lock: %v", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		tb.Fatalf("taking the tests' lock: %v", err)
	}
	tb.Cleanup(func() { f.Close() }) // closing the file frees the lock
}
