package results

import (
	"encoding/csv"
	"io"

	"corepin.dev/corepin/internal/termsafe"
)

// csvWriter writes CSV with every cell made safe as the terminal's text is
// (termsafe.Text): a name from a suite or a results folder may hold
// anything. encoding/csv quotes its commas and quotes; Text leaves it no
// newline, carriage return or control for a terminal or a reader of lines
// to act on, and reads back unambiguously.
type csvWriter struct{ *csv.Writer }

func newCSV(w io.Writer) csvWriter { return csvWriter{csv.NewWriter(w)} }

// Write writes one row.
func (c csvWriter) Write(row []string) error {
	safe := make([]string, len(row))
	for i, cell := range row {
		safe[i] = termsafe.Text(cell)
	}
	return c.Writer.Write(safe)
}
