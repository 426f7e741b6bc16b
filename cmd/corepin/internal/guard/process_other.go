//go:build !linux

package guard

import (
	"fmt"
	"os"
)

// Main says the guard is unsupported outside Linux.
func Main([]string) int {
	fmt.Fprintf(os.Stderr, "corepin %s: unsupported on this system\n", Arg)
	return 1
}
