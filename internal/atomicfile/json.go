package atomicfile

import (
	"io"
	"os"

	"corepin.dev/corepin/internal/termsafe"
)

// A JSONFile is an output file of JSON a command line names: a path, or
// "-" for standard output. What it holds is made safe for a terminal
// (termsafe.WriteJSON).
type JSONFile string

// Check checks, before any work, that the file can be written (see
// CheckWritable); standard output passes.
func (f JSONFile) Check() error {
	if f == "-" {
		return nil
	}
	return CheckWritable(string(f))
}

// Write writes v to the file (see Write).
func (f JSONFile) Write(v any) error {
	write := func(w io.Writer) error { return termsafe.WriteJSON(w, v) }
	if f == "-" {
		return write(os.Stdout)
	}
	return Write(string(f), write)
}

// WriteOrKeep writes v to the file after the work and, when it cannot
// be, keeps it elsewhere (see WriteOrKeep); what says what v is.
func (f JSONFile) WriteOrKeep(what string, v any) error {
	write := func(w io.Writer) error { return termsafe.WriteJSON(w, v) }
	if f == "-" {
		return write(os.Stdout)
	}
	return WriteOrKeep(string(f), what, nil, write)
}
