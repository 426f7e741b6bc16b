package session

import "testing"

// A rule that parses prints as text that parses to the same rule.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"exact", "soft+step<=2+nice<=-10", "any+uclamp-min>=1024", "exact+qos=user-interactive", "any+policy=normal", "exact+qos<=x", "+", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := ParseRule(text)
		if err != nil {
			return
		}
		again, err := ParseRule(r.String())
		if err != nil || again.String() != r.String() {
			t.Errorf("%q parsed as %q, which reads back as %q, %v", text, r, again, err)
		}
	})
}

// A clamp that parses is within the kernel's range.
func FuzzParseClamp(f *testing.F) {
	for _, s := range []string{"0:1024", "512:512", "1024:0", "a:b", ":", "4294967296:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseClamp(text)
		if err == nil && (c.Min > c.Max || c.Max > 1024) {
			t.Errorf("%q parsed as %+v", text, c)
		}
	})
}
