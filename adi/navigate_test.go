package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/internal/faces"
)

// Frames of fixture(): 0 t:<module>#1, 1 t:main#1, 2 t:normalize#1, 3–7 t:fib#1–5 (n = 3, 2, 1,
// 0, 1), 8 pkg.util:Helper.run#1, 9 pkg.util:run#1, 10 pkg.util:check#1, 11 t:normalize#2.

func TestContinuePrev(t *testing.T) {
	fib1 := Breakpoint{Func: "t:fib", Cond: "n == 1"}
	big := Breakpoint{Func: "t:normalize", Cond: "_return > 10"}
	hits := Hits{fib1: {5, 7}, big: {2}}
	tests := []struct {
		name  string
		cmd   string
		b     []Breakpoint
		from  int
		to    int
		moved bool
		hit   int
		total int
		msg   string
	}{
		{"first hit from the start", "continue", bps("t:fib", ""), 0, 3, true, 1, 5, "continue → t:fib#1  (hit 1 of 5)"},
		{"next hit", "continue", bps("t:fib", ""), 3, 4, true, 2, 5, "continue → t:fib#2  (hit 2 of 5)"},
		{"no further hit", "continue", bps("t:fib", ""), 7, 7, false, 0, 0, "continue: no further hit of t:fib (5 hit(s) in all); still at t:fib#5."},
		{"condition", "continue", []Breakpoint{fib1}, 0, 5, true, 1, 2, "continue → t:fib#3  (breakpoint t:fib if n == 1; hit 1 of 2)"},
		{"condition, next", "continue", []Breakpoint{fib1}, 5, 7, true, 2, 2, "continue → t:fib#5  (breakpoint t:fib if n == 1; hit 2 of 2)"},
		{"condition, none left", "continue", []Breakpoint{fib1}, 7, 7, false, 0, 0, "continue: no further hit of t:fib if n == 1 (2 hit(s) in all); still at t:fib#5."},
		{"exit condition", "continue", []Breakpoint{big}, 0, 2, true, 1, 1, "continue → t:normalize#1  (breakpoint t:normalize if _return > 10; hit 1 of 1)"},
		{"earliest of two breakpoints", "continue", bps("t:normalize", "", "t:fib", ""), 2, 3, true, 2, 7, "continue → t:fib#1  (breakpoint t:fib; hit 2 of 7)"},
		{"past the last fib", "continue", bps("t:normalize", "", "t:fib", ""), 7, 11, true, 7, 7, "continue → t:normalize#2  (breakpoint t:normalize; hit 7 of 7)"},
		{"tie goes to the breakpoint set first", "continue", []Breakpoint{{Func: "t:fib"}, fib1}, 4, 5, true, 3, 5, "continue → t:fib#3  (breakpoint t:fib; hit 3 of 5)"},
		{"no breakpoints", "continue", nil, 0, 0, false, 0, 0, "continue: no breakpoints are set; still at t:<module>#1. Set one with: adi break FUNC [--cond EXPR]"},
		{"prev", "prev", bps("t:fib", ""), 11, 7, true, 5, 5, "prev → t:fib#5  (hit 5 of 5)"},
		{"prev, one back", "prev", bps("t:fib", ""), 5, 4, true, 2, 5, "prev → t:fib#2  (hit 2 of 5)"},
		{"prev, none earlier", "prev", bps("t:fib", ""), 3, 3, false, 0, 0, "prev: no earlier hit of t:fib (5 hit(s) in all); still at t:fib#1."},
		{"prev, condition", "prev", []Breakpoint{fib1}, 7, 5, true, 1, 2, "prev → t:fib#3  (breakpoint t:fib if n == 1; hit 1 of 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewState(fixture())
			s.Breakpoints, s.Cur = tt.b, tt.from
			var r *NavResult
			if tt.cmd == "continue" {
				r = s.Continue(hits)
			} else {
				r = s.Prev(hits)
			}
			assert.Equal(t, tt.to, s.Cur)
			assert.Equal(t, tt.to, r.Frame)
			assert.Equal(t, tt.moved, r.Moved)
			assert.Equal(t, tt.hit, r.Hit)
			assert.Equal(t, tt.total, r.Hits)
			assert.Equal(t, tt.msg, faces.CLI.Render(r.Message))
		})
	}
}

func TestContinueNilOracle(t *testing.T) {
	s := NewState(fixture())
	s.Breakpoints = bps("t:fib", "n == 1", "t:normalize", "")
	r := s.Continue(nil)
	assert.Equal(t, 2, s.Cur)
	assert.Equal(t, "continue → t:normalize#1  (breakpoint t:normalize; hit 1 of 2)", r.Message)
}

func TestContinueIncompleteRecording(t *testing.T) {
	tr := fixture()
	tr.Limit, tr.Unrecorded = "max_calls", 1200
	s := NewState(tr)
	s.Breakpoints, s.Cur = bps("t:fib", ""), 7
	assert.Equal(t, "continue: no further hit of t:fib (5 hit(s) in all); still at t:fib#5. The recording is incomplete: later calls may be missing.", s.Continue(nil).Message)
	assert.Equal(t, 7, s.Cur)
}

