//go:build !linux

package oncpu

import (
	"errors"
	"fmt"
	"runtime"

	"corepin.dev/corepin/cpuset"
)

type sysTracer struct{}

func unsupported() error {
	return fmt.Errorf("oncpu: the scheduler's switch events are read with Linux's BPF: %w on %s", errors.ErrUnsupported, runtime.GOOS)
}

func start(cpuset.Set) (*sysTracer, error) { return nil, unsupported() }

func (*sysTracer) stop() (Account, error) { return Account{}, unsupported() }

func supported() (string, error) { return "", unsupported() }

func (*sysTracer) snapshot() (Account, error) { return Account{}, unsupported() }

func (*sysTracer) slices(Account, Account) ([]Slice, int, error) { return nil, 0, unsupported() }
