package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
