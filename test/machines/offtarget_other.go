//go:build !linux

package main

import (
	"errors"
	"os/exec"
)

// offTarget needs Linux's affinity calls: the guests are Linux.
func offTarget(int) (func(*exec.Cmd) error, func(), error) {
	return nil, nil, errors.ErrUnsupported
}
