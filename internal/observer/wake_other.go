//go:build !linux

package observer

import (
	"errors"
	"time"
)

type waker struct{}

func newWaker(time.Duration) (*waker, error) { return nil, errors.ErrUnsupported }
func (*waker) wait() bool                    { return false }
func (*waker) wake()                         {}
func (*waker) close()                        {}
