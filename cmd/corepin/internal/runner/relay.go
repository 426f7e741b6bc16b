package runner

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"corepin.dev/corepin/internal/termsafe"
)

// progressLine is what LineEvents prints per finished run:
// "[3/14] fib run 1: 12.3 ms". It is compiled on first use: every corepin
// command would pay for it at start otherwise, and only a remote run uses it.
var progressLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(\d+)/(\d+)\] (.*)$`) })

// Relay shows the progress lines of a run that LineEvents prints elsewhere
// (corepin on a device, its output copied here) as the status line of a
// local run on w; every other line prints above it. Close takes the line
// away. What the device says is shown safe (termsafe.Message): a corepin
// there made its lines safe, but the device may run anything.
func Relay(w io.Writer) io.WriteCloser { return &relay{w: w} }

type relay struct {
	w   io.Writer
	buf []byte
	bar *barEvents
}

func (r *relay) Write(b []byte) (int, error) {
	r.buf = append(r.buf, b...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			return len(b), nil
		}
		r.line(string(r.buf[:i]))
		r.buf = r.buf[i+1:]
	}
}

func (r *relay) line(text string) {
	text = termsafe.Message(strings.TrimSuffix(text, "\r")) // a "\r\n" line end is harmless
	m := progressLine().FindStringSubmatch(text)
	if m == nil {
		if r.bar != nil {
			r.bar.Finish() // clears the status line
		}
		fmt.Fprintln(r.w, text)
		if r.bar != nil {
			r.bar.mu.Lock()
			r.bar.draw()
			r.bar.mu.Unlock()
		}
		return
	}
	done, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if r.bar == nil {
		r.bar = &barEvents{w: r.w}
		r.bar.Start(total)
	}
	r.bar.mu.Lock()
	r.bar.done, r.bar.total, r.bar.what = done, total, m[3]
	r.bar.draw()
	r.bar.mu.Unlock()
	if done >= total {
		r.bar.Finish()
		r.bar = nil
	}
}

// Close takes the status line away and writes a last line that had no
// newline.
func (r *relay) Close() error {
	if r.bar != nil {
		r.bar.Finish()
		r.bar = nil
	}
	if len(r.buf) > 0 {
		fmt.Fprintln(r.w, termsafe.Message(string(r.buf)))
		r.buf = nil
	}
	return nil
}
