// Package interrupt is how every corepin command ends on a signal, the same
// way: SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the command's context
// (the command stops its work, restores what it changed, writes what
// finished, marks it interrupted and exits 128+N), and SIGPIPE is ignored,
// so that a reader that went away (corepin run | head -1) costs the
// output, not the run. SIGQUIT gives Go's stack dump, and the runtime's
// exit 2 without any restore, only when GOTRACEBACK asks for a dump.
//
// SIGINT and SIGTERM are caught from this package's initialisation, before
// any work starts, and the others soon after (before main runs); a signal
// caught while a command is being started is passed on to it once it runs,
// never lost. A corepin started with SIGHUP ignored (under nohup, or as a
// remote job) keeps ignoring it. Only corepin's command imports this
// package: a library must not take a program's signals.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"syscall"
)

// Catcher holds the signals a process received.
type Catcher struct {
	ctx    context.Context
	cancel context.CancelFunc
	ch     chan os.Signal

	mu     sync.Mutex
	first  os.Signal
	caught []os.Signal // every ending signal, in order, for late subscribers
	subs   map[chan os.Signal]bool
}

// maxKept bounds the signals kept for replay.
const maxKept = 16

// early holds the signals that came before Catch, from this package's
// initialisation on. Go initialises a package as soon as what it imports
// is, taking the ready ones in the order of their import paths, so this
// runs right after os/signal's: about a millisecond before main's package
// initialisation, which waits for every package corepin uses. A signal in
// that millisecond would otherwise end corepin with the runtime's default
// action, before it has decided anything.
var early = make(chan os.Signal, maxKept)

// enabled is closed once early receives every signal it is meant to.
var enabled = make(chan struct{})

// hangUpIgnored says corepin was started with SIGHUP ignored: whoever
// started it asked that a hang-up not end it. Read before any Notify.
var hangUpIgnored = signal.Ignored(syscall.SIGHUP)

// Notify takes a round trip to the runtime's signal thread per signal, a
// tenth of a millisecond or more on a small virtual machine. SIGINT (a
// person's Ctrl-C) and SIGTERM (timeout's, a supervisor's) are caught at
// once; SIGHUP and SIGPIPE from a goroutine, so that the rest of corepin's
// initialisation does not wait for them. Catch and Release wait for it.
func init() {
	signal.Notify(early, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		signal.Notify(early, later()...)
		close(enabled)
	}()
}

// later is what init catches from its goroutine: SIGHUP unless it was
// ignored at the start, and SIGPIPE. Notify, rather than Ignore, for
// SIGPIPE: an ignored signal stays ignored across exec, and the commands
// corepin starts must get the default disposition.
func later() []os.Signal {
	sigs := []os.Signal{syscall.SIGPIPE}
	if !hangUpIgnored {
		sigs = append(sigs, syscall.SIGHUP)
	}
	if !dumpOnQuit() {
		sigs = append(sigs, syscall.SIGQUIT)
	}
	return sigs
}

// dumpOnQuit says whether SIGQUIT keeps the runtime's action, a stack dump
// and exit 2: when GOTRACEBACK is set to anything but none, a person
// debugging corepin asked for it. Otherwise SIGQUIT (Ctrl-\, or a
// supervisor's) ends corepin as SIGTERM does, its work put back.
func dumpOnQuit() bool {
	v := os.Getenv("GOTRACEBACK")
	return v != "" && v != "none" && v != "0"
}

// notifyInto starts catching the ending signals and SIGPIPE into ch, as
// init does.
func notifyInto(ch chan os.Signal) {
	signal.Notify(ch, append([]os.Signal{syscall.SIGINT, syscall.SIGTERM}, later()...)...)
}

// UnignoreHangUp makes a process that was started with SIGHUP ignored
// catch it instead, and do nothing with it, so that the processes it
// starts get SIGHUP's default disposition again (an exec keeps an ignored
// signal, not a caught one). Test binaries call it: run under nohup, as a
// CI runner may, they still start corepin as a terminal would.
func UnignoreHangUp() {
	if hangUpIgnored {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

// takeEarly returns the early channel, once every signal reaches it, to
// its first caller, and nil to the others.
func takeEarly() chan os.Signal {
	<-enabled
	ch := early
	early = nil
	return ch
}

// Catch starts catching the ending signals and SIGPIPE; the first call
// takes over what was caught since the package's initialisation. Stop ends
// the catching.
func Catch() *Catcher {
	ch := takeEarly()
	if ch == nil {
		ch = make(chan os.Signal, maxKept)
		notifyInto(ch)
	}
	c := &Catcher{ch: ch, subs: map[chan os.Signal]bool{}}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	go c.loop()
	return c
}

// Release gives a process that wants the default dispositions (corepin's
// helper processes, test binaries) its signals back: it stops the early
// catching and sends itself again each signal caught so far, so that one
// that came in the first milliseconds acts as if it had never been caught.
// Call it, instead of Catch, from main's initialisation.
func Release() {
	runtime.LockOSThread() // raiseHere sends to this thread
	defer runtime.UnlockOSThread()
	ch := takeEarly()
	if ch == nil {
		return
	}
	signal.Stop(ch)
	for {
		select {
		case s := <-ch:
			raiseHere(s.(syscall.Signal))
		default:
			return
		}
	}
}

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
func (c *Catcher) Stop() {
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
// first those already received, then each new one, until stop.
func (c *Catcher) Forward() (signals <-chan os.Signal, stop func()) {
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

// With returns ctx carrying c, and cancelled by c's signals.
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
