package adi

import (
	"fmt"
	"strconv"
	"strings"
)

// CondAt says when a breakpoint's condition is evaluated.
type CondAt string

// The moments a condition can be evaluated at; the values are the probe's "at" values.
const (
	AtEntry CondAt = "entry" // with the arguments, when the invocation starts
	AtExit  CondAt = "exit"  // when it ends, with _return and _exception bound
	AtLine  CondAt = "line"  // when a given line of it starts, with the locals of that moment
)

// Breakpoint is one element of B: a function (its full "module:qualname" name) and a condition,
// a Python expression; an empty Cond means True, so the breakpoint matches every invocation.
type Breakpoint struct {
	Func string `json:"func"`
	Cond string `json:"cond,omitempty"`
	// When forces the moment Cond is checked, AtEntry or AtExit (the peer's --on-entry and
	// --on-return); "" derives it from Cond (see At).
	When CondAt `json:"when,omitempty"`
	// Line, when above 0, checks Cond each time the statement at that line of an invocation
	// starts, before it runs, with the invocation's locals then (the peer's --if-eval-lineno): the
	// invocation matches when Cond held at one of those moments.
	Line int `json:"line,omitempty"`
}

// At says when Cond is evaluated: at Line when one is given, else at When when it is given, else
// at exit when Cond mentions the names _return or _exception (they are bound only there), otherwise
// at entry. Mentions are found by identifier boundaries; a mention inside a string literal also
// counts.
func (b Breakpoint) At() CondAt {
	switch {
	case b.Line > 0:
		return AtLine
	case b.When != "":
		return b.When
	case b.mentionsExit():
		return AtExit
	}
	return AtEntry
}

// mentionsExit reports whether Cond uses a name bound only at exit.
func (b Breakpoint) mentionsExit() bool {
	return mentionsName(b.Cond, "_return") || mentionsName(b.Cond, "_exception")
}

// Check refuses a breakpoint whose parts do not go together; the errors wrap ErrBadInput and say
// what to change, in the CLI's flag names.
func (b Breakpoint) Check() error {
	switch {
	case b.When != "" && b.When != AtEntry && b.When != AtExit:
		return BadInputf("a condition is checked at entry or at exit, not %q", b.When)
	case b.Line < 0:
		return BadInputf("--if-eval-lineno takes a line number from 1 (got %d)", b.Line)
	case b.Cond == "" && b.Line > 0:
		return BadInputf("--if-eval-lineno says where the condition is checked; give the condition too (--cond EXPR)")
	case b.Cond == "" && b.When != "":
		return BadInputf("--on-%s says when the condition is checked; give the condition too (--cond EXPR)", map[CondAt]string{AtEntry: "entry", AtExit: "return"}[b.When])
	case b.Line > 0 && b.When != "":
		return BadInputf("give --if-eval-lineno or --on-entry/--on-return, not both: a condition is checked at one moment")
	case b.Line > 0 && b.mentionsExit():
		return BadInputf("_return and _exception are bound only at exit, and --if-eval-lineno checks the condition at line %d; use --on-return instead", b.Line)
	case b.When == AtEntry && b.mentionsExit():
		return BadInputf("_return and _exception are bound only at exit; use --on-return, not --on-entry")
	}
	return nil
}

// String writes the breakpoint the way agents type it: "func" or "func if cond", with " on
// return" when the condition is checked at exit though it does not say so, and " at line L".
func (b Breakpoint) String() string {
	if b.Cond == "" {
		return b.Func
	}
	s := b.Func + " if " + b.Cond
	switch {
	case b.Line > 0:
		s += " at line " + strconv.Itoa(b.Line)
	case b.When == AtExit && !b.mentionsExit():
		s += " on return"
	}
	return s
}

// BreakpointView is a breakpoint as reported to agents and programs, with when its condition is
// evaluated and, in state and list answers, what evaluating it on T found when it raised.
type BreakpointView struct {
	Breakpoint
	At CondAt `json:"at"`
	// ConditionError is the first error the condition raised on T (State.Conditions), and
	// Matches the calls where it held all the same (0: none, the breakpoint never stops).
	ConditionError string `json:"condition_error,omitempty"`
	Matches        int    `json:"matches,omitempty"`
}

// ConditionStatus is what evaluating a breakpoint's condition on T found when it raised: the
// first error and the number of calls where it held.
type ConditionStatus struct {
	Error   string
	Matches int
}

// conditionViews returns B as state and list report it: each breakpoint whose condition raised
// with its error (State.Conditions).
func (s *State) conditionViews() []BreakpointView {
	out := viewBreakpoints(s.Breakpoints)
	for i := range out {
		if c, ok := s.Conditions[out[i].Breakpoint]; ok && c.Error != "" {
			out[i].ConditionError, out[i].Matches = c.Error, c.Matches
		}
	}
	return out
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
	switch {
	case v.Cond == "":
		return v.Func + "  (every call)"
	case v.At == AtLine:
		return v.Func + " if " + v.Cond + fmt.Sprintf("  (checked when line %d starts, with the locals then)", v.Line)
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
