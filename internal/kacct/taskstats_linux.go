package kacct

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
)

// Exits receives the kernel's statistics of every task that exits
// (taskstats, Documentation/accounting/taskstats.rst). Its record of the
// command's main thread carries the high-water mark of the command's own
// memory, taken before the memory is released.
//
// The rusage of a reaped child cannot give that figure: exec keeps the
// high-water mark of the memory it replaces, and Go starts a child by
// vfork, so the replaced memory is corepin's own (a 1.4 MB program reads
// 8 MB or more). A zombie's /proc status has no memory lines left.
// Listening needs CAP_NET_ADMIN; without it there is no Exits.
type Exits struct {
	fd     int
	family uint16
	mask   []byte // the CPUs registered for
	buf    []byte
}

// ListenExits registers for the exit statistics of every possible CPU.
func ListenExits(root fsroot.Root) (*Exits, error) {
	possible, err := root.ReadFile("/sys/devices/system/cpu/possible")
	if err != nil {
		return nil, fmt.Errorf("reading the possible CPUs: %w", err)
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_GENERIC)
	if err != nil {
		return nil, fmt.Errorf("opening a generic netlink socket: %w", err)
	}
	e := &Exits{fd: fd, buf: make([]byte, 1<<16)}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		e.Close()
		return nil, fmt.Errorf("binding the netlink socket: %w", err)
	}
	// Many short processes exit at once; the records must not be lost.
	if unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, 4<<20) != nil {
		unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 4<<20)
	}
	if e.family, err = e.familyID(); err != nil {
		e.Close()
		return nil, err
	}
	e.mask = []byte(strings.TrimSpace(string(possible)) + "\x00")
	if err := e.request(e.family, unix.TASKSTATS_CMD_GET, unix.TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, e.mask); err != nil {
		e.Close()
		return nil, fmt.Errorf("registering for exit statistics: %w", err)
	}
	return e, nil
}

// familyID asks the netlink controller for the TASKSTATS family's id.
func (e *Exits) familyID() (uint16, error) {
	if err := e.send(unix.GENL_ID_CTRL, unix.CTRL_CMD_GETFAMILY, unix.CTRL_ATTR_FAMILY_NAME, []byte(unix.TASKSTATS_GENL_NAME+"\x00")); err != nil {
		return 0, fmt.Errorf("asking for the taskstats family: %w", err)
	}
	n, _, err := unix.Recvfrom(e.fd, e.buf, 0)
	if err != nil {
		return 0, fmt.Errorf("reading the taskstats family: %w", err)
	}
	for _, m := range netlinkMessages(e.buf[:n]) {
		if m.typ == unix.NLMSG_ERROR {
			return 0, fmt.Errorf("asking for the taskstats family: %w", netlinkError(m.payload))
		}
		for _, a := range netlinkAttrs(m.genlPayload()) {
			if a.typ == unix.CTRL_ATTR_FAMILY_ID && len(a.data) >= 2 {
				return binary.NativeEndian.Uint16(a.data), nil
			}
		}
	}
	return 0, errors.New("the kernel has no taskstats family")
}

// request sends a command with one attribute and reads its
// acknowledgement.
func (e *Exits) request(typ uint16, cmd uint8, attr uint16, data []byte) error {
	if err := e.send(typ, cmd, attr, data); err != nil {
		return err
	}
	n, _, err := unix.Recvfrom(e.fd, e.buf, 0)
	if err != nil {
		return err
	}
	for _, m := range netlinkMessages(e.buf[:n]) {
		if m.typ == unix.NLMSG_ERROR {
			return netlinkError(m.payload)
		}
	}
	return nil
}

func (e *Exits) send(typ uint16, cmd uint8, attr uint16, data []byte) error {
	alen := unix.SizeofNlAttr + len(data)
	msg := make([]byte, unix.SizeofNlMsghdr+sizeofGenlmsghdr+align4(alen))
	ne := binary.NativeEndian
	ne.PutUint32(msg[0:], uint32(len(msg)))
	ne.PutUint16(msg[4:], typ)
	ne.PutUint16(msg[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK)
	msg[unix.SizeofNlMsghdr] = cmd
	msg[unix.SizeofNlMsghdr+1] = 1 // the family's version
	a := msg[unix.SizeofNlMsghdr+sizeofGenlmsghdr:]
	ne.PutUint16(a[0:], uint16(alen))
	ne.PutUint16(a[2:], attr)
	copy(a[unix.SizeofNlAttr:], data)
	return unix.Sendto(e.fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK})
}

