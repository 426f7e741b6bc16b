package sched

import (
	"fmt"
	"os"
	"testing"
)

// kernelVersion reads major.minor of the running kernel.
func kernelVersion(t *testing.T) (int, int) {
	t.Helper()
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		t.Skipf("cannot read the kernel's release: %v", err)
	}
	var major, minor int
	if _, err := fmt.Sscanf(string(data), "%d.%d", &major, &minor); err != nil {
		t.Skipf("kernel release %q: %v", data, err)
	}
	return major, minor
}

// A fair thread's own EEVDF slice reads back from Linux 6.12 on, and means
// nothing before (6.1's CFS reads back 0). The kernel's version is the
// witness; the request and its undoing are made for real.
func TestSliceAsTheKernelSays(t *testing.T) {
	major, minor := kernelVersion(t)
	eevdfSlice := major > 6 || major == 6 && minor >= 12
	f := Slice()
	if f.Supported != eevdfSlice {
		t.Fatalf("Linux %d.%d: slice supported %v (%s), want %v", major, minor, f.Supported, f.Evidence, eevdfSlice)
	}
	var asked, reset Attr
	var err error
	onThread(func() {
		if err = SetAttr(0, Attr{Policy: Normal, Runtime: 5_000_000}); err != nil {
			return
		}
		if asked, err = GetAttr(0); err != nil {
			return
		}
		if err = SetAttr(0, Attr{Policy: Normal}); err == nil {
			reset, err = GetAttr(0)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if eevdfSlice {
		if asked.Runtime != 5_000_000 || reset.Runtime != DefaultSlice() || DefaultSlice() == 0 {
			t.Errorf("Linux %d.%d: a 5 ms slice reads back as %d ns, reset as %d (default %d)", major, minor, asked.Runtime, reset.Runtime, DefaultSlice())
		}
	} else if asked.Runtime != 0 || DefaultSlice() != 0 {
		t.Errorf("Linux %d.%d: a slice request reads back as %d ns (default %d), want 0: the kernel has no custom slices", major, minor, asked.Runtime, DefaultSlice())
	}
}
