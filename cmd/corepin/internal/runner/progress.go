package runner

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"corepin.dev/corepin/internal/termsafe"
	"corepin.dev/corepin/results"
)

// Events are told how the run goes; a progress display implements them.
type Events interface {
	Start(total int)
	RunStarted(bench string, run, of int, warmup bool)
	RunDone(bench string, rec *results.RunRecord)
	Finish()
}

type noEvents struct{}

func (noEvents) Start(int)                          {}
func (noEvents) RunStarted(string, int, int, bool)  {}
func (noEvents) RunDone(string, *results.RunRecord) {}
func (noEvents) Finish()                            {}

// LineEvents prints one plain line per run, for logs and pipes.
func LineEvents(w io.Writer) Events { return &lineEvents{w: w} }

// StatusLine keeps one status line on a terminal (see barEvents).
func StatusLine(w io.Writer) Events { return &barEvents{w: w} }

// Progress is how a run shows its progress on w: not at all when quiet,
// as a status line on a terminal, else a line per run.
func Progress(w io.Writer, quiet, terminal bool) Events {
	switch {
	case quiet:
		return nil
	case terminal:
		return StatusLine(w)
	}
	return LineEvents(w)
}

// WhyInvalid says, a line each, why each invalid benchmark of the run is
// invalid, for whoever saw no summary; the text is made safe to show.
func WhyInvalid(run *results.Run) []string {
	var why []string
	for _, b := range run.Benchmarks {
		if w := b.WhyInvalid(); w != "" {
			why = append(why, termsafe.Text(b.Name)+" is invalid: "+termsafe.Text(w))
		}
	}
	return why
}

// lineEvents prints one plain line per run, for logs and pipes.
type lineEvents struct {
	w     io.Writer
	total int
	done  int
	start time.Time
}

func (e *lineEvents) Start(total int)                   { e.total, e.start = total, time.Now() }
func (e *lineEvents) RunStarted(string, int, int, bool) {}
func (e *lineEvents) RunDone(bench string, rec *results.RunRecord) {
	e.done++
	state := results.FormatSeconds(rec.WallS)
	switch {
	case rec.Error != "":
		state = "error: " + termsafe.Text(rec.Error) // a benchmark's stderr may hold anything
	case !rec.Valid:
		state += " INVALID"
	}
	kind := "run"
	if rec.Warmup {
		kind = "warm-up"
	}
	fmt.Fprintf(e.w, "[%d/%d] %s %s %d: %s\n", e.done, e.total, termsafe.Text(bench), kind, rec.Index, state)
}
func (e *lineEvents) Finish() {}

// Note prints a passing note, such as a wait for an offline CPU.
func (e *lineEvents) Note(s string) { fmt.Fprintln(e.w, "corepin: "+s) }

// barEvents keeps one status line on the terminal: the run in progress, a
// bar, the count and the time left. It is redrawn only when a run starts or
// ends, so that nothing of corepin wakes up while a run is measured.
type barEvents struct {
	w     io.Writer
	mu    sync.Mutex
	total int
	done  int
	start time.Time
	what  string
}

func (e *barEvents) Start(total int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.total, e.start, e.what = total, time.Now(), "starting"
	e.draw()
}

func (e *barEvents) RunStarted(bench string, run, of int, warmup bool) {
	kind := "run"
	if warmup {
		kind = "warm-up"
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.what = fmt.Sprintf("%-9s %s %d/%d", termsafe.Text(bench), kind, run+1, of)
	e.draw()
}

func (e *barEvents) RunDone(string, *results.RunRecord) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done++
	e.draw()
}

// Finish takes the line away, also when the run stopped early.
func (e *barEvents) Finish() {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprint(e.w, "\r\x1b[K")
}

// Note prints a note on a line of its own above the status line.
func (e *barEvents) Note(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fmt.Fprint(e.w, "\r\x1b[K")
	fmt.Fprintln(e.w, "corepin: "+s)
	e.draw()
}

func (e *barEvents) draw() {
	const width = 30
	filled := 0
	if e.total > 0 {
		filled = width * min(e.done, e.total) / e.total
	}
	eta := "-"
	if e.done > 0 && e.total > e.done {
		left := time.Since(e.start) / time.Duration(e.done) * time.Duration(e.total-e.done)
		eta = left.Round(time.Second).String()
	}
	fmt.Fprintf(e.w, "\r\x1b[K%-24s [%s%s] %d/%d · ETA %s", e.what,
		strings.Repeat("=", filled), strings.Repeat(" ", width-filled), e.done, e.total, eta)
}
