package system

import "errors"

func (m *Machine) undoMove(e Entry) error { return errors.ErrUnsupported }

func undoAffinity(e Entry) error { return errors.ErrUnsupported }
