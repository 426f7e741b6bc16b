package runner

import (
	"strings"
	"sync"
	"testing"

	"corepin.dev/corepin/internal/termsafetest"
)

// TestRelay draws the device's progress lines as a bar and passes
// every other line through whole.
func TestRelay(t *testing.T) {
	var out lockedOutput
	p := Relay(&out)
	for _, chunk := range []string{"corepin: run 1 sta", "rted\n[1/3] fib run 0: 1", "2.0 ms\n[2/3] fib run 1: 12.1 ms\nwarning: spread\n", "[3/3] fib run 2: 12.2 ms\nsummary\n[1/2] again\nlast"} {
		p.Write([]byte(chunk))
	}
	p.Close()
	got := out.String()
	for _, want := range []string{"corepin: run 1 started\n", "warning: spread\n", "\r\x1b[Ksummary\n", "last\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q is missing from:\n%s", want, got)
		}
	}
	if strings.Contains(got, "[1/3] fib") || strings.Contains(got, "[2/3]") {
		t.Errorf("a progress line came through as text:\n%s", got)
	}
}

type lockedOutput struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedOutput) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedOutput) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRelayShowsTheDeviceSafely: what the device says, in a line, in a
// progress line or in a last line without a newline, reaches the terminal
// with nothing it would obey but the status line's own redraws.
func TestRelayShowsTheDeviceSafely(t *testing.T) {
	var out lockedOutput
	p := Relay(&out)
	p.Write([]byte("warning: \x1b]0;PWNED\x07 title\rover\r\n[1/2] \x1b[31mred run 0: 1 ms\n[2/2] \u009b2J run 1: 1 ms\nlast " + termsafetest.Evil))
	p.Close()
	got := out.String()
	termsafetest.Check(t, "the relayed output", []byte(strings.ReplaceAll(got, "\r\x1b[K", "")))
	for _, want := range []string{"warning: \\e]0;PWNED\\x07 title\\x0dover\n", `\e[31mred run 0`, `last \e[31m,"`} {
		if !strings.Contains(got, want) {
			t.Errorf("%q is missing from:\n%q", want, got)
		}
	}
}
