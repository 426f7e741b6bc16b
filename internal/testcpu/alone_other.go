//go:build !linux

package testcpu

import "testing"

// Alone is for Linux tests (see alone_linux.go).
func Alone(tb testing.TB) {}
