package cgroupfs

import (
	"golang.org/x/sys/unix"
)

// sweptAttr is the extended attribute a sweep sets on a run cgroup
// before it ends its processes, so that the run, should its corepin be
// alive after all, can tell why its work ended. Linux 5.7 and later keep
// user.* attributes on cgroup v2 (and, on recent kernels, v1) directories;
// elsewhere the note is not kept and the run knows only that its cgroup
// went away under it.
const sweptAttr = "user.corepin.swept"

// NoteSwept leaves note on the cgroup directory dir where the kernel
// keeps it; it says whether it did.
func NoteSwept(dir, note string) bool {
	return unix.Setxattr(dir, sweptAttr, []byte(note), 0) == nil
}

// Swept is the note a sweep left on dir; "" when there is none.
func Swept(dir string) string {
	buf := make([]byte, 1024)
	n, err := unix.Getxattr(dir, sweptAttr, buf)
	if err != nil || n <= 0 {
		return ""
	}
	return string(buf[:n])
}
