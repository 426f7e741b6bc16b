package main

import (
	"errors"
	"fmt"

	"corepin.dev/corepin/internal/atomicfile"
)

// placeError makes an output that cannot go where the command line put
// it (a folder, a socket, a FIFO nobody reads, a read-only or full disk;
// atomicfile.PlaceError) the command line's fault: exit 2, as the README
// says, without the usage hint. Any other error is returned as it is.
func placeError(err error) error {
	var pe *atomicfile.PlaceError
	if errors.As(err, &pe) {
		return &exitError{code: exitUsage, err: err}
	}
	return err
}

// checkOutput checks, before any work, that a file can be written at
// path ("" passes), as placeError says when it cannot.
func checkOutput(flag, path string) error {
	if err := atomicfile.CheckWritable(path); err != nil {
		return placeError(fmt.Errorf("--%s: %w", flag, err))
	}
	return nil
}
