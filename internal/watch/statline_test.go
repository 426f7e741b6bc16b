package watch

import (
	"fmt"
	"strings"
)

// statLine is a /proc/PID/task/TID/stat line with the fields the watcher
// reads.
func statLine(comm string, utime, stime, start uint64, cpu int) string {
	f := make([]string, 52)
	for i := range f {
		f[i] = "0"
	}
	f[0], f[1], f[2], f[3] = "1234", "("+comm+")", "R", "1"
	f[13], f[14], f[21], f[38] = fmt.Sprint(utime), fmt.Sprint(stime), fmt.Sprint(start), fmt.Sprint(cpu)
	return strings.Join(f, " ") + "\n"
}
