package kacct

import (
	"encoding/binary"
	"os/exec"
	"reflect"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// procEventMessage is a netlink message from the process events
// connector as the kernel lays it out: nlmsghdr, cn_msg, proc_event with
// the event's data (for exec and exit: process_pid, process_tgid, then
// more that corepin does not read).
func procEventMessage(idx uint32, seq, ack uint32, what uint32, at uint64, data ...uint32) []byte {
	ne := binary.NativeEndian
	ev := ne.AppendUint32(nil, what)
	ev = ne.AppendUint32(ev, 1) // cpu
	ev = ne.AppendUint64(ev, at)
	for _, d := range data {
		ev = ne.AppendUint32(ev, d)
	}
	cn := ne.AppendUint32(nil, idx)
	cn = ne.AppendUint32(cn, cnValProc)
	cn = ne.AppendUint32(cn, seq)
	cn = ne.AppendUint32(cn, ack)
	cn = ne.AppendUint16(cn, uint16(len(ev)))
	cn = ne.AppendUint16(cn, 0)
	cn = append(cn, ev...)
	msg := ne.AppendUint32(nil, uint32(unix.SizeofNlMsghdr+len(cn)))
	msg = ne.AppendUint16(msg, unix.NLMSG_DONE)
	msg = ne.AppendUint16(msg, 0)
	msg = ne.AppendUint32(msg, seq)
	msg = ne.AppendUint32(msg, 0)
	msg = append(msg, cn...)
	for len(msg)%4 != 0 {
		msg = append(msg, 0)
	}
	return msg
}

func TestParseProcEvents(t *testing.T) {
	execMsg := procEventMessage(cnIdxProc, 7, 0, procEventExec, 5_000_000_123, 4242, 4242)
	exitMsg := procEventMessage(cnIdxProc, 8, 0, procEventExit, 5_001_000_000, 4242, 4242, 0, 17, 1, 1)
	tests := []struct {
		name string
		in   []byte
		want []procEvent
	}{
		{"exec", execMsg, []procEvent{{what: procEventExec, at: 5_000_000_123, pid: 4242, tgid: 4242}}},
		// The exit of a thread: process_pid is the thread, process_tgid its process.
		{"exit of a thread", procEventMessage(cnIdxProc, 1, 0, procEventExit, 9, 4250, 4242, 0, 0, 1, 1),
			[]procEvent{{what: procEventExit, at: 9, pid: 4250, tgid: 4242}}},
		{"two in one datagram", append(append([]byte{}, execMsg...), exitMsg...), []procEvent{
			{what: procEventExec, at: 5_000_000_123, pid: 4242, tgid: 4242},
			{what: procEventExit, at: 5_001_000_000, pid: 4242, tgid: 4242},
		}},
		// The kernel's answer to a listen request: PROC_EVENT_NONE, the
		// request's ack number plus one, the errno. (The sequence number
		// is the kernel's own count of the messages it sent.)
		{"acknowledgement", procEventMessage(cnIdxProc, 65, 4243, procEventNone, 3, 0, 0), []procEvent{{what: procEventNone, at: 3, ack: 4243}}},
		{"refused", procEventMessage(cnIdxProc, 65, 4243, procEventNone, 3, uint32(unix.EPERM), 0),
			[]procEvent{{what: procEventNone, at: 3, ack: 4243, err: uint32(unix.EPERM)}}},
		{"another connector user", procEventMessage(cnIdxProc+1, 1, 0, procEventExec, 1, 1, 1), nil},
		{"no event data", procEventMessage(cnIdxProc, 1, 0, procEventExec, 1), nil},
		{"cut in the cn_msg", execMsg[:unix.SizeofNlMsghdr+10], nil},
		{"cut in the event", execMsg[:len(execMsg)-4], nil},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		if got := parseProcEvents(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// The command's span starts at its first exec at or after the launcher's
// clock reading (the launcher's own exec comes before), ends at its main
// thread's exit, and ignores other processes and threads.
func TestCommandSpan(t *testing.T) {
	const pid = 4242
	ev := func(what uint32, at time.Duration, p int) procEvent {
		return procEvent{what: what, at: at, pid: p, tgid: pid}
	}
	tests := []struct {
		name   string
		events []procEvent
		wall   time.Duration
		ok     bool
	}{
		{"launcher then command", []procEvent{
			ev(procEventExec, 100, pid),                                  // the launcher's own exec
			ev(procEventExit, 950, pid+1), ev(procEventExit, 960, pid+2), // its threads, ended by the exec
			ev(procEventExec, 1000, pid),
			ev(procEventExit, 1500, pid),
		}, 500, true},
		{"the command execs again", []procEvent{
			ev(procEventExec, 1000, pid), ev(procEventExec, 1200, pid), ev(procEventExit, 1500, pid),
		}, 500, true},
		{"another process", []procEvent{
			ev(procEventExec, 1000, pid), ev(procEventExit, 1100, 77), ev(procEventExit, 1500, pid),
		}, 500, true},
		{"an exit of an earlier owner of the PID", []procEvent{
			ev(procEventExit, 50, pid), ev(procEventExec, 1000, pid), ev(procEventExit, 1500, pid),
		}, 500, true},
		{"no exec after the launcher's", []procEvent{ev(procEventExec, 100, pid), ev(procEventExit, 1500, pid)}, 0, false},
		{"no exit yet", []procEvent{ev(procEventExec, 1000, pid)}, 0, false},
		{"an acknowledgement", []procEvent{ev(procEventExec, 1000, pid), {what: procEventNone, at: 1400, ack: 1}}, 0, false},
	}
	for _, tt := range tests {
		s := commandSpan{pid: pid, after: 900}
		for _, e := range tt.events {
			s.add(e)
		}
		if wall, ok := s.wall(); wall != tt.wall || ok != tt.ok {
			t.Errorf("%s: wall %v, %v; want %v, %v", tt.name, wall, ok, tt.wall, tt.ok)
		}
	}
}

// parseProcEvents reads what a socket received: it must take any bytes,
// and what it returns is what the bytes say.
func FuzzParseProcEvents(f *testing.F) {
	f.Add(procEventMessage(cnIdxProc, 7, 0, procEventExec, 5_000_000_123, 4242, 4242))
	f.Add(procEventMessage(cnIdxProc, 65, 4243, procEventNone, 3, uint32(unix.EPERM), 0))
	f.Add(append(procEventMessage(cnIdxProc, 1, 0, procEventExit, 9, 4250, 4242, 0, 0, 1, 1),
		procEventMessage(cnIdxProc, 2, 0, procEventExec, 10, 1, 1)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, e := range parseProcEvents(b) {
			if e.what != procEventNone && (e.ack != 0 || e.err != 0) {
				t.Errorf("an event with an acknowledgement's fields: %+v", e)
			}
			if e.what == procEventNone && (e.pid != 0 || e.tgid != 0) {
				t.Errorf("an acknowledgement with a PID: %+v", e)
			}
			// Written back as the kernel would write it, the event reads
			// the same.
			if e.what != procEventNone {
				again := parseProcEvents(procEventMessage(cnIdxProc, 0, 0, e.what, uint64(e.at), uint32(e.pid), uint32(e.tgid)))
				if len(again) != 1 || again[0] != e {
					t.Errorf("%+v read back as %+v", e, again)
				}
			}
		}
	})
}

// On the real kernel, the span of a child is its exec to its exit: after
// the clock reading taken before it started, and no longer than the time
// corepin saw pass until it reaped it.
func TestEventsSpanOfAChild(t *testing.T) {
	p, err := ListenEvents()
	if err != nil {
		t.Skipf("the kernel's process events: %v", err)
	}
	defer p.Close()
	before := monotonic()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("needs true: %v", err)
	}
	if err := p.Follow(cmd.Process.Pid); err != nil {
		t.Error(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	seen := monotonic() - before
	wall, ok := p.Span(cmd.Process.Pid, before)
	if !ok || wall <= 0 || wall > seen {
		t.Errorf("span of true: %v, %v; want a positive span of at most the %v corepin saw", wall, ok, seen)
	}
	if _, ok := p.Span(cmd.Process.Pid+1, before); ok {
		t.Errorf("a span for a PID that was never followed")
	}
}

func monotonic() time.Duration {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}
