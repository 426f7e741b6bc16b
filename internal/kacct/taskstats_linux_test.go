package kacct

import (
	"encoding/binary"
	"os/exec"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"corepin.dev/corepin/fsroot"
)

// On the real kernel, a child's exit record names it, has the memory it
// used and its elapsed time, at most the time corepin saw pass.
func TestExitRecordOfAChild(t *testing.T) {
	e, err := ListenExits(fsroot.Root("/"))
	if err != nil {
		t.Skipf("the kernel's taskstats (needs CAP_NET_ADMIN): %v", err)
	}
	defer e.Close()
	before := monotonic()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("needs true: %v", err)
	}
	seen := monotonic() - before
	rec, ok := e.Record(cmd.Process.Pid)
	if !ok || rec.PID != cmd.Process.Pid || rec.HiwaterKB <= 0 || rec.Elapsed <= 0 || rec.Elapsed > seen {
		t.Errorf("record of true: %+v, %v; want its PID %d, a memory figure and an elapsed time of at most %v", rec, ok, cmd.Process.Pid, seen)
	}
}

// corepin's own elapsed time by the kernel's clock grows.
func TestOwnElapsed(t *testing.T) {
	first, err := OwnElapsed()
	if err != nil {
		t.Skipf("the kernel's taskstats (needs CAP_NET_ADMIN): %v", err)
	}
	second, err := OwnElapsed()
	if err != nil || first <= 0 || second < first {
		t.Errorf("own elapsed %v then %v (%v): want positive and not going back", first, second, err)
	}
}

// taskRecordAttrs is a TASKSTATS_TYPE_AGGR_PID attribute as the kernel
// lays it out: the PID, then struct taskstats.
func taskRecordAttrs(pid uint32, hiwaterKB, etimeUS uint64) []byte {
	ne := binary.NativeEndian
	attr := func(typ uint16, data []byte) []byte {
		b := ne.AppendUint16(nil, uint16(unix.SizeofNlAttr+len(data)))
		b = ne.AppendUint16(b, typ)
		b = append(b, data...)
		for len(b)%4 != 0 {
			b = append(b, 0)
		}
		return b
	}
	stats := make([]byte, unsafe.Sizeof(unix.Taskstats{}))
	ne.PutUint64(stats[unsafe.Offsetof(unix.Taskstats{}.Hiwater_rss):], hiwaterKB)
	ne.PutUint64(stats[unsafe.Offsetof(unix.Taskstats{}.Ac_etime):], etimeUS)
	inner := append(attr(unix.TASKSTATS_TYPE_PID, ne.AppendUint32(nil, pid)), attr(unix.TASKSTATS_TYPE_STATS, stats)...)
	return attr(unix.TASKSTATS_TYPE_AGGR_PID|unix.NLA_F_NESTED, inner)
}

func TestParseTaskRecord(t *testing.T) {
	rec, ok := parseTaskRecord(taskRecordAttrs(4242, 1536, 2_500))
	if want := (Record{PID: 4242, HiwaterKB: 1536, Elapsed: 2_500_000}); !ok || rec != want {
		t.Errorf("got %+v, %v; want %+v", rec, ok, want)
	}
	// A figure past what corepin's types hold is no figure.
	for _, huge := range [][2]uint64{{1 << 63, 1}, {1, 1 << 62}} {
		if rec, ok := parseTaskRecord(taskRecordAttrs(4242, huge[0], huge[1])); ok {
			t.Errorf("memory %d KB, elapsed %d µs: read %+v", huge[0], huge[1], rec)
		}
	}
	whole := taskRecordAttrs(4242, 1536, 2_500)
	for _, cut := range []int{0, 4, 12, len(whole) - 8} {
		if rec, ok := parseTaskRecord(whole[:cut]); ok {
			t.Errorf("cut at %d of %d bytes: read %+v", cut, len(whole), rec)
		}
	}
}

// parseTaskRecord reads what a socket received: it must take any bytes,
// and a record it reads, written back, reads the same.
func FuzzParseTaskRecord(f *testing.F) {
	f.Add(taskRecordAttrs(4242, 1536, 2_500))
	f.Add(taskRecordAttrs(1, 0, 0)[:20])
	f.Fuzz(func(t *testing.T, b []byte) {
		rec, ok := parseTaskRecord(b)
		if !ok {
			return
		}
		again, ok := parseTaskRecord(taskRecordAttrs(uint32(rec.PID), uint64(rec.HiwaterKB), uint64(rec.Elapsed.Microseconds())))
		if !ok || again != rec {
			t.Errorf("%+v read back as %+v", rec, again)
		}
	})
}
