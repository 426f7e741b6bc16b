package remote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// statusMarker ends the output of a command run through adb or hdc with
// the command's exit status. adb before Android 7 (no shell protocol) and
// hdc exit 0 whatever the command did, so the status is carried back in
// the output itself.
const statusMarker = "__COREPIN_STATUS="

// withStatus wraps a command line so that its output starts with an
// empty line, which tells how the link sends line ends, and ends with a
// line "__COREPIN_STATUS=N". The subshell keeps an exit in the command
// from skipping the marker; the echo before it ends a last line that had
// no newline. statusFilter takes the three away again.
func withStatus(command string) string {
	return "echo; (" + command + "); s=$?; echo; echo " + statusMarker + "$s"
}

// statusFilter passes a command's output through, holding back the bytes
// after the last newline until it has seen whether they are the marker.
// Old adb ran commands on a terminal, which turned every "\n" into "\r\n";
// that is undone here, once for each byte as it comes. Whether the link
// does it is told by the first line end: withStatus's empty first line
// (taken away), or the first line of output that comes without it; a
// command's own "\r\n" passed on by a newer adb stays as it was.
type statusFilter struct {
	w io.Writer
	// raw holds what came before the first line end, while the kind of
	// link is not known.
	raw []byte
	// pending holds the converted bytes after the last newline passed on.
	pending []byte
	ends    lineEnds
	// cr: the last byte that came was a "\r" of a terminal link, not yet
	// passed on; whether it ends a line is told by the next byte.
	cr bool
}

type lineEnds int

const (
	unknownEnds  lineEnds = iota
	plainEnds             // "\n" arrives as sent
	terminalEnds          // the link turned "\n" into "\r\n"
)

func (f *statusFilter) Write(p []byte) (int, error) {
	n := len(p)
	if f.ends == unknownEnds {
		f.raw = append(f.raw, p...)
		i := bytes.IndexByte(f.raw, '\n')
		if i < 0 {
			return n, nil
		}
		f.ends = plainEnds
		if i > 0 && f.raw[i-1] == '\r' {
			f.ends = terminalEnds
		}
		p, f.raw = f.raw, nil
		if i == 0 || i == 1 && p[0] == '\r' { // withStatus's first line
			p = p[i+1:]
		}
	}
	if f.ends == terminalEnds {
		p = f.undoTerminal(p)
	}
	f.pending = append(f.pending, p...)
	// Keep the last line and the newline before it: at the end they are
	// the wrapper's echo and the marker.
	end := len(f.pending)
	if end > 0 && f.pending[end-1] == '\n' {
		end--
	}
	if i := bytes.LastIndexByte(f.pending[:end], '\n'); i > 0 {
		if _, err := f.w.Write(f.pending[:i]); err != nil {
			return n, err
		}
		f.pending = append(f.pending[:0], f.pending[i:]...)
	}
	return n, nil
}

// undoTerminal turns the terminal's "\r\n" back into "\n" in bytes that
// have not been converted before; a "\r" at the end waits for the next.
func (f *statusFilter) undoTerminal(p []byte) []byte {
	out := make([]byte, 0, len(p)+1)
	for _, b := range p {
		if f.cr {
			f.cr = false
			if b != '\n' {
				out = append(out, '\r')
			}
		}
		if b == '\r' {
			f.cr = true
			continue
		}
		out = append(out, b)
	}
	return out
}

// status ends the stream: it returns the command's exit status, or false
// when the marker never came (the client failed, or the link broke before
// the command ended).
func (f *statusFilter) status() (int, bool) {
	f.pending = append(f.pending, f.raw...) // no line end came: nothing to convert
	if f.cr {
		f.pending, f.cr = append(f.pending, '\r'), false
	}
	f.raw = nil
	tail := strings.TrimSuffix(strings.TrimSuffix(string(f.pending), "\n"), "\r")
	rest, ok := strings.CutPrefix(tail, "\n"+statusMarker)
	if !ok {
		rest, ok = strings.CutPrefix(tail, "\r\n"+statusMarker)
	}
	if !ok {
		rest, ok = strings.CutPrefix(tail, statusMarker)
	}
	code, err := strconv.Atoi(rest)
	if !ok || err != nil {
		f.w.Write(f.pending) // not the marker: hand it on
		return -1, false
	}
	return code, true
}

// shellRun runs a command through a client that does not carry the exit
// status (adb, hdc): argv is the client's command line up to the command.
// When no status comes back, the error is the client's own account of why
// (hdc prints it on standard output, adb on standard error), or says that
// the output ended early and how the client exited.
func shellRun(ctx context.Context, c *client, argv []string, command string, stdout, stderr io.Writer, name string) (int, error) {
	if stdout == nil {
		stdout = io.Discard
	}
	var said, first strings.Builder
	f := &statusFilter{w: io.MultiWriter(stdout, &limited{w: &first, n: 4096})}
	code, err := c.call(ctx, c.timeouts.Call, append(argv, withStatus(command)), f, teeTo(stderr, &limited{w: &said, n: 4096}))
	if err != nil {
		return -1, fmt.Errorf("%s: %w", name, err)
	}
	status, ok := f.status()
	if !ok {
		if e := clientFailure(name, argv[0], said.String()+"\n"+first.String()); e != nil {
			return -1, e
		}
		return -1, fmt.Errorf("%s: the output ended before the command's exit status (%s exited %d)%s: %w", name, argv[0], code, firstLines(said.String()), ErrLost)
	}
	return status, nil
}

// clientFailed is a client's own account of why a command did not reach
// the device, in its words. It wraps ErrLost when the device is not there
// (unplugged, offline, out of reach), since it may come back.
type clientFailed struct {
	target string // what failed: the target, or the copy to it
	said   string
	hint   string
	lost   bool
}

func (e *clientFailed) Error() string {
	s := e.target + ": " + e.said
	if e.hint != "" {
		s += "; " + e.hint
	}
	return s
}

func (e *clientFailed) Unwrap() error {
	if e.lost {
		return ErrLost
	}
	return nil
}

// copyError is a failed push or pull, in the client's words where it gave
// them.
func copyError(what, client string, code int, said string) error {
	if e := clientFailure(what, client, said); e != nil {
		return e
	}
	return clientError(what, code, said)
}

// clientFailure finds, in what a client printed, the lines where it says
// it failed: hdc's "[Fail]…" (on standard output, with any exit status),
// adb's "adb: …" or "error: …" (on standard error, exit status 1). nil
// when there are none.
func clientFailure(target, client, said string) error {
	var lines []string
	for line := range strings.Lines(said) {
		line = strings.TrimSpace(line)
		if client == "hdc" && strings.Contains(line, "[Fail]") ||
			client == "adb" && (strings.HasPrefix(line, "adb: ") || strings.HasPrefix(line, "error: ")) {
			lines = append(lines, line)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	if len(lines) > 4 {
		lines = lines[:4]
	}
	e := &clientFailed{target: target, said: strings.Join(lines, "; ")}
	text := strings.ToLower(e.said)
	switch {
	case strings.Contains(text, "more than one"):
		e.hint = "name one with --on adb:SERIAL (adb devices lists them)"
		if client == "hdc" {
			e.hint = "name one with --on hdc:KEY (hdc list targets lists them)"
		}
	case strings.Contains(text, "not found"), strings.Contains(text, "offline"), strings.Contains(text, "no devices"),
		strings.Contains(text, "not connected"), strings.Contains(text, "or connected"):
		e.lost = true
	}
	return e
}