// Record drains the records received so far and returns the last one of
// the task pid: the kernel sends a task's record as it exits, so the
// record of a command that has exited but is not yet reaped is there.
func (e *Exits) Record(pid int) (Record, bool) {
	var rec Record
	found := false
	for {
		n, _, err := unix.Recvfrom(e.fd, e.buf, unix.MSG_DONTWAIT)
		if err != nil || n == 0 {
			return rec, found
		}
		for _, m := range netlinkMessages(e.buf[:n]) {
			if m.typ != e.family {
				continue
			}
			if r, ok := parseTaskRecord(m.genlPayload()); ok && r.PID == pid {
				rec, found = r, true
			}
		}
	}
}

// parseTaskRecord reads a TASKSTATS_TYPE_AGGR_PID record.
func parseTaskRecord(attrs []byte) (Record, bool) {
	var rec Record
	for _, a := range netlinkAttrs(attrs) {
		if a.typ != unix.TASKSTATS_TYPE_AGGR_PID {
			continue
		}
		var havePID, haveStats bool
		for _, in := range netlinkAttrs(a.data) {
			switch in.typ {
			case unix.TASKSTATS_TYPE_PID:
				if len(in.data) >= 4 {
					rec.PID, havePID = int(binary.NativeEndian.Uint32(in.data)), true
				}
			case unix.TASKSTATS_TYPE_STATS:
				hw := int(unsafe.Offsetof(unix.Taskstats{}.Hiwater_rss))
				et := int(unsafe.Offsetof(unix.Taskstats{}.Ac_etime))
				if len(in.data) >= max(hw, et)+8 {
					// Figures that do not fit corepin's types are not
					// figures: a record with one is no record.
					hiwater, etime := binary.NativeEndian.Uint64(in.data[hw:]), binary.NativeEndian.Uint64(in.data[et:])
					if hiwater > math.MaxInt64 || etime > math.MaxInt64/uint64(time.Microsecond) {
						return rec, false
					}
					rec.HiwaterKB = int64(hiwater)
					rec.Elapsed = time.Duration(etime) * time.Microsecond
					haveStats = true
				}
			}
		}
		return rec, havePID && haveStats
	}
	return rec, false
}

// OwnElapsed is the time since this process began, by the kernel's
// taskstats clock: the launcher's own start, to subtract from the
// command's elapsed time at its exit. It needs CAP_NET_ADMIN.
func OwnElapsed() (time.Duration, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_GENERIC)
	if err != nil {
		return 0, err
	}
	e := &Exits{fd: fd, buf: make([]byte, 1<<13)}
	defer e.Close()
	if e.family, err = e.familyID(); err != nil {
		return 0, err
	}
	pid := make([]byte, 4)
	binary.NativeEndian.PutUint32(pid, uint32(os.Getpid()))
	if err := e.send(e.family, unix.TASKSTATS_CMD_GET, unix.TASKSTATS_CMD_ATTR_PID, pid); err != nil {
		return 0, err
	}
	for range 4 {
		n, _, err := unix.Recvfrom(e.fd, e.buf, 0)
		if err != nil {
			return 0, err
		}
		for _, m := range netlinkMessages(e.buf[:n]) {
			if m.typ == unix.NLMSG_ERROR {
				if err := netlinkError(m.payload); err != nil {
					return 0, err
				}
				continue
			}
			if r, ok := parseTaskRecord(m.genlPayload()); ok && r.PID == os.Getpid() {
				return r.Elapsed, nil
			}
		}
	}
	return 0, errors.New("no taskstats record of corepin itself")
}

// Close deregisters from the exit statistics and closes the socket.
func (e *Exits) Close() {
	if e.fd >= 0 {
		if e.mask != nil {
			e.send(e.family, unix.TASKSTATS_CMD_GET, unix.TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, e.mask)
		}
		unix.Close(e.fd)
		e.fd = -1
	}
}
