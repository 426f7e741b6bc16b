// Package termsafe makes text from outside corepin safe to print on a
// terminal. Any process can name its threads, a benchmark writes what it
// likes to its standard error, and a results folder may come from anyone:
// printed raw, an escape sequence in such text could move the cursor,
// rewrite what corepin printed, retitle the window or worse. Text shows
// such bytes visibly instead, so that what is there is seen, not obeyed.
//
// Text is the one function that makes outside text safe, for every output:
// the terminal, CSV cells, bench.txt and the HTML page (which escapes HTML
// but would carry an ESC through). Message guards text that corepin put
// together from parts already made safe, and JSON keeps the exact bytes
// of a JSON file while escaping what encoding/json leaves raw.
package termsafe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Text returns s with every control character, escape sequence, invalid
// byte and invisible format character shown visibly: ESC as \e, other C0
// and C1 controls and DEL as \xNN (tab and newline as \t and \n), bidi
// and other format runes as \u{NNNN}, invalid UTF-8 bytes as \xNN. A
// backslash is doubled, so that the result reads back unambiguously.
// Printable text, in any script, is left as it is.
func Text(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// Lines is Text for multi-line text, such as a command's standard error:
// newlines are kept, everything else is made safe line by line.
func Lines(s string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = Text(p)
	}
	return strings.Join(parts, "\n")
}

// Message is text corepin composed, such as an error, whose outside
// parts Text has already made safe: it is returned as it is when nothing
// in it but newlines and tabs would act on a terminal, and otherwise made safe
// line by line (Lines). It is the last guard where a message is printed,
// for a part that came from outside unescaped (a parser's error quoting
// the file it read); safe text is never escaped twice.
func Message(s string) string {
	if !utf8.ValidString(s) {
		return Lines(s)
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && unsafeRune(r) {
			return Lines(s)
		}
	}
	return s
}

// JSON returns encoded JSON with the characters that encoding/json writes
// raw — DEL, the C1 controls, bidi and other format runes — written as
// \u escapes instead, so that a JSON file shown on a terminal obeys
// nothing while it decodes to exactly the same strings. Outside strings
// JSON holds only ASCII, so such a character is always inside a string,
// where an escape means the same character. (The C0 controls it escapes
// itself; outside strings they are its newlines and indentation.)
func JSON(data []byte) []byte {
	i := bytes.IndexFunc(data, rawInJSON)
	if i < 0 {
		return data
	}
	out := bytes.NewBuffer(make([]byte, 0, len(data)+16))
	for i >= 0 {
		out.Write(data[:i])
		r, size := utf8.DecodeRune(data[i:])
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			fmt.Fprintf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			fmt.Fprintf(out, `\u%04x`, r)
		}
		data = data[i+size:]
		i = bytes.IndexFunc(data, rawInJSON)
	}
	out.Write(data)
	return out.Bytes()
}

// unsafeRune says whether a terminal could act on r, or hide text with it:
// the C0 and C1 controls (tab and newline included), DEL, format runes
// (bidi overrides) and the line and paragraph separators.
func unsafeRune(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029
}

// rawInJSON is an unsafe rune that encoding/json leaves as it is.
func rawInJSON(r rune) bool { return r >= 0x7f && unsafeRune(r) }

// isPlain says whether s is printable ASCII without a backslash, the
// common case, which needs no copy.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// WriteJSON writes v as indented JSON and a newline, made safe with JSON:
// the exact strings, nothing a terminal obeys.
func WriteJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(JSON(append(data, '\n')))
	return err
}
