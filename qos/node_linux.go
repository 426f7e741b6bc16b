package qos

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
)

// NodeAvailable reports whether the calling thread's QoS node exists.
func NodeAvailable() bool { return HasNode(fsroot.Host) }

// control sends one request on the calling thread's node. x/sys has no
// wrapper for an ioctl with a caller-made struct; this is the one raw
// system call of the package.
func control(d ctrlData) (ctrlData, error) {
	f, err := os.OpenFile(NodePath, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return ctrlData{}, ErrNoNode
	}
	if err != nil {
		return ctrlData{}, fmt.Errorf("opening QoS node: %w", err)
	}
	defer f.Close()
	buf := d.encode()
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, f.Fd(), uintptr(requestCode), uintptr(unsafe.Pointer(&buf[0])))
	if errno != 0 {
		return ctrlData{}, os.NewSyscallError("ioctl sched_qos_ctrl", errno)
	}
	return decode(buf), nil
}

// Get reads the calling thread's QoS level. known is false for a thread
// that was never given a level: the kernel says -1 then, which is not
// "default". Older kernels have no GET and fail with an error.
func Get() (level Level, known bool, err error) {
	out, err := control(ctrlData{tid: int32(unix.Gettid()), op: opGet})
	if err != nil {
		return 0, false, err
	}
	if out.qos == noQoS || !Level(out.qos).Valid() {
		return 0, false, nil
	}
	return Level(out.qos), true, nil
}

// Set gives the calling thread a QoS level.
func Set(l Level) error {
	if !l.Valid() {
		return fmt.Errorf("setting QoS: invalid level %d", l)
	}
	_, err := control(ctrlData{tid: int32(unix.Gettid()), op: opApply, level: uint32(l)})
	return err
}

// Leave removes the calling thread's QoS level (OH_QoS_ResetThreadQoS).
func Leave() error {
	_, err := control(ctrlData{tid: int32(unix.Gettid()), op: opLeave})
	return err
}
