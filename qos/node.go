package qos

import (
	"encoding/binary"
	"errors"

	"corepin.dev/corepin/fsroot"
)

// ErrNoNode is returned where the kernel has no QoS node: any kernel that
// is not HarmonyOS/OpenHarmony's, and every system that is not Linux. It
// wraps errors.ErrUnsupported on every system, as corepin's errors for
// what a machine lacks do.
var ErrNoNode error = noNodeError{}

// noNodeError is ErrNoNode: a type rather than fmt.Errorf, so that nothing
// is formatted when the program starts.
type noNodeError struct{}

func (noNodeError) Error() string {
	return "no HarmonyOS QoS node (" + NodePath + "): " + errors.ErrUnsupported.Error()
}
func (noNodeError) Unwrap() error { return errors.ErrUnsupported }

// HasNode reports whether the system under root has the QoS node for the
// thread that reads it (NodePath).
func HasNode(root fsroot.Root) bool {
	_, err := root.Stat(NodePath)
	return err == nil
}

// The HarmonyOS/OpenHarmony kernel exposes QoS as an ioctl on a per-thread
// proc file (kernel_linux_common_modules, qos_auth/auth_ctl/qos_ctrl.c).
const (
	// NodePath is the calling thread's QoS node.
	NodePath = "/proc/thread-self/sched_qos_ctrl"

	qosCtrlMagic = 0xCC
	qosCtrlBasic = 1 // QOS_CTRL_BASIC_OPERATION

	opApply = 1 // QOS_APPLY
	opLeave = 2 // QOS_LEAVE
	opGet   = 3 // QOS_GET (newer kernels only)

	// ctrlDataSize is sizeof(struct QosCtrlData) without QOS_EXT_ENABLE:
	// {int pid; unsigned type; unsigned level; int qos}. The request code
	// is built with it, as the user library does.
	ctrlDataSize = 16
	// bufferSize is what corepin passes. The kernel ignores the size bits
	// of the request and copies its own struct, 28 bytes with
	// QOS_EXT_ENABLE, so a 16-byte buffer would be read and written past
	// its end; 32 zeroed bytes cover both layouts.
	bufferSize = 32

	noQoS = -1 // what GET reports for a thread never given a level
)

// iowr builds an _IOWR request code with the generic Linux encoding
// (direction in bits 30-31, size in 16-29, type in 8-15, number in 0-7).
func iowr(typ, nr, size uint32) uint32 {
	const dirReadWrite = 3
	return dirReadWrite<<30 | size<<16 | typ<<8 | nr
}

// requestCode is QOS_CTRL_BASIC_OPERATION: 0xC010CC01.
var requestCode = iowr(qosCtrlMagic, qosCtrlBasic, ctrlDataSize)

// ctrlData is struct QosCtrlData in the machine's byte order (the kernel's
// arm64 and x86 targets are little-endian).
type ctrlData struct {
	tid   int32
	op    uint32
	level uint32
	qos   int32 // out, for GET
}

func (d ctrlData) encode() [bufferSize]byte {
	var b [bufferSize]byte
	binary.LittleEndian.PutUint32(b[0:], uint32(d.tid))
	binary.LittleEndian.PutUint32(b[4:], d.op)
	binary.LittleEndian.PutUint32(b[8:], d.level)
	binary.LittleEndian.PutUint32(b[12:], uint32(d.qos))
	return b
}

func decode(b [bufferSize]byte) ctrlData {
	return ctrlData{
		tid:   int32(binary.LittleEndian.Uint32(b[0:])),
		op:    binary.LittleEndian.Uint32(b[4:]),
		level: binary.LittleEndian.Uint32(b[8:]),
		qos:   int32(binary.LittleEndian.Uint32(b[12:])),
	}
}
