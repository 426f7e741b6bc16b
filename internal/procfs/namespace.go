package procfs

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"corepin.dev/corepin/fsroot"
)

// PIDNamespace is the inode of the PID namespace that process pid
// ("self" included) lives in: the number in the link /proc/PID/ns/pid,
// "pid:[4026531836]". Two processes with the same PID are the same
// process only in the same namespace: a corepin under `unshare -p` is PID
// 1 or 30001 there and another number, or none, outside it.
func PIDNamespace(root fsroot.Root, pid string) (uint64, error) {
	link, err := os.Readlink(root.Path("/proc", pid, "ns", "pid"))
	if err != nil {
		return 0, fmt.Errorf("reading the PID namespace of process %s: %w", pid, err)
	}
	inode, ok := parseNamespaceLink(link, "pid")
	if !ok {
		return 0, fmt.Errorf("reading the PID namespace of process %s: %q is not pid:[INODE]", pid, link)
	}
	return inode, nil
}

// parseNamespaceLink reads KIND:[INODE].
func parseNamespaceLink(link, kind string) (uint64, bool) {
	rest, ok := strings.CutPrefix(link, kind+":[")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(rest, "]")
	if !ok {
		return 0, false
	}
	inode, err := strconv.ParseUint(digits, 10, 64)
	return inode, err == nil && inode > 0
}
