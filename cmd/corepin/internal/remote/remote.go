// Package remote is a place to run corepin other than here: a board or
// server over OpenSSH, an Android device over adb, a HarmonyOS device over
// hdc. It drives the real clients (ssh and scp, adb, hdc) and asks of them
// only four things — run a shell command with its output streamed and its
// exit status, push a file, pull a folder, remove a folder — so that
// everything else (which corepin the device needs, a run that survives a
// broken link, fetching its results) is written once, above them.
//
// Every client call has a timeout: a device that disappears is an error
// that names it, never a hang.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// Target is a device reached through its client.
type Target interface {
	// String is the spec the target was opened with, e.g. "adb:R58M123".
	String() string
	// Kind is "ssh", "adb" or "hdc".
	Kind() string
	// Run runs a POSIX shell command line on the device, streams its
	// output, and returns its exit status. err is set when the client
	// itself failed (no link, no device, a timeout), not when the command
	// exited non-zero.
	Run(ctx context.Context, command string, stdout, stderr io.Writer) (status int, err error)
	// Push copies a local file to a path on the device.
	Push(ctx context.Context, local, remote string) error
	// Pull copies a folder of the device into localDir, as
	// localDir/<base name of remote>.
	Pull(ctx context.Context, remote, localDir string) error
	// Remove deletes a folder of the device and all it holds.
	Remove(ctx context.Context, remote string) error
	// Close ends what the target keeps open (the ssh master connection).
	Close() error
}

// Timeouts bound every client call.
type Timeouts struct {
	Connect time.Duration // to reach the device
	Call    time.Duration // one short command
	Copy    time.Duration // one push or pull
}

// defaultTimeouts suit a device on USB or a local network.
var defaultTimeouts = Timeouts{Connect: 10 * time.Second, Call: 30 * time.Second, Copy: 10 * time.Minute}

// Options are what Open needs beyond the spec.
type Options struct {
	Timeouts Timeouts
	// SSHConfig is an OpenSSH client configuration file (ssh -F); "" uses
	// the user's own.
	SSHConfig string
	// ControlDir holds the ssh master connections' sockets; "" makes one
	// under the temporary folder.
	ControlDir string
	// Env is added to the clients' environment (e.g. ANDROID_ADB_SERVER_PORT).
	Env []string
	// LostAfter is how long a device may fail to answer while its run is
	// followed before the host stops following it (the run goes on there
	// and pull fetches it later); zero: 20 s.
	LostAfter time.Duration
}

// EnvSpec is the environment variable that holds the default target.
const EnvSpec = "COREPIN_ON"

// Targets is the targets v names: v itself, or, for @FILE, those the
// file lists, one a line (# starts a comment).
func Targets(v string) ([]string, error) {
	file, ok := strings.CutPrefix(v, "@")
	if !ok {
		return []string{v}, nil
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--on @%s: %w", file, err)
	}
	var targets []string
	for line := range strings.Lines(string(data)) {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line != "" {
			targets = append(targets, line)
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf("--on @%s: the file names no target", file)
	}
	return targets, nil
}

// Open parses a target spec and returns its target:
//
//	ssh://[user@]host[:port]   OpenSSH
//	adb                        the one device adb sees (or $ANDROID_SERIAL)
//	adb:SERIAL                 that device
//	hdc                        the one device hdc sees
//	hdc:KEY                    that device (its connect key)
//
// Open starts nothing; the first call reaches the device.
func Open(spec string, opt Options) (Target, error) {
	if opt.Timeouts == (Timeouts{}) {
		opt.Timeouts = defaultTimeouts
	}
	kind, rest, hasRest := strings.Cut(spec, ":")
	switch kind {
	case "ssh":
		return openSSH(spec, rest, opt)
	case "adb", "hdc":
		if hasRest && !validSerial(rest) {
			return nil, fmt.Errorf("target %q: the serial is letters, digits and . : _ -", spec)
		}
		c := client{timeouts: opt.Timeouts, env: opt.Env}
		if kind == "adb" {
			return &ADB{Serial: rest, client: c}, nil
		}
		return &HDC{Key: rest, client: c}, nil
	}
	return nil, fmt.Errorf("target %q: want ssh://[user@]host[:port], adb, adb:SERIAL, hdc or hdc:KEY", spec)
}

// Check finds, before anything runs, the first of specs that names no
// target Open can reach (see Open), or one given twice (two runs at once
// on one device disturb each other); it reaches none of them.
func Check(specs []string) error {
	seen := map[string]bool{}
	for _, spec := range specs {
		if seen[spec] {
			return fmt.Errorf("target %q is given twice: name each device once", spec)
		}
		seen[spec] = true
		t, err := Open(spec, Options{})
		if err != nil {
			return err
		}
		t.Close()
	}
	return nil
}

func openSSH(spec, rest string, opt Options) (Target, error) {
	addr, ok := strings.CutPrefix(rest, "//")
	if !ok || addr == "" || strings.ContainsAny(addr, "/?# \t\n") {
		return nil, fmt.Errorf("target %q: want ssh://[user@]host[:port]", spec)
	}
	s := &SSH{Spec: spec, Config: opt.SSHConfig, ControlDir: opt.ControlDir, client: client{timeouts: opt.Timeouts, env: opt.Env}}
	if user, host, ok := strings.Cut(addr, "@"); ok {
		s.User, addr = user, host
	}
	host, port := addr, ""
	if strings.HasPrefix(addr, "[") { // [::1]:22
		end := strings.Index(addr, "]")
		if end < 0 {
			return nil, fmt.Errorf("target %q: unclosed [ in the address", spec)
		}
		host, port = addr[1:end], strings.TrimPrefix(addr[end+1:], ":")
	} else if h, p, ok := strings.Cut(addr, ":"); ok {
		host, port = h, p
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("target %q: port %q is not a number from 1 to 65535", spec, port)
		}
		s.Port = n
	}
	if host == "" || strings.HasPrefix(host, "-") || strings.HasPrefix(s.User, "-") {
		return nil, fmt.Errorf("target %q: want ssh://[user@]host[:port]", spec)
	}
	s.Host = host
	return s, nil
}

func validSerial(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") {
		return false
	}
	for _, r := range s {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune(".:_-", r)) {
			return false
		}
	}
	return true
}

// Quote quotes s for a POSIX shell.
func Quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// QuoteAll quotes each word and joins them with spaces.
func QuoteAll(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = Quote(w)
	}
	return strings.Join(q, " ")
}

// ErrLost says the device stopped answering.
var ErrLost = errors.New("the device stopped answering")

// safePath is a device path corepin made itself, usable unquoted by every
// client (scp and hdc pass paths through a shell on the device).
func safePath(p string) error {
	if p == "" || strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") != "" {
		return fmt.Errorf("device path %q: corepin uses only letters, digits and - _ . / in device paths", p)
	}
	return nil
}

// environ is the clients' environment.
func environ(extra []string) []string {
	if len(extra) == 0 {
		return nil // inherit
	}
	return append(os.Environ(), extra...)
}
