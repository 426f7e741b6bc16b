package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SSH is a machine reached with OpenSSH. One master connection
// (ControlMaster) serves every call of a run, so that a run costs one
// handshake; BatchMode keeps the client from asking for a password it
// cannot be given, and ServerAliveInterval notices a link that died.
type SSH struct {
	Spec       string
	User, Host string
	Port       int    // 0: the client's default
	Config     string // ssh -F; "" for the user's own
	ControlDir string // where the master's socket lives; "" for a folder under os.TempDir
	client

	mu     sync.Mutex
	master bool // the master connection was started
	// borrowed: the master is another corepin's, found alive; Close
	// leaves it to end on its own a minute after its last use.
	borrowed bool
	// legacySCP: the server has no SFTP subsystem (dropbear, small
	// boards), so scp speaks the old scp protocol (-O).
	legacySCP bool
}

func (s *SSH) String() string { return s.Spec }
func (s *SSH) Kind() string   { return "ssh" }

// dest is user@host for ssh; scp wants IPv6 addresses in brackets.
func (s *SSH) dest(forSCP bool) string {
	host := s.Host
	if forSCP && strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if s.User != "" {
		return s.User + "@" + host
	}
	return host
}

func (s *SSH) controlPath() string {
	dir := s.ControlDir
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "corepin-ssh-"+strconv.Itoa(os.Getuid()))
		// A socket's path has room for about 100 bytes, and ssh adds 17
		// to the 40 of %C while it sets the master up.
		if len(dir) > 40 {
			dir = filepath.Join("/tmp", "corepin-ssh-"+strconv.Itoa(os.Getuid()))
		}
	}
	return filepath.Join(dir, "%C") // a hash of host, port and user
}

// options are shared by ssh and scp.
func (s *SSH) options() []string {
	var o []string
	if s.Config != "" {
		o = append(o, "-F", s.Config)
	}
	return append(o,
		"-o", "BatchMode=yes",
		"-o", fmt.Sprintf("ConnectTimeout=%d", max(1, int(s.timeouts.Connect/time.Second))),
		"-o", "ServerAliveInterval=5",
		"-o", "ServerAliveCountMax=3",
		"-o", "ControlPath="+s.controlPath(),
	)
}

// sshArgs is the ssh command line that runs command through the master.
func (s *SSH) sshArgs(command string) []string {
	a := append([]string{"ssh"}, s.options()...)
	if s.Port != 0 {
		a = append(a, "-p", strconv.Itoa(s.Port))
	}
	return append(a, "-o", "ControlMaster=no", "--", s.dest(false), command)
}

// scpArgs copies from to to; recursive for folders.
func (s *SSH) scpArgs(recursive bool, from, to string) []string {
	a := append([]string{"scp", "-q", "-B"}, s.options()...)
	if s.Port != 0 {
		a = append(a, "-P", strconv.Itoa(s.Port))
	}
	if s.legacySCP {
		a = append(a, "-O")
	}
	if recursive {
		a = append(a, "-r")
	}
	return append(a, "-o", "ControlMaster=no", "--", from, to)
}

// masterArgs starts the master connection in the background once it is
// authenticated; it ends a minute after its last use, or at Close.
func (s *SSH) masterArgs() []string {
	a := append([]string{"ssh"}, s.options()...)
	if s.Port != 0 {
		a = append(a, "-p", strconv.Itoa(s.Port))
	}
	return append(a, "-o", "ControlMaster=yes", "-o", "ControlPersist=60", "-N", "-f", "--", s.dest(false))
}

// connect starts the master connection on first use.
func (s *SSH) connect(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.master {
		return nil
	}
	if s.ControlDir == "" {
		if err := os.MkdirAll(filepath.Dir(s.controlPath()), 0o700); err != nil {
			return fmt.Errorf("connecting to %s: %w", s.Spec, err)
		}
	}
	argv := s.masterArgs()
	if s.fake != nil {
		if code := s.fake(argv, io.Discard, io.Discard); code != 0 {
			return fmt.Errorf("connecting to %s: exit status %d", s.Spec, code)
		}
		s.master = true
		return nil
	}
	if s.liveMaster(ctx) {
		s.master, s.borrowed = true, true
		return nil
	}
	s.removeStaleSocket(ctx)
	// The master keeps the client's standard error when it goes to the
	// background: give it a file, not a pipe that would never close.
	errFile, err := os.CreateTemp("", "corepin-ssh-*.err")
	if err != nil {
		return fmt.Errorf("connecting to %s: %w", s.Spec, err)
	}
	defer os.Remove(errFile.Name())
	defer errFile.Close()
	timeout := s.timeouts.Connect + 5*time.Second
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Env = environ(s.env)
	cmd.Stderr = errFile
	err = cmd.Run()
	said, _ := os.ReadFile(errFile.Name())
	switch {
	case cctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("connecting to %s: no answer within %v: %w", s.Spec, timeout, ErrLost)
	case err != nil:
		return fmt.Errorf("connecting to %s: %v%s", s.Spec, err, firstLines(string(said)))
	}
	s.master = true
	return nil
}

