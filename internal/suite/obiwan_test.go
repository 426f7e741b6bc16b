package suite

import (
	"strings"
	"testing"
)

// obiwan passes a number one off in its last digit, as specdiff's
// --obiwan does, whatever the places and exponents, and nothing more.
func TestObiwan(t *testing.T) {
	c := Check{Obiwan: true}
	for _, tt := range []struct {
		want, got string
		pass      bool
	}{
		{"1.2345", "1.2346", true},
		{"1.2345", "1.2347", false},
		{"100", "99", true},
		{"100", "98", false},
		{"1.5e-3", "1.6e-3", true},
		{"1.5e-3", "15e-4", true}, // the same number
		{"1.50", "1.5", true},     // 150 against 150
		{"1.5", "1.51", true},     // 150 against 151
		{"2.0", "2.2", false},
	} {
		if got := c.Compare(tt.want+"\n", tt.got+"\n") == ""; got != tt.pass {
			t.Errorf("%s for %s: passed %v, want %v", tt.got, tt.want, got, tt.pass)
		}
	}
}

// A number beyond its tolerances is said with how far off it is and
// which tolerances it is beyond, as specdiff's --showerr says it.
func TestCompareNamesTheTolerance(t *testing.T) {
	c := Check{RelTol: 1e-6, AbsTol: 1e-9, SkipTol: 1}
	msg := c.Compare("x 1.0 2.0 3.0\n", "x 1.5 2.0 3.5\n")
	for _, want := range []string{`line 1: "3.5", reference "3.0"`, "off by 0.5 (16.7%)", "beyond reltol 1e-06, abstol 1e-09, skiptol 1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	if msg := c.Compare("word\n", "other\n"); strings.Contains(msg, "beyond") {
		t.Errorf("a word that differs is said with a tolerance: %q", msg)
	}
}
