package bandwidth

import (
	"testing"
	"time"
)

func TestParseThrottled(t *testing.T) {
	v1 := []byte("nr_periods 120\nnr_throttled 80\nthrottled_time 240000000\n")
	if d, ok := ParseThrottled(v1, "throttled_time"); !ok || d != 240*time.Millisecond {
		t.Errorf("v1: %v %v, want 240ms", d, ok)
	}
	v2 := []byte("usage_usec 9000\nnr_periods 3\nnr_throttled 2\nthrottled_usec 1500\nnr_bursts 0\n")
	if d, ok := ParseThrottled(v2, "throttled_usec"); !ok || d != 1500*time.Microsecond {
		t.Errorf("v2: %v %v, want 1.5ms", d, ok)
	}
	if _, ok := ParseThrottled([]byte("usage_usec 1\n"), "throttled_usec"); ok {
		t.Error("a cpu.stat without the key read as a figure")
	}
	if _, ok := ParseThrottled([]byte("throttled_time -1\n"), "throttled_time"); ok {
		t.Error("a negative figure read")
	}
}

// The most any one level was held back is what held the task back; a
// cgroup only one reading has (the task moved) says nothing.
func TestThrottlingSince(t *testing.T) {
	before := Throttling{"/a": 10 * time.Millisecond, "/a/b": 0}
	after := Throttling{"/a": 30 * time.Millisecond, "/a/b": 5 * time.Millisecond, "/c": time.Second}
	if d, dir := after.Since(before); d != 20*time.Millisecond || dir != "/a" {
		t.Errorf("since: %v in %q, want 20ms in /a", d, dir)
	}
	if d, dir := before.Since(before); d != 0 || dir != "" {
		t.Errorf("unchanged: %v in %q, want nothing", d, dir)
	}
}
