//go:build !linux

package launch

import "corepin.dev/corepin/fsroot"

// SweepStale finds nothing outside Linux.
func SweepStale(fsroot.Root, bool) []Stray { return nil }
