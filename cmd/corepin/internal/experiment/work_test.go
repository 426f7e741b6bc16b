package experiment

import (
	"strings"
	"testing"

	"corepin.dev/corepin/sched"
)

// A key thread quicker than WorkTicks ticks is said to be too short for
// the levels to act; one that lasts longer is not.
func TestTooShort(t *testing.T) {
	tick, err := sched.Tick()
	if err != nil {
		t.Skipf("no tick here: %v", err)
	}
	ms := float64(tick.Milliseconds())
	short := &QoSResult{Work: "fib(30)", Levels: []QoSLevel{{LoadedMs: []float64{40 * ms}, UnloadedMs: []float64{ms}}, {LoadedMs: []float64{2 * ms}}}}
	if note := short.tooShort(); !strings.HasPrefix(note, "fib(30) took ") || !strings.Contains(note, "--work") {
		t.Errorf("one tick's work: %q", note)
	}
	long := &QoSResult{Work: "fib(34)", Levels: []QoSLevel{{LoadedMs: []float64{40 * ms}, UnloadedMs: []float64{6 * ms}}, {LoadedApartMs: []float64{6 * ms}}}}
	if note := long.tooShort(); note != "" {
		t.Errorf("six ticks' work: %q", note)
	}
}
