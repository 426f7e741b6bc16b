//go:build !linux

package system

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/cpuset"
	"corepin.dev/corepin/fsroot"
	"corepin.dev/corepin/results/evidence"
)

func startShield(*Machine, *Session, cpuset.Set) (*shield, *evidence.ShieldReport, error) {
	return nil, nil, fmt.Errorf("shielding CPUs with a cpuset: %w", errors.ErrUnsupported)
}

func (m *Machine) undoMove(e evidence.Entry) error {
	return fmt.Errorf("moving task %d back: %w", e.TID, errors.ErrUnsupported)
}

func (m *Machine) undoAffinity(e evidence.Entry) error {
	return fmt.Errorf("setting the CPUs of task %d back: %w", e.TID, errors.ErrUnsupported)
}

func (m *Machine) undoMkdir(e evidence.Entry) error {
	return fmt.Errorf("removing the cgroup %s: %w", e.Path, errors.ErrUnsupported)
}

func (m *Machine) undoControl(e evidence.Entry) error {
	return fmt.Errorf("disabling %s: %w", e.New, errors.ErrUnsupported)
}

func threadRunNs(fsroot.Root, int) (uint64, bool) { return 0, false }

func insideCgroup(fsroot.Root, string) bool { return false }

func shieldAround(fsroot.Root) string { return "" }
