package kacct

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// Events listens to the kernel's process events connector (cn_proc,
// Documentation/driver-api/connector.rst): a netlink message for every
// exec and exit on the machine, each stamped with the kernel's
// CLOCK_MONOTONIC (ktime_get_ns) at the event.
//
// Through the launcher it gives the command's wall time from the end of
// the launcher's exec into it, after the kernel has ended the launcher's
// other threads and released its memory, to the command's exit. The
// taskstats figure (elapsed since the fork, less the launcher's age just
// before its exec) has that teardown inside it, a cost of corepin, not of
// the command.
//
// Listening needs the initial PID and user namespaces, and CAP_NET_ADMIN
// on kernels that do not let anyone listen (recent ones do).
type Events struct {
	fd int
	// ack is the ack number of corepin's requests; the kernel answers
	// with ack+1 (and its own sequence number).
	ack uint32
	buf []byte
	// lost: the kernel dropped messages for want of room (ENOBUFS), so a
	// missing or later event may stand for a lost one.
	lost bool
}

// The connector's names (linux/connector.h, linux/cn_proc.h), which
// x/sys declares only as far as NETLINK_CONNECTOR.
const (
	cnIdxProc         = 1 // CN_IDX_PROC, also the multicast group
	cnValProc         = 1 // CN_VAL_PROC
	procCnMcastListen = 1 // PROC_CN_MCAST_LISTEN
	procCnMcastIgnore = 2 // PROC_CN_MCAST_IGNORE
	procEventNone     = 0 // PROC_EVENT_NONE: an acknowledgement
	procEventExec     = 0x00000002
	procEventExit     = 0x80000000

	sizeofCnMsg = 20 // struct cn_msg: cb_id{idx, val}, seq, ack, len u16, flags u16
	// struct proc_event: what, cpu, timestamp_ns u64, then the event's
	// data, which begins with process_pid and process_tgid for exec and
	// exit alike (and with err for an acknowledgement).
	sizeofProcEventHeader = 16
	procEventMinLen       = sizeofProcEventHeader + 8
)

// ListenEvents subscribes to the process events of the whole machine,
// at once: events from the moment it returns are kept. Only execs and
// exits pass the socket's filter, and Follow narrows it to one process.
func ListenEvents() (*Events, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_CONNECTOR)
	if err != nil {
		return nil, fmt.Errorf("opening a netlink connector socket: %w", err)
	}
	p := &Events{fd: fd, ack: uint32(unix.Getpid()), buf: make([]byte, 1<<14)}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: cnIdxProc}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("joining the process events group: %w", err)
	}
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 1<<20) != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 1<<20)
	}
	if err := p.mcast(procCnMcastListen); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listening to process events: %w", err)
	}
	// The kernel handles the request while sending it, and acknowledges
	// it to every listener: an acknowledgement not there now never comes
	// (outside the initial PID namespace the kernel ignores the request).
	if err := p.acknowledged(); err != nil {
		p.Close()
		return nil, fmt.Errorf("listening to process events: %w", err)
	}
	if err := p.filter(eventFilter(0)); err != nil {
		p.Close()
		return nil, fmt.Errorf("filtering process events: %w", err)
	}
	return p, nil
}

// mcast sends a PROC_CN_MCAST_LISTEN or _IGNORE request.
func (p *Events) mcast(op uint32) error {
	msg := make([]byte, unix.SizeofNlMsghdr+sizeofCnMsg+4)
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], unix.NLMSG_DONE)
	cn := msg[unix.SizeofNlMsghdr:]
	ne.PutUint32(cn[0:], cnIdxProc)
	ne.PutUint32(cn[4:], cnValProc)
	ne.PutUint32(cn[12:], p.ack)
	ne.PutUint16(cn[16:], 4)
	ne.PutUint32(cn[sizeofCnMsg:], op)
	return unix.Sendto(p.fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// acknowledged finds the kernel's answer to the listen request among the
// messages received so far.
func (p *Events) acknowledged() error {
	for {
		n, _, err := unix.Recvfrom(p.fd, p.buf, unix.MSG_DONTWAIT)
		if errors.Is(err, unix.EAGAIN) {
			return errors.New("the kernel did not acknowledge (not in the initial PID namespace?)")
		}
		if err != nil {
			return fmt.Errorf("reading the acknowledgement: %w", err)
		}
		for _, e := range parseProcEvents(p.buf[:n]) {
			if e.what == procEventNone && e.ack == p.ack+1 {
				if e.err != 0 {
					return unix.Errno(e.err)
				}
				return nil
			}
		}
	}
}

// Follow narrows the socket's filter to the events of process pid. What
// was received before stays queued; Span filters it again.
func (p *Events) Follow(pid int) error {
	if err := p.filter(eventFilter(pid)); err != nil {
		return fmt.Errorf("filtering the process events of %d: %w", pid, err)
	}
	return nil
}

func (p *Events) filter(prog []unix.SockFilter) error {
	return unix.SetsockoptSockFprog(p.fd, unix.SOL_SOCKET, unix.SO_ATTACH_FILTER, &unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]})
}

