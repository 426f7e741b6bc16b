//go:build !linux

package sched

var unsupportedFeature = func() Feature { return Feature{false, "not Linux"} }

// Uclamp is never supported outside Linux.
var Uclamp = unsupportedFeature

// Realtime is never supported outside Linux.
var Realtime = unsupportedFeature

// NiceLowering is never supported outside Linux.
var NiceLowering = unsupportedFeature

// Slice is never supported outside Linux.
var Slice = unsupportedFeature

// ErrnoName returns "" outside Linux.
func ErrnoName(error) string { return "" }

// DefaultSlice is 0 outside Linux.
func DefaultSlice() uint64 { return 0 }
