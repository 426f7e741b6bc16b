package termsafe

import (
	"testing"
	"unicode"
)

func TestText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"fib", "fib"},
		{"Grüße 東京", "Grüße 東京"},
		{"\x1b[2J\x1b]0;owned\x07", `\e[2J\e]0;owned\x07`},
		{"a\rb\x00c\x7f", `a\x0db\x00c\x7f`},
		{"\u009b31m", `\x9b31m`},
		{"x\u202ey", `x\u{202e}y`},
		{"bad\xff", `bad\xff`},
		{`a\e`, `a\\e`},
		{"one\ttwo\nthree", `one\ttwo\nthree`},
	} {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Lines("ok\n\x1b[1mbold"); got != "ok\n\\e[1mbold" {
		t.Errorf("Lines: %q", got)
	}
}

// FuzzText: whatever goes in, nothing a terminal obeys comes out.
func FuzzText(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, r := range Text(s) {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("Text(%q) holds %U", s, r)
			}
		}
	})
}
