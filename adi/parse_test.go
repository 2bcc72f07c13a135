package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func refp(r Ref) *Ref { return &r }

func TestParseCommand(t *testing.T) {
	tf := Ref{Module: "t", Name: "f"}
	tf2 := Ref{Module: "t", Name: "f", Index: 2}
	tests := []struct {
		in    string
		want  Command
		canon string
	}{
		{"break t:f x > 3", BreakCmd{Func: tf, Cond: "x > 3"}, "break t:f x > 3"},
		{"break t:f", BreakCmd{Func: tf}, "break t:f"},
		{`break t:f "x > 3"`, BreakCmd{Func: tf, Cond: "x > 3"}, "break t:f x > 3"},
		{`break t:f 'a' in s`, BreakCmd{Func: tf, Cond: "'a' in s"}, "break t:f 'a' in s"},
		{`break t:f "'a'"`, BreakCmd{Func: tf, Cond: "'a'"}, `break t:f "'a'"`},
		{"break t:f _return is None", BreakCmd{Func: tf, Cond: "_return is None"}, "break t:f _return is None"},
		{"break '/my dir/t.py:f' x", BreakCmd{Func: Ref{Path: "/my dir/t.py", Name: "f"}, Cond: "x"}, "break '/my dir/t.py:f' x"},
		{"break /abs/t.py:12", BreakCmd{Func: Ref{Path: "/abs/t.py", Line: 12}}, "break /abs/t.py:12"},
		{`break t:f --cond "x > 3"`, BreakCmd{Func: tf, Cond: "x > 3"}, "break t:f x > 3"},
		{`break t:f --condition 'x > 3'`, BreakCmd{Func: tf, Cond: "x > 3"}, "break t:f x > 3"},
		{`break t:f -c x`, BreakCmd{Func: tf, Cond: "x"}, "break t:f x"},
		{`break t:f --cond="x > 3"`, BreakCmd{Func: tf, Cond: "x > 3"}, "break t:f x > 3"},
		{`break t:f --cond -x > 0`, BreakCmd{Func: tf, Cond: "-x > 0"}, "break t:f --cond -x > 0"},
		{`break t:f --conditional`, BreakCmd{Func: tf, Cond: "--conditional"}, "break t:f --cond --conditional"},
		{"break t:f --on-return y > 1", BreakCmd{Func: tf, Cond: "y > 1", When: AtExit}, "break t:f --on-return y > 1"},
		{"break t:f --on-entry x", BreakCmd{Func: tf, Cond: "x", When: AtEntry}, "break t:f --on-entry x"},
		{"break t:f --if-eval-lineno=7 total > 2", BreakCmd{Func: tf, Cond: "total > 2", Line: 7}, "break t:f --if-eval-lineno 7 total > 2"},
		{"  continue  ", ContinueCmd{}, "continue"},
		{"prev", PrevCmd{}, "prev"},
		{"step-into t:f#2", StepIntoCmd{Frame: tf2}, "step-into t:f#2"},
		{"step-in t:f#2", StepIntoCmd{Frame: tf2}, "step-into t:f#2"},
		{"step-out", StepOutCmd{}, "step-out"},
		{"call-tree", CallTreeCmd{}, "call-tree"},
		{"call-tree t:f#2 --depth 2 --width 5", CallTreeCmd{Frame: &tf2, Options: TreeOptions{Depth: 2, Width: 5}}, "call-tree t:f#2 --depth 2 --width 5"},
		{"call-tree --width=4 t:f#2", CallTreeCmd{Frame: &tf2, Options: TreeOptions{Width: 4}}, "call-tree t:f#2 --width 4"},
		{"list-frames t:f", ListFramesCmd{Func: tf}, "list-frames t:f"},
		{"list-frames /abs/t.py:f --caller 'test_ x' --limit 5", ListFramesCmd{Func: Ref{Path: "/abs/t.py", Name: "f"}, Filter: FrameFilter{Caller: "test_ x", Limit: 5}}, "list-frames /abs/t.py:f --caller 'test_ x' --limit 5"},
		{"list-frames --caller=main f", ListFramesCmd{Func: Ref{Name: "f"}, Filter: FrameFilter{Caller: "main"}}, "list-frames f --caller main"},
		{"diff t:f#1 t:f#2", DiffCmd{A: Ref{Module: "t", Name: "f", Index: 1}, B: tf2}, "diff t:f#1 t:f#2"},
		{"state", StateCmd{}, "state"},
		{"list", ListCmd{}, "list"},
		{"clear", ClearCmd{}, "clear"},
		{"clear t:f", ClearCmd{Func: &tf}, "clear t:f"},
		{"clear t:f x > 3", ClearCmd{Func: &tf, Cond: "x > 3"}, "clear t:f x > 3"},
		{"flt", FLTCmd{}, "flt"},
		{"flt t:f#2", FLTCmd{Frame: &tf2}, "flt t:f#2"},
		{"exec t:f#2 print(x)", ExecCmd{Frame: tf2, Visit: 1, Stmt: "print(x)"}, "exec t:f#2 print(x)"},
		{"exec t:f#2 -l 12 -k 3 print(x, y)", ExecCmd{Frame: tf2, Line: 12, Visit: 3, Stmt: "print(x, y)"}, "exec t:f#2 -l 12 -k 3 print(x, y)"},
		{`exec t:f#2 -l 12 "print('a b')"`, ExecCmd{Frame: tf2, Line: 12, Visit: 1, Stmt: "print('a b')"}, "exec t:f#2 -l 12 print('a b')"},
		{`exec t:f#2 -s -x`, ExecCmd{Frame: tf2, Visit: 1, Stmt: "-x"}, "exec t:f#2 -s -x"},
		{"exec t:f#2 --then-continue -l 4 x = 0", ExecCmd{Frame: tf2, Line: 4, Visit: 1, ThenContinue: true, Stmt: "x = 0"}, "exec t:f#2 -l 4 --then-continue x = 0"},
		{"exec t:f#2 -t 3 -l 4 x", ExecCmd{Frame: tf2, Line: 4, Visit: 1, Timeout: 3, Stmt: "x"}, "exec t:f#2 -l 4 -t 3 x"},
		{`exec t:f#2 print('it\'s')`, ExecCmd{Frame: tf2, Visit: 1, Stmt: `print('it\'s')`}, `exec t:f#2 print('it\'s')`},
		{"exec t:f#2 -k 1 x = 1\ny = 2", ExecCmd{Frame: tf2, Visit: 1, Stmt: "x = 1\ny = 2"}, "exec t:f#2 x = 1\ny = 2"},
	}
	for _, tt := range tests {
		got, err := ParseCommand(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
		assert.Equal(t, tt.canon, got.String(), tt.in)
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"", "empty command; use one of: break, clear, continue, prev, step-into, step-out, call-tree, list-frames, flt, diff, exec, state, list"},
		{"jump t:f#1", `unknown command "jump"; use one of: break, clear, continue, prev, step-into, step-out, call-tree, list-frames, flt, diff, exec, state, list`},
		{"break", "break: the function is missing; usage: break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]"},
		{"break t:f#2", "break: t:f#2 names a frame, but break takes a function (to inspect that frame: step-into t:f#2); usage: break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]"},
		{"break t:f --if-eval-lineno 3", "break: --if-eval-lineno says where the condition is checked; give the condition too (--cond EXPR)"},
		{"break t:f --if-eval-lineno 3 _return > 1", "break: _return and _exception are bound only at exit, and --if-eval-lineno checks the condition at line 3; use --on-return instead"},
		{"break t:f --on-entry _return", "break: _return and _exception are bound only at exit; use --on-return, not --on-entry"},
		{"break t:f --on-return --if-eval-lineno 2 x", "break: give --if-eval-lineno or --on-entry/--on-return, not both: a condition is checked at one moment"},
		{"break t.py", `break: "t.py" names a file but no function; write t.py:FUNC or t.py:LINE`},
		{"continue t:f", "continue: it takes no arguments; usage: continue"},
		{"step-into t:g", "step-into: t:g names a function; add the invocation index, e.g. t:g#1; usage: step-into FUNC#N"},
		{"step-into", "step-into: the frame is missing; usage: step-into FUNC#N"},
		{"step-into t:g#1 t:g#2", "step-into: it takes one frame; usage: step-into FUNC#N"},
		{"call-tree --depth", `call-tree: --depth takes a whole number from 1 (got ""); usage: call-tree [FUNC#N] [--depth N] [--width N]`},
		{"call-tree --depth 0", `call-tree: --depth takes a whole number from 1 (got "0"); usage: call-tree [FUNC#N] [--depth N] [--width N]`},
		{"call-tree --depth=", "call-tree: --depth= needs a number; usage: call-tree [FUNC#N] [--depth N] [--width N]"},
		{"call-tree --wide 3", `call-tree: unknown option "--wide"; usage: call-tree [FUNC#N] [--depth N] [--width N]`},
		{"call-tree t:f#1 t:f#2", `call-tree: it takes one frame (got "t:f#2" too); usage: call-tree [FUNC#N] [--depth N] [--width N]`},
		{"list-frames", "list-frames: the function is missing; usage: list-frames FUNC [--caller TEXT] [--limit N]"},
		{"list-frames t:f --caller", "list-frames: --caller takes a text to look for in the caller's fid or file; usage: list-frames FUNC [--caller TEXT] [--limit N]"},
		{"list-frames t:f#1", "list-frames: t:f#1 names a frame, but list-frames takes a function (to inspect that frame: step-into t:f#1); usage: list-frames FUNC [--caller TEXT] [--limit N]"},
		{"diff t:f#1", "diff: it takes two frames; usage: diff FUNC#N FUNC#M"},
		{"diff t:f#1 t:f#2 t:f#3", "diff: it takes two frames; usage: diff FUNC#N FUNC#M"},
		{"flt t:f#1 x", "flt: it takes one frame; usage: flt [FUNC#N]"},
		{"exec t:f#1", "exec: the statement is missing; usage: exec FUNC#N [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue] STATEMENT"},
		{"exec t:f#1 -l x print(1)", `exec: -l takes a whole number from 1 (got "x"); usage: exec FUNC#N [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue] STATEMENT`},
		{"exec -l 3 t:f#1 x", `exec: unknown option "-l"; usage: exec FUNC#N [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue] STATEMENT`},
		{"break t:f --cond", "break: --cond needs a condition, e.g. --cond 'x > 3'; usage: break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]"},
		{`break t:f -c ""`, "break: -c needs a condition, e.g. -c 'x > 3'; usage: break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]"},
		{`break 't:f x`, `break: unterminated ' quote in "'t:f x"; usage: break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]`},
		{`"break`, `unterminated " quote in "\"break"; use one of: break, clear, continue, prev, step-into, step-out, call-tree, list-frames, flt, diff, exec, state, list`},
	}
	for _, tt := range tests {
		_, err := ParseCommand(tt.in)
		require.EqualError(t, err, tt.err, tt.in)
		assert.ErrorIs(t, err, ErrBadInput)
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"break t:f x > 3", `break t:f "'a'"`, "continue", "step-in t:g#2", "call-tree t:f#1 --depth=2",
		"list-frames f --caller 'a b' --limit 3", "diff a#1 b#2", "clear t:f x", "flt", "exec t:f#1 -l 3 -k 2 -s -x", `exec t:f#1 "print('a')"`, `break 'a\'b:c'`, `break t:f --cond "x > 3"`, "break t:f -c -x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCommand(s)
		if err != nil {
			assert.ErrorIs(t, err, ErrBadInput)
			return
		}
		again, err := ParseCommand(c.String())
		require.NoError(t, err, "reparsing %q (from %q)", c.String(), s)
		assert.Equal(t, c, again)
	})
}
