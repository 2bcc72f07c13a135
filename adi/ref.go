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
// and each of them without "#N" for a function. A pytest node id names a test function the way
// pytest writes it, relative to the project root or absolute (Node is set; "::" separates the
// classes and the function, so Name is "TestC.test_m"):
//
//	tests/test_x.py::TestC::test_m  test_x.py::test_f  test_x.py::test_f#2  test_x.py::test_f[2-3]
//
// Without "#N" it names the function where a function is wanted and its first invocation where
// a frame is; "[ID]" (Param) picks the invocation of a parametrized test whose arguments spell ID.
type Ref struct {
	Path   string `json:"path,omitempty"`   // "/abs/t.py", or "rel/t.py" relative to the project root
	Module string `json:"module,omitempty"` // "pkg.mod" of "pkg.mod:qualname"
	Name   string `json:"name,omitempty"`   // qualname, or a bare function name
	Line   int    `json:"line,omitempty"`   // line target
	Index  int    `json:"index,omitempty"`  // invocation index N of "#N"; 0 when absent
	Node   bool   `json:"node,omitempty"`   // written as a pytest node id (FILE.py::TEST)
	Param  string `json:"param,omitempty"`  // pytest's parametrize id of "TEST[ID]"
}

// maxCount bounds line numbers and invocation indexes typed by agents.
const maxCount = 999_999_999

// ParseRef parses a reference. Errors wrap ErrBadInput and say which form to use.
func ParseRef(s string) (Ref, error) {
	s = trimSpace(s)
	if s == "" {
		return Ref{}, BadInputf("empty reference; write FUNC, module:FUNC or FILE.py:FUNC, and add #N for a frame")
	}
	if strings.Contains(s, "::") {
		return parseNodeID(s)
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

// parseNodeID parses a pytest node id, FILE.py::[CLASS::]…TEST[[ID]][#N].
func parseNodeID(s string) (Ref, error) {
	r := Ref{Node: true}
	body := s
	if k := strings.LastIndexByte(s, '#'); k > strings.LastIndexByte(s, ']') {
		n, ok := parseCount(s[k+1:])
		if !ok {
			return Ref{}, BadInputf("%q: after '#' comes the invocation index, a whole number from 1 (e.g. %s#1)", s, s[:k])
		}
		r.Index, body = n, s[:k]
	}
	file, test, _ := strings.Cut(body, "::")
	if k := strings.IndexByte(test, '['); k >= 0 {
		if !strings.HasSuffix(test, "]") || k == len(test)-2 {
			return Ref{}, BadInputf("%q: a parametrized test is written TEST[ID], with the id pytest shows between the brackets", s)
		}
		test, r.Param = test[:k], test[k+1:len(test)-1]
	}
	if r.Param != "" && r.Index > 0 {
		return Ref{}, BadInputf("%q: give either pytest's [ID] or the invocation index #N, not both", s)
	}
	switch {
	case !strings.HasSuffix(file, ".py"):
		return Ref{}, BadInputf("%q: a pytest node id starts with the test's .py file, e.g. tests/test_x.py::test_f", s)
	case strings.ContainsAny(file, "\t\n\r\v\f"):
		return Ref{}, BadInputf("%q: the file path has a tab or line break", s)
	}
	parts := strings.Split(test, "::")
	for _, p := range parts {
		if p == "" || hasSpace(p) || strings.ContainsAny(p, ":#[].") || strings.HasPrefix(p, "-") {
			return Ref{}, BadInputf("%q: write a pytest node id as FILE.py::TEST or FILE.py::CLASS::TEST", s)
		}
	}
	r.Path, r.Name = file, strings.Join(parts, ".")
	return r, nil
}

// String writes the reference in the form ParseRef reads.
func (r Ref) String() string {
	if r.Node {
		s := r.Path + "::" + strings.ReplaceAll(r.Name, ".", "::")
		if r.Param != "" {
			s += "[" + r.Param + "]"
		}
		if r.Index > 0 {
			s += "#" + strconv.Itoa(r.Index)
		}
		return s
	}
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

// Func returns the reference without its invocation index or parametrize id.
func (r Ref) Func() Ref {
	r.Index, r.Param = 0, ""
	return r
}

// Pinned reports whether the reference picks one invocation itself: it has "#N" or, for a pytest
// node id, "[ID]".
func (r Ref) Pinned() bool { return r.Index > 0 || r.Param != "" }

// NamesFrame reports whether the reference can name a frame: it is pinned, or it is a pytest node
// id (which then names the test's first invocation).
func (r Ref) NamesFrame() bool { return r.Pinned() || r.Node }

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
