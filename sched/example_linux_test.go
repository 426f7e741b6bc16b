package sched_test

import (
	"fmt"
	"os"
	"path/filepath"

	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/sched"
)

// What a kernel supports is read under a root, with the evidence for the
// answer: here a dump of a kernel built with uclamp, made on the spot.
func ExampleUclampAt() {
	dir, err := os.MkdirTemp("", "sched")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	kernel := filepath.Join(dir, "proc", "sys", "kernel")
	os.MkdirAll(kernel, 0o755)
	os.WriteFile(filepath.Join(kernel, "sched_util_clamp_min"), []byte("1024\n"), 0o644)

	f := sched.UclampAt(fsroot.Root(dir))
	fmt.Println(f.Supported, f.Evidence)
	// Output: true /proc/sys/kernel/sched_util_clamp_min exists
}
