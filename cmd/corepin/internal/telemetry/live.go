package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"corepin.dev/corepin/internal/termsafe"
)

// Show redraws a table of every CPU's newest sample on w, a terminal,
// every interval until ctx ends.
func (s *Sampler) Show(ctx context.Context, w io.Writer, interval time.Duration) {
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	lines := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		snap := s.Snapshot()
		var b strings.Builder
		snap.WriteLatest(&b)
		if lines > 0 {
			fmt.Fprintf(w, "\x1b[%dA\x1b[J", lines) // back up over the last table
		}
		fmt.Fprint(w, b.String())
		lines = strings.Count(b.String(), "\n")
	}
}

// Write writes the series in format: "table" (WriteTable), "csv"
// (WriteCSV) or "json", whose strings (the frequency sources, the notes)
// are exact and hold nothing a terminal obeys.
func (s *Series) Write(w io.Writer, format string) error {
	switch format {
	case "csv":
		return s.WriteCSV(w)
	case "json":
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(termsafe.JSON(append(data, '\n')))
		return err
	}
	return s.WriteTable(w)
}
