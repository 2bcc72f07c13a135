package target

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/adi"
)

// token is a word or an operator of a command line.
type token struct {
	op   string // the operator ("|", "&&", "2>", "<", …), or "" for a word
	word string
	// quotedFrom is the offset in word of the first quoted or escaped character, or -1.
	quotedFrom int
}

// operators lists the shell's control and redirection operators, longest first.
var operators = []string{"&>>", "<<<", "<<-", "&&", "||", "|&", ";;", "&>", ">>", ">&", ">|", "<<", "<&", "<>", "<(", ">(",
	"|", "&", ";", "<", ">", "(", ")", "\n"}

// lex splits a command line into words and operators the way a POSIX shell does, without
// expanding anything; expansions it cannot honour ($VAR, $(…), `…`) are errors.
func lex(s string) ([]token, error) {
	var (
		toks       []token
		cur        strings.Builder
		inWord     bool
		quotedFrom = -1
	)
	quoted := func() {
		if quotedFrom < 0 {
			quotedFrom = cur.Len()
		}
		inWord = true
	}
	flush := func() {
		if inWord {
			toks = append(toks, token{word: cur.String(), quotedFrom: quotedFrom})
		}
		cur.Reset()
		inWord, quotedFrom = false, -1
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
			i++
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, fail("the target ends with a backslash; remove it")
			}
			if s[i+1] != '\n' {
				quoted()
				cur.WriteByte(s[i+1])
			}
			i += 2
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fail("the target has an unterminated ' quote")
			}
			quoted()
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case c == '"':
			quoted()
			n, err := doubleQuoted(s[i+1:], &cur)
			if err != nil {
				return nil, err
			}
			i += n + 1
		case c == '`':
			return nil, substitution("`")
		case c == '$':
			if err := dollar(s[i:], false); err != nil {
				return nil, err
			}
			cur.WriteByte(c)
			inWord = true
			i++
		case strings.IndexByte("|&;<>()\n", c) >= 0:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			i += len(op)
			if (c == '<' || c == '>') && inWord && quotedFrom < 0 && allDigits(cur.String()) {
				op = cur.String() + op // a file descriptor: 2>
				cur.Reset()
				inWord = false
			}
			flush()
			toks = append(toks, token{op: op})
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	flush()
	return toks, nil
}

// doubleQuoted reads the inside of a "…" string from s into cur and returns how many bytes it
// used, the closing quote included. A backslash escapes only $ ` " \ and newline there.
func doubleQuoted(s string, cur *strings.Builder) (int, error) {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			if s[i+1] != '\n' {
				cur.WriteByte(s[i+1])
			}
			i += 2
		case c == '`':
			return 0, substitution("`")
		case c == '$':
			if err := dollar(s[i:], true); err != nil {
				return 0, err
			}
			cur.WriteByte(c)
			i++
		default:
			cur.WriteByte(c)
			i++
		}
	}
	return 0, fail("the target has an unterminated \" quote")
}

// dollar refuses the expansions a '$' at the start of s would make; a '$' that expands nothing
// (before a space, at the end) is kept as a character.
func dollar(s string, inDouble bool) error {
	if len(s) < 2 {
		return nil
	}
	switch c := s[1]; {
	case c == '(':
		return substitution("$(")
	case (c == '\'' || c == '"') && !inDouble:
		return fail(fmt.Sprintf("the target uses $%c…%c quoting; use plain quotes", c, c))
	case c == '{' || c == '_' || strings.IndexByte("@*#?$!-", c) >= 0 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9'):
		end := 2
		for end < len(s) && end < 24 && (isNameByte(s[end]) || s[end] == '}') {
			end++
		}
		return fail(fmt.Sprintf("the target uses shell variable expansion (%q); write the value itself", s[:end]))
	}
	return nil
}

func substitution(found string) error {
	return fail(fmt.Sprintf("target must be a plain python command (found command substitution '%s'); write the value itself", found))
}

// fail makes the one-line error of a refused or malformed target.
func fail(msg string) error { return adi.BadInputf("%s", msg) }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isNameByte(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
