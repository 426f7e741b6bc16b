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

// withStatus wraps a command line so that its output ends with a line
// "__COREPIN_STATUS=N". The subshell keeps an exit in the command from
// skipping the marker; the echo before it ends a last line that had no
// newline, and is taken away again by statusFilter.
func withStatus(command string) string {
	return "(" + command + "); s=$?; echo; echo " + statusMarker + "$s"
}

// statusFilter passes a command's output through, holding back the bytes
// after the last newline until it has seen whether they are the marker.
// Old adb ran commands on a terminal, which turned every "\n" into "\r\n";
// that is undone here. Whether the link does it is told by the first line
// end: corepin's own commands print their first line themselves (an
// echo), and a command's "\r\n" passed on by a newer adb stays as it was.
type statusFilter struct {
	w       io.Writer
	pending []byte
	ends    lineEnds
}

type lineEnds int

const (
	unknownEnds  lineEnds = iota
	plainEnds             // "\n" arrives as sent
	terminalEnds          // the link turned "\n" into "\r\n"
)

func (f *statusFilter) Write(p []byte) (int, error) {
	f.pending = append(f.pending, p...)
	if f.ends == unknownEnds {
		if i := bytes.IndexByte(f.pending, '\n'); i == 0 || i > 0 && f.pending[i-1] != '\r' {
			f.ends = plainEnds
		} else if i > 0 {
			f.ends = terminalEnds
		}
	}
	if f.ends == terminalEnds {
		f.pending = bytes.ReplaceAll(f.pending, []byte("\r\n"), []byte("\n"))
	}
	// Keep the last line and the newline before it: at the end they are
	// the wrapper's echo and the marker.
	end := len(f.pending)
	if end > 0 && f.pending[end-1] == '\n' {
		end--
	}
	if i := bytes.LastIndexByte(f.pending[:end], '\n'); i > 0 {
		if _, err := f.w.Write(f.pending[:i]); err != nil {
			return len(p), err
		}
		f.pending = append(f.pending[:0], f.pending[i:]...)
	}
	return len(p), nil
}

// status ends the stream: it returns the command's exit status, or false
// when the marker never came (the client failed, or the link broke before
// the command ended).
func (f *statusFilter) status() (int, bool) {
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
func shellRun(ctx context.Context, c *client, argv []string, command string, stdout, stderr io.Writer, name string) (int, error) {
	if stdout == nil {
		stdout = io.Discard
	}
	var said strings.Builder
	f := &statusFilter{w: stdout}
	code, err := c.call(ctx, c.timeouts.Call, append(argv, withStatus(command)), f, teeTo(stderr, &said))
	if err != nil {
		return -1, fmt.Errorf("%s: %w", name, err)
	}
	status, ok := f.status()
	if !ok {
		if code == 0 {
			code = -1
		}
		return -1, fmt.Errorf("%s: the device reported no exit status (client exit %d)%s: %w", name, code, firstLines(said.String()), ErrLost)
	}
	return status, nil
}
