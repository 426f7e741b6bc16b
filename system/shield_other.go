//go:build !linux

package system

import (
	"errors"
	"fmt"
)

func (m *Machine) undoMove(e Entry) error {
	return fmt.Errorf("moving task %d back: %w", e.TID, errors.ErrUnsupported)
}

func undoAffinity(e Entry) error {
	return fmt.Errorf("setting the CPUs of task %d back: %w", e.TID, errors.ErrUnsupported)
}
