package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// client runs one of the device clients (ssh, scp, adb, hdc) with a
// timeout.
type client struct {
	timeouts Timeouts
	env      []string
	// fake, when set, stands in for the client: it gets the command line
	// and returns what the client would have written and its exit code.
	// Tests use it to check the exact command lines.
	fake func(argv []string, stdout, stderr io.Writer) int
}

// call runs argv within timeout and returns its exit code. err is set when
// the client could not be run or did not end in time; the client's own
// error output is in the message.
func (c *client) call(ctx context.Context, timeout time.Duration, argv []string, stdout, stderr io.Writer) (int, error) {
	if stdout == nil {
		stdout = io.Discard
	}
	var errText bytes.Buffer
	errOut := io.Writer(&limited{w: &errText, n: 4096})
	if stderr != nil {
		errOut = io.MultiWriter(stderr, errOut)
	}
	if c.fake != nil {
		return c.fake(argv, stdout, errOut), nil
	}
	// A caller's deadline that comes first is the call's: the error then
	// names how long the call was given.
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = max(time.Until(dl), 0).Round(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = environ(c.env)
	cmd.Stdout, cmd.Stderr = stdout, errOut
	// A client that leaves a child holding its output (an ssh master
	// going to the background) must not keep us waiting.
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return -1, fmt.Errorf("%s: no answer within %v: %w", argv[0], timeout, ErrLost)
	case ctx.Err() != nil:
		return -1, ctx.Err()
	case errors.Is(err, exec.ErrNotFound):
		return -1, fmt.Errorf("%s is not installed (%s)", argv[0], installHint[argv[0]])
	case errors.As(err, &ee) && ee.Exited():
		return ee.ExitCode(), nil
	case err != nil:
		return -1, fmt.Errorf("%s: %w%s", argv[0], err, firstLines(errText.String()))
	}
	return 0, nil
}

var installHint = map[string]string{
	"ssh": "Debian: openssh-client",
	"scp": "Debian: openssh-client",
	"adb": "Android platform tools; Debian: adb",
	"hdc": "the OpenHarmony SDK's toolchains folder",
}

// runChecked runs a short command on the device and fails on a non-zero
// status with what the device said: its standard error or, where the
// client merges the two streams (hdc, adb before Android 7), the start of
// its output.
func runChecked(ctx context.Context, t Target, what, command string, stdout io.Writer) error {
	var said, out strings.Builder
	code, err := t.Run(ctx, command, teeTo(stdout, &limited{w: &out, n: 4096}), &limited{w: &said, n: 4096})
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if code != 0 {
		text := said.String()
		if strings.TrimSpace(text) == "" {
			text = out.String()
		}
		return clientError(what+" on "+t.String(), code, text)
	}
	return nil
}

// clientError is a client's failure with what it said.
func clientError(what string, code int, errText string) error {
	return fmt.Errorf("%s: exit status %d%s", what, code, firstLines(errText))
}

// firstLines is ": " and the first lines of a client's error output.
func firstLines(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 4 {
		lines = lines[:4]
	}
	return ": " + strings.Join(lines, "; ")
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
