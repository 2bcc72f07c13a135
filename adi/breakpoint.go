package adi

import "strings"

// CondAt says when a breakpoint's condition is evaluated.
type CondAt string

// The moments a condition can be evaluated at; the values are the probe's "at" values.
const (
	AtEntry CondAt = "entry" // with the arguments, when the invocation starts
	AtExit  CondAt = "exit"  // when it ends, with _return and _exception bound
)

// Breakpoint is one element of B: a function (its full "module:qualname" name) and a condition,
// a Python expression; an empty Cond means True, so the breakpoint matches every invocation.
type Breakpoint struct {
	Func string `json:"func"`
	Cond string `json:"cond,omitempty"`
}

// At says when Cond is evaluated: at exit when it mentions the names _return or _exception (they
// are bound only there), otherwise at entry. Mentions are found by identifier boundaries; a
// mention inside a string literal also counts.
func (b Breakpoint) At() CondAt {
	if mentionsName(b.Cond, "_return") || mentionsName(b.Cond, "_exception") {
		return AtExit
	}
	return AtEntry
}

// String writes the breakpoint the way agents type it: "func" or "func if cond".
func (b Breakpoint) String() string {
	if b.Cond == "" {
		return b.Func
	}
	return b.Func + " if " + b.Cond
}

// BreakpointView is a breakpoint as reported to agents and programs, with when its condition is
// evaluated.
type BreakpointView struct {
	Breakpoint
	At CondAt `json:"at"`
}

func viewBreakpoint(b Breakpoint) BreakpointView { return BreakpointView{Breakpoint: b, At: b.At()} }

func viewBreakpoints(bs []Breakpoint) []BreakpointView {
	out := make([]BreakpointView, len(bs))
	for i, b := range bs {
		out[i] = viewBreakpoint(b)
	}
	return out
}

// describe renders the breakpoint with when it is checked, as in listings.
func (v BreakpointView) describe() string {
	if v.Cond == "" {
		return v.Func + "  (every call)"
	}
	return v.String() + "  (checked at " + string(v.At) + ")"
}

// mentionsName reports whether expr uses name as a whole identifier (not as part of a longer
// identifier, nor as an attribute after a dot).
func mentionsName(expr, name string) bool {
	for from := 0; ; {
		k := strings.Index(expr[from:], name)
		if k < 0 {
			return false
		}
		k += from
		end := k + len(name)
		before := k == 0 || (!isIdentByte(expr[k-1]) && expr[k-1] != '.')
		after := end == len(expr) || !isIdentByte(expr[end])
		if before && after {
			return true
		}
		from = k + 1
	}
}

// isIdentByte reports whether c can be part of a Python identifier (non-ASCII bytes are taken to
// be parts of Unicode identifiers).
func isIdentByte(c byte) bool {
	return c == '_' || c >= 0x80 || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
