//go:build !linux

package guard

import (
	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
)

// Outside Linux corepin makes no run cgroups and tunes no machine: there
// is nothing to guard, and every method does nothing.

// Start does nothing outside Linux.
func (g *Guard) Start(cpuset.Set) {}

// Ready does nothing outside Linux.
func (g *Guard) Ready() {}

// Cgroup does nothing outside Linux.
func (g *Guard) Cgroup(int, string, map[string]string) {}

// Group does nothing outside Linux.
func (g *Guard) Group(int, uint64) {}

// Ungroup does nothing outside Linux.
func (g *Guard) Ungroup(int) {}

// Tune does nothing outside Linux.
func (g *Guard) Tune(cpuset.Set, fsroot.Root, string) {}

// Results does nothing outside Linux.
func (g *Guard) Results(cpuset.Set, string) {}

// Dismiss does nothing outside Linux.
func (g *Guard) Dismiss() error { return nil }