// eventFilter is a socket filter that keeps the exec and exit events of
// process pid, or of every process when pid is 0, and drops the rest
// before they take room in the socket's queue: a busy machine sends
// thousands of events a second. The filter's loads read big-endian;
// the kernel writes the fields in its own order.
func eventFilter(pid int) []unix.SockFilter {
	const (
		whatAt = unix.SizeofNlMsghdr + sizeofCnMsg
		pidAt  = whatAt + sizeofProcEventHeader
	)
	word := func(v uint32) uint32 { return binary.BigEndian.Uint32(binary.NativeEndian.AppendUint32(nil, v)) }
	ld := func(at uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: at}
	}
	jeq := func(v uint32, t, f uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: v, Jt: t, Jf: f}
	}
	keep := unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: 0xffff}
	drop := unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: 0}
	if pid == 0 {
		return []unix.SockFilter{
			ld(whatAt),
			jeq(word(procEventExec), 1, 0),
			jeq(word(procEventExit), 0, 1),
			keep,
			drop,
		}
	}
	return []unix.SockFilter{
		ld(whatAt),
		jeq(word(procEventExec), 1, 0),
		jeq(word(procEventExit), 0, 3),
		ld(pidAt),
		jeq(word(uint32(pid)), 0, 1),
		keep,
		drop,
	}
}

// Span drains the events received so far and returns the command's wall
// time: from its exec at or after execAt (the launcher's clock just
// before its exec into the command; an earlier exec is the launcher's
// own) to the exit of its main thread. The kernel reports an exit to
// these listeners just after it wakes the parent, so once the exec was
// seen Span waits up to a second for the exit. ok is false when an event
// is missing or may have been lost.
func (p *Events) Span(pid int, execAt time.Duration) (wall time.Duration, ok bool) {
	s := commandSpan{pid: pid, after: execAt}
	p.drain(&s, 0)
	if s.haveExec && !s.haveExit && !p.lost {
		p.drain(&s, time.Second)
	}
	if p.lost {
		return 0, false
	}
	return s.wall()
}

// drain reads messages into s: those already received when wait is 0;
// otherwise until s has the exit, or for at most wait.
func (p *Events) drain(s *commandSpan, wait time.Duration) {
	flags := unix.MSG_DONTWAIT
	deadline := time.Now().Add(wait)
	if wait > 0 {
		tv := unix.NsecToTimeval(wait.Nanoseconds())
		if unix.SetsockoptTimeval(p.fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv) != nil {
			return
		}
		flags = 0
	}
	for wait == 0 || (!s.haveExit && time.Now().Before(deadline)) {
		n, _, err := unix.Recvfrom(p.fd, p.buf, flags)
		if errors.Is(err, unix.ENOBUFS) {
			p.lost = true
			continue
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		for _, e := range parseProcEvents(p.buf[:n]) {
			s.add(e)
		}
	}
}

// Close stops the kernel sending events to this socket and closes it.
// The kernel counts listeners and makes events while any is left; a
// socket closed without its IGNORE stays counted.
func (p *Events) Close() {
	if p.fd >= 0 {
		p.mcast(procCnMcastIgnore)
		unix.Close(p.fd)
		p.fd = -1
	}
}

// commandSpan folds a process's events, in the order received, into the
// two times its wall time needs: it keeps two timestamps, however many
// events arrive.
type commandSpan struct {
	pid                int
	after              time.Duration // an exec before this is not the command's
	exec, exit         time.Duration
	haveExec, haveExit bool
}

func (s *commandSpan) add(e procEvent) {
	if e.pid != s.pid || e.what == procEventNone {
		return
	}
	switch {
	case e.what == procEventExec && !s.haveExec && e.at >= s.after:
		s.exec, s.haveExec = e.at, true
	case e.what == procEventExit && s.haveExec && e.at >= s.exec:
		s.exit, s.haveExit = e.at, true
	}
}

func (s *commandSpan) wall() (time.Duration, bool) {
	if !s.haveExec || !s.haveExit {
		return 0, false
	}
	return s.exit - s.exec, true
}

// procEvent is what corepin takes from a struct proc_event.
type procEvent struct {
	what uint32
	at   time.Duration // CLOCK_MONOTONIC
	// pid and tgid: process_pid (the thread) and process_tgid (its
	// process) for exec and exit.
	pid, tgid int
	// ack is the ack number of an acknowledgement of a request
	// (PROC_EVENT_NONE): the request's plus one; err is its errno.
	ack uint32
	err uint32
}

// parseProcEvents reads the process events of a datagram from the
// connector; messages of other connector users and short ones are
// skipped.
func parseProcEvents(b []byte) []procEvent {
	var out []procEvent
	ne := binary.NativeEndian
	for _, m := range netlinkMessages(b) {
		cn := m.payload
		if len(cn) < sizeofCnMsg || ne.Uint32(cn[0:]) != cnIdxProc || ne.Uint32(cn[4:]) != cnValProc {
			continue
		}
		data := cn[sizeofCnMsg:]
		if l := int(ne.Uint16(cn[16:])); l < len(data) {
			data = data[:l]
		}
		if len(data) < procEventMinLen {
			continue
		}
		e := procEvent{
			what: ne.Uint32(data[0:]),
			at:   time.Duration(ne.Uint64(data[8:])),
			pid:  int(int32(ne.Uint32(data[16:]))),
			tgid: int(int32(ne.Uint32(data[20:]))),
		}
		if e.what == procEventNone {
			e.ack, e.err, e.pid, e.tgid = ne.Uint32(cn[12:]), ne.Uint32(data[16:]), 0, 0
		}
		out = append(out, e)
	}
	return out
}
