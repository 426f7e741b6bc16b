//go:build !linux

package cgroupfs

// NoteSwept keeps no note outside Linux, which has no cgroups.
func NoteSwept(string, string) bool { return false }

// Swept finds no note outside Linux.
func Swept(string) string { return "" }
