//go:build !linux || !cgo

package cgotest

import (
	"runtime"
	"testing"
)

func TestNativeLibrary(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the native library's tests need Linux")
	}
	t.Skip("the native library's tests need cgo and a C compiler (none found: install gcc or clang, or set CC; CGO_ENABLED=0 turns them off)")
}
