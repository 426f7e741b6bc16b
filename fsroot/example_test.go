package fsroot_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// A reader written against an fsroot.Root reads the running machine with
// fsroot.Host and another machine's dump in a test. Here the dump is made
// on the spot: a folder with the one file the reader needs, named as on a
// live system.
func Example() {
	dir, err := os.MkdirTemp("", "fsroot")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	cpus := filepath.Join(dir, "sys", "devices", "system", "cpu")
	os.MkdirAll(cpus, 0o755)
	os.WriteFile(filepath.Join(cpus, "online"), []byte("0-7\n"), 0o644)

	root := fsroot.Root(dir)
	online, err := root.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.TrimSpace(string(online)), root.IsHost(), fsroot.Host.IsHost())
	fmt.Println(strings.TrimPrefix(root.Path("sys/devices/system/cpu/online"), dir))
	fmt.Println(fsroot.Host.Path("proc", "self", "status"))
	// Output:
	// 0-7 false true
	// /sys/devices/system/cpu/online
	// /proc/self/status
}
