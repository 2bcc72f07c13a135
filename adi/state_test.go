package adi

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bps(specs ...string) []Breakpoint {
	var out []Breakpoint
	for i := 0; i < len(specs); i += 2 {
		out = append(out, Breakpoint{Func: specs[i], Cond: specs[i+1]})
	}
	return out
}

func TestBreak(t *testing.T) {
	tests := []struct {
		name      string
		before    []Breakpoint
		fn, cond  string
		after     []Breakpoint
		added     bool
		callCount int
	}{
		{"into empty B", nil, "t:fib", "", bps("t:fib", ""), true, 5},
		{"with condition", bps("t:fib", ""), "t:fib", "n == 1", bps("t:fib", "", "t:fib", "n == 1"), true, 5},
		{"already set", bps("t:fib", "n == 1"), "t:fib", "n == 1", bps("t:fib", "n == 1"), false, 5},
		{"condition trimmed", bps("t:fib", "n == 1"), "t:fib", "  n == 1 ", bps("t:fib", "n == 1"), false, 5},
		{"order kept", bps("t:main", ""), "t:fib", "", bps("t:main", "", "t:fib", ""), true, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewState(fixture())
			s.Breakpoints = tt.before
			r := s.Break(tt.fn, tt.cond)
			assert.Equal(t, tt.after, s.Breakpoints)
			assert.Equal(t, tt.added, r.Added)
			assert.Equal(t, tt.callCount, r.Invocations)
			assert.Equal(t, viewBreakpoints(tt.after), r.Breakpoints)
			assert.Equal(t, 0, s.Cur)
		})
	}
}

func TestClear(t *testing.T) {
	all := bps("t:fib", "", "t:fib", "n == 1", "t:main", "")
	tests := []struct {
		name     string
		fn, cond string
		scope    ClearScope
		removed  []Breakpoint
		after    []Breakpoint
	}{
		{"all", "", "", ClearAll, all, nil},
		{"every bp of a function", "t:fib", "", ClearFunc, bps("t:fib", "", "t:fib", "n == 1"), bps("t:main", "")},
		{"one", "t:fib", "n == 1", ClearOne, bps("t:fib", "n == 1"), bps("t:fib", "", "t:main", "")},
		{"one, condition trimmed", "t:fib", " n == 1 ", ClearOne, bps("t:fib", "n == 1"), bps("t:fib", "", "t:main", "")},
		{"absent condition", "t:fib", "n == 2", ClearOne, nil, all},
		{"absent function", "t:normalize", "", ClearFunc, nil, all},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewState(fixture())
			s.Breakpoints = append([]Breakpoint{}, all...)
			r := s.Clear(tt.fn, tt.cond)
			assert.Equal(t, tt.after, s.Breakpoints)
			assert.Equal(t, tt.scope, r.Scope)
			assert.Equal(t, append([]BreakpointView{}, viewBreakpoints(tt.removed)...), r.Removed)
			assert.Equal(t, viewBreakpoints(tt.after), r.Breakpoints)
		})
	}
}

// TestStateKeepsConditionErrors: state and list report, with each breakpoint whose condition
// raised on T, its first error and the calls where it held (none: it never stops), in JSON and
// text, so that a program that shows them again (the viewer, reloaded) still sees them.
func TestStateKeepsConditionErrors(t *testing.T) {
	tr := &Trace{Frames: []Frame{{N: 1, Arguments: &Arguments{Code: &Code{Func: "t:<module>"}}, Caller: -1}}}
	tr.Index()
	s := NewState(tr)
	s.Break("t:check", "missing > 0")
	s.Break("t:check", "n > 3")
	s.Break("t:check", "")
	s.Conditions = map[Breakpoint]ConditionStatus{
		{Func: "t:check", Cond: "missing > 0"}: {Error: "NameError: name 'missing' is not defined (at t:check#1, counted as false; 30 evaluation(s) failed)"},
		{Func: "t:check", Cond: "n > 3"}:       {Error: "TypeError: bad (at t:check#2, counted as false; 1 evaluation(s) failed)", Matches: 26},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(s.Summary().Breakpoints))
	assert.Equal(t, `[{"func":"t:check","cond":"missing > 0","at":"entry","condition_error":"NameError: name 'missing' is not defined (at t:check#1, counted as false; 30 evaluation(s) failed)"},`+
		`{"func":"t:check","cond":"n > 3","at":"entry","condition_error":"TypeError: bad (at t:check#2, counted as false; 1 evaluation(s) failed)","matches":26},`+
		`{"func":"t:check","at":"entry"}]`+"\n", b.String())
	assert.Equal(t, s.Summary().Breakpoints, s.ListBreakpoints().Breakpoints)
	assert.Equal(t, `Breakpoints (3):
  1. t:check if missing > 0  (checked at entry)
     its condition failed: NameError: name 'missing' is not defined (at t:check#1, counted as false; 30 evaluation(s) failed); it never stops
  2. t:check if n > 3  (checked at entry)
     its condition failed: TypeError: bad (at t:check#2, counted as false; 1 evaluation(s) failed); it held on 26 call(s)
  3. t:check  (every call)
`, s.ListBreakpoints().Text(TextOptions{}))

	s.Conditions = nil // evaluated again on a longer T: nothing known yet
	assert.Empty(t, s.Summary().Breakpoints[0].ConditionError)
}
