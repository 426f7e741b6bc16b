package termsafe

import (
	"encoding/json"
	"strings"
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

func TestMessage(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain\nlines\tand a\\backslash", "plain\nlines\tand a\\backslash"},
		{`already \e[31m safe`, `already \e[31m safe`},
		{"raw \x1b[31m here\nand \\e", "raw \\e[31m here\nand \\\\e"},
		{"bad\xff", `bad\xff`},
		{"x\u202ey", `x\u{202e}y`},
	} {
		if got := Message(tt.in); got != tt.want {
			t.Errorf("Message(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestJSON(t *testing.T) {
	in := map[string]any{"name": "\x1b[31m,\"\n\r\x07\x7f\u009b\u202e\U000E0001 Grüße", "n": 1}
	data, err := json.MarshalIndent(in, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got := JSON(data)
	want := strings.NewReplacer("\x7f", `\u007f`, "\u009b", `\u009b`, "\u202e", `\u202e`, "\U000E0001", `\udb40\udc01`).Replace(string(data))
	if string(got) != want {
		t.Errorf("JSON:\n%s\nwant\n%s", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil || back["name"] != in["name"] {
		t.Errorf("decodes to %q (%v), want %q", back["name"], err, in["name"])
	}
	if plain := []byte(`{"a": "b"}`); &JSON(plain)[0] != &plain[0] {
		t.Error("JSON copied a file with nothing to escape")
	}
}

// FuzzJSON: whatever string is encoded, the file holds no byte a terminal
// obeys outside JSON's own whitespace, and decodes to what encoding/json
// wrote.
func FuzzJSON(f *testing.F) {
	f.Add("\x1b[31m,\"\n\r\x07\x7f\u009b\u202e")
	f.Fuzz(func(t *testing.T, s string) {
		data, err := json.MarshalIndent([]string{s}, "", "\t")
		if err != nil {
			t.Skip()
		}
		got := JSON(data)
		for _, r := range string(got) {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("JSON of %q holds %U", s, r)
			}
		}
		var want, back []string
		json.Unmarshal(data, &want)
		if err := json.Unmarshal(got, &back); err != nil || back[0] != want[0] {
			t.Fatalf("JSON of %q decodes to %q (%v), want %q", s, back, err, want[0])
		}
	})
}

// FuzzMessage: nothing a terminal obeys but newlines and tabs comes out,
// and a message that was safe comes out as it went in.
func FuzzMessage(f *testing.F) {
	f.Add("corepin: \x1b]0;title\x07\nnext")
	f.Fuzz(func(t *testing.T, s string) {
		got := Message(s)
		for _, r := range got {
			if r != '\n' && r != '\t' && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)) {
				t.Fatalf("Message(%q) holds %U", s, r)
			}
		}
		if again := Message(got); again != got {
			t.Fatalf("Message(%q) = %q, then %q", s, got, again)
		}
	})
}

// TestWriteJSON: indented, ended by a newline, and a control character
// in a string is an escape, not the character.
func TestWriteJSON(t *testing.T) {
	var b strings.Builder
	if err := WriteJSON(&b, map[string]string{"name": "a\u009bb"}); err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"name\": \"a\\u009bb\"\n}\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
