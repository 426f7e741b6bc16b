// Package interrupt is how every corepin command ends on a signal, the same
// way: SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the command's context
// (the command stops its work, restores what it changed, writes what
// finished, marks it interrupted and exits 128+N), and SIGPIPE is ignored,
// so that a reader that went away (corepin run | head -1) costs the
// output, not the run. SIGQUIT gives Go's stack dump, and the runtime's
// exit 2 without any restore, only when GOTRACEBACK asks for a dump.
//
// Nothing is caught until Catch: importing the package changes no
// disposition, so that corepin's helper processes, the test binaries and
// any library keep the defaults without having to give them back. A
// corepin started with SIGHUP ignored (under nohup, or as a remote job)
// keeps ignoring it. Only corepin's command calls Catch: a library must
// not take a program's signals.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// Catcher holds the signals a process received.
type Catcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal
	ready  chan struct{} // closed once every signal reaches ch

	mu     sync.Mutex
	first  os.Signal
	caught []os.Signal // every ending signal, in order, for late subscribers
	subs   map[chan os.Signal]bool
}

// maxKept bounds the signals kept for replay.
const maxKept = 16

// hangUpIgnored says corepin was started with SIGHUP ignored: whoever
// started it asked that a hang-up not end it. It is read once, before this
// package's first Notify, which would hide it.
var hangUpIgnored = sync.OnceValue(func() bool { return signal.Ignored(syscall.SIGHUP) })

// caughtSignals are what Catch catches: SIGINT (a person's Ctrl-C) and
// SIGTERM (timeout's, a supervisor's) first, SIGHUP unless it was ignored
// at the start, SIGQUIT unless a stack dump is wanted, and SIGPIPE.
// Notify, rather than Ignore, for SIGPIPE: an ignored signal stays ignored
// across exec, and the commands corepin starts must get the default
// disposition.
func caughtSignals() []os.Signal {
	sigs := []os.Signal{syscall.SIGINT, syscall.SIGTERM}
	if !hangUpIgnored() {
		sigs = append(sigs, syscall.SIGHUP)
	}
	if !dumpOnQuit() {
		sigs = append(sigs, syscall.SIGQUIT)
	}
	return append(sigs, syscall.SIGPIPE)
}

// dumpOnQuit says whether SIGQUIT keeps the runtime's action, a stack dump
// and exit 2: when GOTRACEBACK is set to anything but none, a person
// debugging corepin asked for it. Otherwise SIGQUIT (Ctrl-\, or a
// supervisor's) ends corepin as SIGTERM does, its work put back.
func dumpOnQuit() bool {
	v := os.Getenv("GOTRACEBACK")
	return v != "" && v != "none" && v != "0"
}

// UnignoreHangUp makes a process that was started with SIGHUP ignored
// catch it instead, and do nothing with it, so that the processes it
// starts get SIGHUP's default disposition again (an exec keeps an ignored
// signal, not a caught one). Test binaries call it: run under nohup, as a
// CI runner may, they still start corepin as a terminal would.
func UnignoreHangUp() {
	if hangUpIgnored() {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

// Catch starts catching the ending signals and SIGPIPE, and returns at
// once. The runtime enables each signal in a round trip to its signal
// thread, five of them, each a tenth of a millisecond or more on a small
// virtual machine: a goroutine enables them while the caller goes on
// reading its command line, and Ready is closed when all are; With, Forward
// and Stop wait for it. A signal before that has its default action, as it
// has before Catch: corepin is then still reading its command line and
// sweeping what a killed corepin left, which the next one sweeps again.
// Stop ends the catching.
func Catch() *Catcher {
	c := &Catcher{ch: make(chan os.Signal, maxKept), ready: make(chan struct{}), subs: map[chan os.Signal]bool{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	sigs := caughtSignals()
	go func() {
		signal.Notify(c.ch, sigs...)
		close(c.ready)
		c.loop()
	}()
	return c
}

// Ready is closed once every signal Catch catches is caught; from then on
// none has its default action until Stop.
func (c *Catcher) Ready() <-chan struct{} { return c.ready }

func (c *Catcher) loop() {
	for s := range c.ch {
		if s == syscall.SIGPIPE {
			continue
		}
		c.mu.Lock()
		if c.first == nil {
			c.first = s
		}
		if len(c.caught) < maxKept {
			c.caught = append(c.caught, s)
		}
		for sub := range c.subs {
			select {
			case sub <- s:
			default:
			}
		}
		c.mu.Unlock()
		c.cancel()
	}
}

// Stop stops catching; the signals get their default dispositions again.
// It waits for Catch's goroutine first, whose Notify would otherwise catch
// them again.
func (c *Catcher) Stop() {
	<-c.ready
	signal.Stop(c.ch)
	c.cancel()
}

// Context is cancelled by the first ending signal.
func (c *Catcher) Context() context.Context { return c.ctx }

// Signal is the first ending signal received, or nil.
func (c *Catcher) Signal() os.Signal {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first
}

// ExitCode is 128+N for the first ending signal N, the shell's convention,
// or 0 when none came.
func (c *Catcher) ExitCode() int { return ExitCode(c.Signal()) }

// ExitCode is 128+N for signal N; 0 for nil.
func ExitCode(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 0
}

// Forward returns a channel of the ending signals to pass on to a command:
// first those already received, then each new one, until stop. It returns
// once every signal is caught (Ready), so that none sent while the
// command runs ends corepin instead of reaching the command.
func (c *Catcher) Forward() (signals <-chan os.Signal, stop func()) {
	<-c.ready
	ch := make(chan os.Signal, maxKept+4)
	c.mu.Lock()
	for _, s := range c.caught {
		ch <- s
	}
	c.subs[ch] = true
	c.mu.Unlock()
	return ch, func() {
		c.mu.Lock()
		delete(c.subs, ch)
		c.mu.Unlock()
	}
}

type key struct{}

// With returns ctx carrying c, and cancelled by c's signals. It returns
// at once: until c is Ready, a signal still has its default action. A
// command that must not be ended that way (one that says Ctrl-C is
// handled handles it) waits for Ready before it runs: corepin calls Catch
// first thing in main and waits just before the command runs, so that the
// enabling is done by then, while the command line was being read.
func With(ctx context.Context, c *Catcher) context.Context {
	ctx = context.WithValue(ctx, key{}, c)
	ctx, cancel := context.WithCancel(ctx)
	context.AfterFunc(c.ctx, cancel)
	return ctx
}

// From returns the catcher ctx carries, or nil.
func From(ctx context.Context) *Catcher {
	c, _ := ctx.Value(key{}).(*Catcher)
	return c
}

// Code returns the exit code for a command that ctx ended: 128+N for the
// signal that cancelled it, 130 (SIGINT's) when the context carries no
// catcher, or 0 when it was not cancelled.
func Code(ctx context.Context) int {
	if ctx.Err() == nil {
		return 0
	}
	if c := From(ctx); c != nil && c.Signal() != nil {
		return c.ExitCode()
	}
	return 128 + int(syscall.SIGINT)
}
