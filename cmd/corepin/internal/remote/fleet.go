package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"corepin.dev/corepin/internal/termsafe"
)

// Fleet is one request run on several targets at once, each with its
// own results folder; with more than one, each line says which target it
// came from.
type Fleet struct {
	Specs          []string
	Stdout, Stderr io.Writer
	// Signals, when set, are the signals a person sends: the first
	// interrupts the jobs (the caller cancels ctx), which then restore and
	// write what finished; a second stops waiting for them.
	Signals <-chan os.Signal
	// Status, when set, shows a single target's stderr as a status line
	// (runner.Relay); the writer is closed when its job ends.
	Status func(io.Writer) io.WriteCloser
	// Pulled is told of each run brought back, before it is named on the
	// target's log.
	Pulled func(path string, log io.Writer)
}

// Run runs req through do on every target at once and returns the worst
// exit status: a target's corepin's own, or 1 for one that failed here.
func (f *Fleet) Run(ctx context.Context, req Request, do func(context.Context, string, Request) (Outcome, error)) int {
	if f.Signals != nil {
		abandon := make(chan struct{})
		req.Abandon = abandon
		go func() {
			<-f.Signals
			fmt.Fprintln(f.Stderr, "\ncorepin: interrupting the run on the device (Ctrl-C again to stop waiting for it)")
			<-f.Signals
			close(abandon)
		}()
	}
	codes := make([]int, len(f.Specs))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, spec := range f.Specs {
		r := req
		r.Stdout, r.Stderr, r.Log = f.Stdout, f.Stderr, f.Stderr
		var bar io.WriteCloser
		if len(f.Specs) > 1 {
			r.Stdout = &Prefixed{W: f.Stdout, Prefix: "[" + spec + "] ", Mu: &mu}
			r.Stderr = &Prefixed{W: f.Stderr, Prefix: "[" + spec + "] ", Mu: &mu}
			r.Log = r.Stderr
		} else if f.Status != nil {
			bar = f.Status(f.Stderr)
			r.Stderr = bar
		}
		wg.Go(func() {
			o, err := do(ctx, spec, r)
			if bar != nil {
				bar.Close()
			}
			codes[i] = o.Status
			for _, p := range o.Pulled {
				if f.Pulled != nil {
					f.Pulled(p, r.Log)
				}
				fmt.Fprintf(r.Log, "corepin: pulled %s\n", p)
			}
			if err != nil {
				fmt.Fprintf(r.Log, "corepin: %s\n", termsafe.Message(err.Error()))
				if codes[i] <= 0 {
					codes[i] = 1
				}
			}
		})
	}
	wg.Wait()
	worst := 0
	for _, c := range codes {
		worst = max(worst, c)
	}
	return worst
}
