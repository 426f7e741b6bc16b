package sched

import (
	"os"
	"path/filepath"
	"testing"

	"corepin.dev/corepin/fsroot"
)

func TestOwnThreadsOnAFixture(t *testing.T) {
	dir := t.TempDir()
	for _, tid := range []string{"100", "101", "not-a-tid"} {
		if err := os.MkdirAll(filepath.Join(dir, "proc/self/task", tid), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := OwnThreads(fsroot.Root(dir)); len(got) != 2 || got[0] != 100 || got[1] != 101 {
		t.Errorf("threads under %s: %v", dir, got)
	}
	if got := OwnThreads(fsroot.Host); len(got) < 1 {
		t.Errorf("no thread of this process listed: %v", got)
	}
}
