package cgroupfs

import "testing"

func TestWeightV2(t *testing.T) {
	// cpu.weight 100 is the kernel's 1024; nice -20 (88761) is 8668, which
	// the kernel keeps as 88760; the bounds clamp.
	for shares, want := range map[int]int{1024: 100, 88761: 8668, 15: 1, 2: 1, 262144: 10000, 1 << 30: 10000} {
		if got := weightV2(shares); got != want {
			t.Errorf("weightV2(%d) = %d, want %d", shares, got, want)
		}
	}
	if got := sharesOfV2(8668); got != 88760 {
		t.Errorf("sharesOfV2(8668) = %d, want 88760", got)
	}
	// One cpu.weight is 10.24 of the kernel's weight: the round trip is off
	// by at most half of that, and rounding the way back adds one. (The
	// kernel's weights of nice -20 to 19.)
	for _, w := range []int{88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904, 3906,
		3121, 2501, 1991, 1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15} {
		if back := sharesOfV2(weightV2(w)); w > 10 && (back < w-6 || back > w+6) {
			t.Errorf("weight %d comes back from cpu.weight as %d", w, back)
		}
	}
}
