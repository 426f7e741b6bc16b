package evidence

import (
	"strings"
	"testing"
)

// A long list in a warning is cut after its last whole item; a value
// that is no list is cut on a character.
func TestClipList(t *testing.T) {
	irqs := "7: 25 ACPI:Ged (3), 26 ttyS0 (10), 31 virtio0-stats (1387), 32 virtio0-input.0 (99), 40 eth0 (5)"
	for _, c := range []struct{ in, want string }{
		{"3: 26 ttyS0 (10)", "3: 26 ttyS0 (10)"},
		{irqs, "7: 25 ACPI:Ged (3), 26 ttyS0 (10), …"},
		{strings.Repeat("é", 40), strings.Repeat("é", 30) + "…"},
	} {
		got := clipList(c.in, 60)
		if got != c.want || len(got) > 60+len("…") {
			t.Errorf("clipList(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
