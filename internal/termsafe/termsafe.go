// Package termsafe makes text from outside corepin safe to print on a
// terminal. Any process can name its threads, a benchmark writes what it
// likes to its standard error, and a results folder may come from anyone:
// printed raw, an escape sequence in such text could move the cursor,
// rewrite what corepin printed, retitle the window or worse. Text shows
// such bytes visibly instead, so that what is there is seen, not obeyed.
package termsafe

import (
	"fmt"
	"strings"
	"unicode"
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