// controlArgs is an ssh command line for the control socket: -O CMD, or
// -G to print the configuration.
func (s *SSH) controlArgs(flag ...string) []string {
	a := append([]string{"ssh"}, s.options()...)
	if s.Port != 0 {
		a = append(a, "-p", strconv.Itoa(s.Port))
	}
	return append(append(a, flag...), "--", s.dest(false))
}

// liveMaster says whether a master connection already listens on the
// control socket: another corepin's to the same device, or one left
// from a run less than a minute ago.
func (s *SSH) liveMaster(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second) // the socket is local
	defer cancel()
	argv := s.controlArgs("-O", "check")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = environ(s.env)
	return cmd.Run() == nil
}

// removeStaleSocket removes a control socket whose master is gone (a lost
// link, a killed corepin). ssh cannot listen where such a socket is: the
// new master would then carry on without one, connected and unused, for
// good. ssh -G gives the socket's path with its %C expanded.
func (s *SSH) removeStaleSocket(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second) // the socket is local
	defer cancel()
	argv := s.controlArgs("-G")
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = environ(s.env)
	out, err := cmd.Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		if path, ok := strings.CutPrefix(line, "controlpath "); ok {
			if st, err := os.Lstat(path); err == nil && st.Mode()&os.ModeSocket != 0 {
				os.Remove(path)
			}
			return
		}
	}
}

func (s *SSH) Run(ctx context.Context, command string, stdout, stderr io.Writer) (int, error) {
	if err := s.connect(ctx); err != nil {
		return -1, err
	}
	var said strings.Builder
	code, err := s.call(ctx, s.timeouts.Call, s.sshArgs(command), stdout, teeTo(stderr, &said))
	if err == nil && code == 255 { // ssh's own failure
		return -1, fmt.Errorf("ssh %s: the connection failed%s: %w", s.Spec, firstLines(said.String()), ErrLost)
	}
	return code, err
}

// runWith runs an scp command line through the master connection.
func (s *SSH) runWith(ctx context.Context, timeout time.Duration, argv []string, what string) error {
	if err := s.connect(ctx); err != nil {
		return err
	}
	var said strings.Builder
	code, err := s.call(ctx, timeout, argv, nil, &said)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if code != 0 {
		return clientError(what, code, said.String())
	}
	return nil
}

func (s *SSH) Push(ctx context.Context, local, remote string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	return s.copy(ctx, "pushing "+local+" to "+s.Spec, func() []string { return s.scpArgs(false, local, s.dest(true)+":"+remote) })
}

func (s *SSH) Pull(ctx context.Context, remote, localDir string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	return s.copy(ctx, "pulling "+remote+" from "+s.Spec, func() []string { return s.scpArgs(true, s.dest(true)+":"+remote, localDir) })
}

// copy runs scp; a server without SFTP (scp's default since OpenSSH 9.0)
// closes the connection at once, and the copy is tried again with the old
// protocol.
func (s *SSH) copy(ctx context.Context, what string, argv func() []string) error {
	err := s.runWith(ctx, s.timeouts.Copy, argv(), what)
	if err != nil && !s.legacySCP && (strings.Contains(err.Error(), "Connection closed") || strings.Contains(err.Error(), "subsystem request failed")) {
		s.legacySCP = true
		err = s.runWith(ctx, s.timeouts.Copy, argv(), what)
	}
	return err
}

func (s *SSH) Remove(ctx context.Context, remote string) error {
	return removeWith(ctx, s, remote)
}

// Close ends the master connection.
func (s *SSH) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.master || s.borrowed {
		s.master = false
		return nil
	}
	s.master = false
	_, err := s.call(context.Background(), s.timeouts.Call, s.controlArgs("-O", "exit"), nil, nil)
	return err
}

// removeWith deletes a folder through a target's shell.
func removeWith(ctx context.Context, t Target, remote string) error {
	if err := safePath(remote); err != nil {
		return err
	}
	if remote == "/" || !strings.Contains(strings.Trim(remote, "/"), "/") {
		return fmt.Errorf("removing %s on %s: refusing a top-level folder", remote, t)
	}
	return runChecked(ctx, t, "removing "+remote, "rm -rf "+Quote(remote), nil)
}

// teeTo writes to both, skipping a nil first.
func teeTo(w io.Writer, also io.Writer) io.Writer {
	if w == nil {
		return also
	}
	return io.MultiWriter(w, also)
}
