//go:build !linux

package runner

import "syscall"

// dieWithParent: only Linux has a parent-death signal.
func dieWithParent() *syscall.SysProcAttr { return nil }
