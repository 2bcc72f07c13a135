package adi

import (
	"fmt"
	"strings"
)

// words reads the words of a command line: white space separates words; 'single quotes' keep
// text as is, "double quotes" too except that \" and \\ stand for " and \; outside quotes a
// backslash keeps the next character. Conditions and statements are not split: rest returns the
// line's remaining text as typed.
type words struct {
	s   string
	pos int
}

func (w *words) skip() {
	for w.pos < len(w.s) && isSpace(w.s[w.pos]) {
		w.pos++
	}
}

// more reports whether any word is left.
func (w *words) more() bool {
	w.skip()
	return w.pos < len(w.s)
}

// rest returns the remaining text, trimmed, and consumes it.
func (w *words) rest() string {
	w.skip()
	r := trimSpace(w.s[w.pos:])
	w.pos = len(w.s)
	return r
}

// next reads one word ("" at the end of the line). Its errors describe the problem only; callers
// wrap them with the command's usage.
func (w *words) next() (string, error) {
	w.skip()
	var b strings.Builder
	for w.pos < len(w.s) && !isSpace(w.s[w.pos]) {
		c := w.s[w.pos]
		switch c {
		case '\'':
			end := strings.IndexByte(w.s[w.pos+1:], '\'')
			if end < 0 {
				return "", fmt.Errorf("unterminated ' quote in %q", w.s[w.pos:])
			}
			b.WriteString(w.s[w.pos+1 : w.pos+1+end])
			w.pos += end + 2
		case '"':
			w.pos++
			for {
				if w.pos >= len(w.s) {
					return "", fmt.Errorf("unterminated \" quote in %q", w.s)
				}
				c := w.s[w.pos]
				if c == '"' {
					w.pos++
					break
				}
				if c == '\\' && w.pos+1 < len(w.s) && (w.s[w.pos+1] == '"' || w.s[w.pos+1] == '\\') {
					c = w.s[w.pos+1]
					w.pos++
				}
				b.WriteByte(c)
				w.pos++
			}
		case '\\':
			if w.pos+1 < len(w.s) {
				w.pos++
			}
			b.WriteByte(w.s[w.pos])
			w.pos++
		default:
			b.WriteByte(c)
			w.pos++
		}
	}
	return b.String(), nil
}
