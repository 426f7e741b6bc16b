package sched

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Errno is a kernel error number as corepin's reports keep it: a value to
// compare (st.Errno == sched.Errno(unix.EPERM)), written as its symbolic
// name ("EPERM") in text and JSON. The zero Errno is no error. Errno 95 is
// named EOPNOTSUPP, as the scheduler's source returns it (x/sys prefers its
// alias ENOTSUP).
type Errno syscall.Errno

// ErrnoOf is the errno inside err, or 0 when err holds none.
func ErrnoOf(err error) Errno {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return 0
	}
	return Errno(errno)
}

// ErrnoName returns the symbolic name of the errno inside err ("EPERM"),
// or "" when err holds none.
func ErrnoName(err error) string {
	e := ErrnoOf(err)
	if e == 0 {
		return ""
	}
	return e.String()
}

// String is the errno's name ("EPERM"), or "errno N" for a number without
// one.
func (e Errno) String() string {
	if e == 0 {
		return ""
	}
	if syscall.Errno(e) == unix.EOPNOTSUPP {
		return "EOPNOTSUPP"
	}
	if name := unix.ErrnoName(syscall.Errno(e)); name != "" {
		return name
	}
	return "errno " + strconv.Itoa(int(e))
}

// MarshalText writes the errno's name.
func (e Errno) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText reads an errno's name ("EPERM", "EOPNOTSUPP") or "errno N".
func (e *Errno) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if s == "" {
		*e = 0
		return nil
	}
	if n, ok := strings.CutPrefix(s, "errno "); ok {
		v, err := strconv.Atoi(n)
		if err != nil {
			return fmt.Errorf("errno %q: %w", s, err)
		}
		*e = Errno(v)
		return nil
	}
	v, ok := errnoByName()[s]
	if !ok {
		return fmt.Errorf("unknown errno name %q", s)
	}
	*e = v
	return nil
}

// errnoByName maps every name ErrnoName gives back to its number.
var errnoByName = sync.OnceValue(func() map[string]Errno {
	m := map[string]Errno{"EOPNOTSUPP": Errno(unix.EOPNOTSUPP)}
	for n := 1; n < 4096; n++ {
		if name := unix.ErrnoName(syscall.Errno(n)); name != "" {
			if _, seen := m[name]; !seen {
				m[name] = Errno(n)
			}
		}
	}
	return m
})