// TestContinueForkedRun: no further hit in a run that forked says where, since a forked child's
// calls of the function are not recorded.
func TestContinueForkedRun(t *testing.T) {
	tr := fixture()
	tr.Forks, tr.ForkedIn = 1, 0
	s := NewState(tr)
	s.Breakpoints, s.Cur = bps("t:fib", ""), 7
	assert.Equal(t, "continue: no further hit of t:fib (5 hit(s) in all); still at t:fib#5. The program forked once (the first in t:<module>#1); "+
		"adi records this process only, so calls made in a forked child are not in the recording.", s.Continue(nil).Message)
}

func TestStepInto(t *testing.T) {
	tests := []struct {
		name string
		from int
		fid  FID
		to   int
		msg  string
		err  string
	}{
		{"a callee", 4, FID{"t:fib", 4}, 6, "step-into → t:fib#4  (called by t:fib#2 at line 10)", ""},
		{"any frame of T", 0, FID{"pkg.util:check", 1}, 10, "step-into → check#1  (called by t:main#1 at line 17)", ""},
		{"an entry frame", 5, FID{"t:<module>", 1}, 0, "step-into → t:<module>#1  (an entry frame)", ""},
		{"index out of range", 3, FID{"t:fib", 9}, 3, "", "t:fib#9: t:fib was called 5 time(s); use an index from 1 to 5"},
		{"unknown function", 3, FID{"t:nope", 1}, 3, "", `no function "t:nope" in the recording`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewState(fixture())
			s.Cur = tt.from
			r, err := s.StepInto(tt.fid)
			assert.Equal(t, tt.to, s.Cur)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
				assert.ErrorIs(t, err, ErrNotFound)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.msg, faces.CLI.Render(r.Message))
			assert.Equal(t, tt.to, r.Frame)
			assert.True(t, r.Moved)
		})
	}
}

func TestStepOut(t *testing.T) {
	tests := []struct {
		from, to int
		moved    bool
		msg      string
	}{
		{6, 4, true, "step-out → t:fib#2  (the caller of t:fib#4, at line 10)"},
		{9, 8, true, "step-out → Helper.run#1  (the caller of run#1, at line 3)"},
		{1, 0, true, "step-out → t:<module>#1  (the caller of t:main#1, at line 22)"},
		{0, 0, false, "step-out: t:<module>#1 is an entry frame (no caller); still at t:<module>#1."},
	}
	for _, tt := range tests {
		s := NewState(fixture())
		s.Cur = tt.from
		r := s.StepOut()
		assert.Equal(t, tt.to, s.Cur)
		assert.Equal(t, tt.moved, r.Moved)
		assert.Equal(t, tt.msg, faces.CLI.Render(r.Message))
	}
}

func TestEmptyRecording(t *testing.T) {
	s := NewState(newTrace("/proj"))
	s.Breakpoints = bps("t:f", "")
	assert.Equal(t, "continue: no further hit of t:f (0 hit(s) in all); still at (no frames).", s.Continue(nil).Message)
	assert.Equal(t, "step-out: the recording has no frames.", s.StepOut().Message)
	assert.Equal(t, 0, s.Cur)
}

// TestBreakMoves: break FUNC#N moves to that frame, and a conditional break that matched moves
// to its first match as a hit of the breakpoint (so its FLT can mark where the condition held).
func TestBreakMoves(t *testing.T) {
	s := NewState(fixture())
	r, err := s.BreakAt(FID{Func: "t:fib", Index: 2}, Breakpoint{})
	require.NoError(t, err)
	assert.Equal(t, 4, s.Cur)
	assert.Equal(t, "break → t:fib#2  (breakpoint on every call; adi continue moves to the next)", faces.CLI.Render(r.Message))
	r, err = s.BreakAt(FID{Func: "t:fib", Index: 3}, Breakpoint{Cond: "n == 1"})
	require.NoError(t, err)
	assert.Equal(t, "break → t:fib#3  (breakpoint t:fib if n == 1  (checked at entry) set; adi continue moves to its next hit)", faces.CLI.Render(r.Message))

	s.Cur = 0
	fib1 := Breakpoint{Func: "t:fib", Cond: "n == 1"}
	r = s.FirstMatch(fib1, 5, 2)
	assert.Equal(t, 5, s.Cur)
	assert.True(t, r.Moved)
	require.NotNil(t, r.Breakpoint)
	assert.Equal(t, fib1, r.Breakpoint.Breakpoint)
	assert.Equal(t, "break → t:fib#3  (the first of 2 invocations where the condition held; adi continue moves to the next)", faces.CLI.Render(r.Message))
	r = s.FirstMatch(Breakpoint{Func: "t:normalize", Cond: "_return > 10"}, 2, 1)
	assert.Equal(t, "break → t:normalize#1  (the only invocation where the condition held)", r.Message)
}
