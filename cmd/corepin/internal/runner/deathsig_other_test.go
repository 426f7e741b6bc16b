//go:build !linux

package runner

import "os/exec"

// startDyingWithTest starts cmd: only Linux has a parent-death signal.
func startDyingWithTest(cmd *exec.Cmd) error { return cmd.Start() }
