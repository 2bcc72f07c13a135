package adi

import (
	"strconv"
	"strings"
)

// Ref is a reference as an agent types it: a function (for break, clear and list-frames) or, with
// an invocation index, a frame. At most one of Path and Module is set; a line target sets Line
// instead of Name. Accepted forms:
//
//	func#N  qualname#N  module:qualname#N  /abs/file.py:Class.method#N  rel/file.py:func#N
//	/abs/file.py:123#N  (the function whose definition contains line 123)
//
// and each of them without "#N" for a function.
type Ref struct {
	Path   string `json:"path,omitempty"`   // "/abs/t.py", or "rel/t.py" relative to the project root
	Module string `json:"module,omitempty"` // "pkg.mod" of "pkg.mod:qualname"
	Name   string `json:"name,omitempty"`   // qualname, or a bare function name
	Line   int    `json:"line,omitempty"`   // line target
	Index  int    `json:"index,omitempty"`  // invocation index N of "#N"; 0 when absent
}

// maxCount bounds line numbers and invocation indexes typed by agents.
const maxCount = 999_999_999

// ParseRef parses a reference. Errors wrap ErrBadInput and say which form to use.
func ParseRef(s string) (Ref, error) {
	s = trimSpace(s)
	if s == "" {
		return Ref{}, BadInputf("empty reference; write FUNC, module:FUNC or FILE.py:FUNC, and add #N for a frame")
	}
	var r Ref
	body := s
	if k := strings.LastIndexByte(s, '#'); k >= 0 {
		n, ok := parseCount(s[k+1:])
		if !ok {
			return Ref{}, BadInputf("%q: after '#' comes the invocation index, a whole number from 1 (e.g. %s#1)", s, s[:k])
		}
		r.Index, body = n, s[:k]
	}
	if strings.ContainsRune(body, '#') {
		return Ref{}, BadInputf("%q: '#' may appear only once, before the invocation index", s)
	}
	if strings.Contains(body, "::") {
		return Ref{}, BadInputf("%q: use one colon, FILE.py:FUNC (pytest's FILE::TEST form is not a function reference)", s)
	}
	scope, name, hasScope := cutLast(body, ':')
	switch {
	case !hasScope && looksLikePath(body):
		return Ref{}, BadInputf("%q names a file but no function; write %s:FUNC or %s:LINE", s, body, body)
	case hasScope && scope == "":
		return Ref{}, BadInputf("%q: nothing before ':'; write module:FUNC or FILE.py:FUNC", s)
	case hasScope && looksLikePath(scope) && strings.ContainsAny(scope, "\t\n\r\v\f"):
		return Ref{}, BadInputf("%q: the file path has a tab or line break", s)
	case hasScope && looksLikePath(scope):
		r.Path = scope
	case hasScope && (hasSpace(scope) || strings.ContainsRune(scope, ':')):
		return Ref{}, BadInputf("%q: %q is neither a module name nor a .py file", s, scope)
	case hasScope:
		r.Module = scope
	}
	switch {
	case name == "":
		return Ref{}, BadInputf("%q: a function name or line number must follow ':'", s)
	case allDigits(name) && !hasScope:
		return Ref{}, BadInputf("%q: a line target needs a file, e.g. FILE.py:%s", s, name)
	case allDigits(name):
		n, ok := parseCount(name)
		if !ok {
			return Ref{}, BadInputf("%q: line numbers run from 1 to %d", s, maxCount)
		}
		r.Line = n
	case hasSpace(name):
		return Ref{}, BadInputf("%q: a function name has no spaces; put a condition after the reference, not inside it", s)
	case strings.HasPrefix(name, "-"):
		return Ref{}, BadInputf("%q: a function name does not start with '-'; options go after the reference", s)
	default:
		r.Name = name
	}
	return r, nil
}

// String writes the reference in the form ParseRef reads.
func (r Ref) String() string {
	var b strings.Builder
	switch {
	case r.Path != "":
		b.WriteString(r.Path + ":")
	case r.Module != "":
		b.WriteString(r.Module + ":")
	}
	if r.Line > 0 {
		b.WriteString(strconv.Itoa(r.Line))
	} else {
		b.WriteString(r.Name)
	}
	if r.Index > 0 {
		b.WriteString("#" + strconv.Itoa(r.Index))
	}
	return b.String()
}

// Func returns the reference without its invocation index.
func (r Ref) Func() Ref {
	r.Index = 0
	return r
}

// looksLikePath reports whether a scope names a file rather than a module.
func looksLikePath(s string) bool {
	return strings.ContainsRune(s, '/') || strings.HasSuffix(s, ".py")
}

// parseCount parses a positive whole number of at most maxCount.
func parseCount(s string) (int, bool) {
	if s == "" || len(s) > 9 || !allDigits(s) {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && n <= maxCount
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// cutLast splits s around the last sep.
func cutLast(s string, sep byte) (before, after string, found bool) {
	if k := strings.LastIndexByte(s, sep); k >= 0 {
		return s[:k], s[k+1:], true
	}
	return "", s, false
}

// isSpace is the one definition of white space for everything agents type.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func hasSpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if isSpace(s[i]) {
			return true
		}
	}
	return false
}

func trimSpace(s string) string {
	i, j := 0, len(s)
	for i < j && isSpace(s[i]) {
		i++
	}
	for j > i && isSpace(s[j-1]) {
		j--
	}
	return s[i:j]
}
