package importers

import "strings"

// splitCommand splits a command line as a POSIX shell splits its words
// (and as hyperfine -N does, with shell-words): white space separates,
// single quotes keep everything, double quotes keep all but a backslash
// before $, `, " or \, and a backslash outside quotes keeps the next
// character. ok is false for an unfinished quote or escape, and then
// there is no command line to compare.
func splitCommand(s string) (words []string, ok bool) {
	var w strings.Builder
	inWord := false
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case quote == '"':
			switch {
			case c == '"':
				quote = 0
			case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0:
				i++
				w.WriteByte(s[i])
			default:
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == '\\':
			if i+1 == len(s) {
				return nil, false
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, true
}
