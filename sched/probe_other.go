//go:build !linux

package sched

import "corepin.dev/corepin/fsroot"

func unsupportedFeature() Feature { return Feature{false, "not Linux"} }

// Uclamp is never supported outside Linux.
func Uclamp() Feature { return unsupportedFeature() }

// UclampAt is never supported outside Linux.
func UclampAt(fsroot.Root) Feature { return unsupportedFeature() }

// Realtime is never supported outside Linux.
func Realtime() Feature { return unsupportedFeature() }

// RealtimeFacts are none outside Linux.
func RealtimeFacts(fsroot.Root) []string { return nil }

// CapSysNiceFact is unknown outside Linux.
func CapSysNiceFact(fsroot.Root) string { return "capabilities unknown" }

// PriorityFacts are unknown outside Linux.
func PriorityFacts(fsroot.Root) string { return "capabilities unknown" }

// RTRuntimeFact is "" outside Linux.
func RTRuntimeFact(fsroot.Root) string { return "" }

// NiceLowering is never supported outside Linux.
func NiceLowering() Feature { return unsupportedFeature() }

// Slice is never supported outside Linux.
func Slice() Feature { return unsupportedFeature() }

// DefaultSlice is 0 outside Linux.
func DefaultSlice() uint64 { return 0 }
