package kacct

import (
	"encoding/binary"
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// netlinkMessage is one message of a netlink datagram: its type and what
// follows its header.
type netlinkMessage struct {
	typ     uint16
	payload []byte
}

// genlPayload is what follows a generic netlink header.
func (m netlinkMessage) genlPayload() []byte {
	if len(m.payload) < sizeofGenlmsghdr {
		return nil
	}
	return m.payload[sizeofGenlmsghdr:]
}

// netlinkMessages splits a datagram into its messages.
func netlinkMessages(b []byte) []netlinkMessage {
	var out []netlinkMessage
	for len(b) >= unix.SizeofNlMsghdr {
		l := int(binary.NativeEndian.Uint32(b))
		if l < unix.SizeofNlMsghdr || l > len(b) {
			break
		}
		out = append(out, netlinkMessage{typ: binary.NativeEndian.Uint16(b[4:]), payload: b[unix.SizeofNlMsghdr:l]})
		b = b[min(align4(l), len(b)):]
	}
	return out
}

type netlinkAttr struct {
	typ  uint16
	data []byte
}

// netlinkAttrs splits a run of attributes.
func netlinkAttrs(b []byte) []netlinkAttr {
	var out []netlinkAttr
	for len(b) >= unix.SizeofNlAttr {
		l := int(binary.NativeEndian.Uint16(b))
		if l < unix.SizeofNlAttr || l > len(b) {
			break
		}
		out = append(out, netlinkAttr{typ: binary.NativeEndian.Uint16(b[2:]) &^ unix.NLA_F_NESTED, data: b[unix.SizeofNlAttr:l]})
		b = b[min(align4(l), len(b)):]
	}
	return out
}

// netlinkError is the errno of an NLMSG_ERROR message; nil for an
// acknowledgement.
func netlinkError(payload []byte) error {
	if len(payload) < 4 {
		return errors.New("a short netlink error")
	}
	if code := int32(binary.NativeEndian.Uint32(payload)); code != 0 {
		return unix.Errno(-code)
	}
	return nil
}

func align4(n int) int { return (n + 3) &^ 3 }

// sizeofGenlmsghdr is the size of struct genlmsghdr (cmd, version, a
// reserved u16), which x/sys declares without its size.
const sizeofGenlmsghdr = int(unsafe.Sizeof(unix.Genlmsghdr{}))
