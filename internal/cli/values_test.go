package cli

import "testing"

// TestOptionalValues: nil until given, no default in help, an empty
// string given is given, and a word that is no number is named.
func TestOptionalValues(t *testing.T) {
	n := OptionalInt{What: "CPU number"}
	if n.Value != nil || n.String() != "" {
		t.Errorf("unset int: %v %q", n.Value, n.String())
	}
	if err := n.Set("x"); err == nil || err.Error() != `"x" is not a CPU number` || n.Value != nil {
		t.Errorf("Set(x): %v, value %v", err, n.Value)
	}
	if err := n.Set("-1"); err != nil || n.Value == nil || *n.Value != -1 || n.String() != "-1" {
		t.Errorf("Set(-1): %v, %q", err, n.String())
	}
	var s OptionalString
	if s.Value != nil || s.String() != "" {
		t.Errorf("unset string: %v", s.Value)
	}
	if err := s.Set(""); err != nil || s.Value == nil || *s.Value != "" {
		t.Errorf("Set(\"\"): %v, %v", err, s.Value)
	}
}
