package adi

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// generatorTrace is a recording of a generator consumed twice and left suspended:
//
//	1 def count(n):
//	2     i = 0
//	3     while i < n:
//	4         yield i
//	5         i += 1
func generatorTrace() (*Trace, *FLT) {
	y0, y1 := "0", "1"
	gen := ret("c:count", 1, 0, 9, "/proj/c.py", 1, "", Arg{"n", "5"})
	gen.Status = Unfinished
	tr := newTrace("/proj", ret("c:<module>", 1, -1, 0, "/proj/c.py", 1, "None"), gen)
	tr.AddYield(1, "")
	tr.AddYield(1, "")
	return tr, &FLT{Frame: 1, Steps: []Step{
		{Line: 2, Stmt: "i = 0", Changes: []Change{{Name: "i", New: "0", Kind: New}}},
		{Line: 3, Stmt: "while i < n:", Loop: []LoopPos{{Header: 3, Iteration: 1}}},
		{Line: 4, Stmt: "yield i", Loop: []LoopPos{{Header: 3, Iteration: 1}}, Yield: &y0},
		{Line: 5, Stmt: "i += 1", Loop: []LoopPos{{Header: 3, Iteration: 1}}, Resume: true, Changes: []Change{{Name: "i", Old: "0", New: "1", Kind: Modified}}},
		{Line: 3, Stmt: "while i < n:", Loop: []LoopPos{{Header: 3, Iteration: 2}}},
		{Line: 4, Stmt: "yield i", Loop: []LoopPos{{Header: 3, Iteration: 2}}, Yield: &y1},
	}}
}

// checkFLT is the FLT of pkg.util:check#1 in fixture, which raised; its statement spans lines.
func checkFLT() *FLT {
	return &FLT{Frame: 10, Steps: []Step{
		{Line: 9, Stmt: "if v > 2:"},
		{Line: 10, Stmt: "raise ValueError(\n            f\"bad value {v}\")", Raise: &Exception{Type: "ValueError", Message: "bad value 3", Line: 10}},
	}}
}

// incomplete marks fixture's recording as cut at a limit and partial.
func incomplete() *Trace {
	tr := fixture()
	tr.Partial, tr.Limit, tr.Unrecorded = true, "max_calls", 1200
	tr.Frames[1].Status, tr.Frames[1].Return = Unfinished, ""
	return tr
}

// wideTrace has a main that calls leaf 250 times and other 3 times, each leaf calling one helper.
func wideTrace() *Trace {
	frames := []Frame{ret("w:main", 1, -1, 0, "/proj/w.py", 1, "None")}
	for i := 1; i <= 250; i++ {
		frames = append(frames, ret("w:leaf", i, 0, 3, "/proj/w.py", 6, "'"+strings.Repeat("x", 70)+"'", Arg{"k", "1"}))
		frames = append(frames, ret("w:helper", i, len(frames)-1, 7, "/proj/w.py", 9, "1"))
	}
	for i := 1; i <= 3; i++ {
		frames = append(frames, ret("w:other", i, 0, 4, "/proj/w.py", 12, "None"))
	}
	return newTrace("/proj", frames...)
}

func mustTree(t *testing.T, tr *Trace, root int, o TreeOptions) *CallTree {
	ct, err := tr.CallTree(root, o)
	require.NoError(t, err)
	return ct
}

func TestRenderGolden(t *testing.T) {
	hits := Hits{{Func: "t:fib", Cond: "n == 1"}: {5, 7}}
	value := "None"
	tests := []struct {
		name   string
		result func(t *testing.T) Result
		opts   TextOptions
	}{
		{"flt_normalize", func(*testing.T) Result { return fixture().FLTView(normalizeFLT()) }, TextOptions{}},
		{"flt_main", func(*testing.T) Result { return fixture().FLTView(mainFLT()) }, TextOptions{}},
		{"flt_raised", func(*testing.T) Result { return fixture().FLTView(checkFLT()) }, TextOptions{}},
		{"flt_generator", func(*testing.T) Result { tr, f := generatorTrace(); return tr.FLTView(f) }, TextOptions{}},
		{"flt_loop", func(*testing.T) Result { tr, f := sumLoop(30000); return tr.FLTView(f) }, TextOptions{}},
		{"flt_nested", func(*testing.T) Result { tr, f := gridLoop(); return tr.FLTView(f) }, TextOptions{}},
		{"flt_paths", func(*testing.T) Result { tr, f := searchLoop(8, 4); return tr.FLTView(f) }, TextOptions{}},
		{"flt_paths_fold_more", func(*testing.T) Result { tr, f := searchLoop(1000, 500); return tr.FLTView(f) }, TextOptions{}},
		{"flt_paths_fold_all", func(*testing.T) Result { tr, f := searchLoop(1000, 500); return tr.FLTView(f) }, TextOptions{Budget: 230}},
		{"flt_budget_returns", func(*testing.T) Result { tr, f := searchLoop(1000, 500); return tr.FLTView(f) }, TextOptions{Budget: 150}},
		{"flt_budget_values", func(*testing.T) Result {
			tr := fixture()
			tr.Frames[2].Args[0].Value = strings.Repeat("7", 400)
			tr.Frames[2].Return = strings.Repeat("8", 400)
			return tr.FLTView(normalizeFLT())
		}, TextOptions{Budget: 80}},
		{"flt_budget_cut", func(*testing.T) Result { tr, f := searchLoop(1000, 500); return tr.FLTView(f) }, TextOptions{Budget: 90}},
		{"flt_incomplete", func(*testing.T) Result {
			f := mainFLT()
			f.Steps, f.Dropped = f.Steps[:3], 5
			return incomplete().FLTView(f)
		}, TextOptions{}},
		{"flt_empty", func(*testing.T) Result { return fixture().FLTView(&FLT{Frame: 9}) }, TextOptions{}},
		{"calltree", func(t *testing.T) Result { return mustTree(t, fixture(), 0, TreeOptions{}) }, TextOptions{}},
		{"calltree_limited", func(t *testing.T) Result { return mustTree(t, fixture(), 0, TreeOptions{Depth: 2, Width: 2}) }, TextOptions{}},
		{"calltree_wide", func(t *testing.T) Result { return mustTree(t, wideTrace(), 0, TreeOptions{Depth: 1}) }, TextOptions{}},
		{"calltree_budget", func(t *testing.T) Result { return mustTree(t, wideTrace(), 0, TreeOptions{Width: 30}) }, TextOptions{Budget: 300}},
		{"calltree_incomplete", func(t *testing.T) Result { return mustTree(t, incomplete(), 1, TreeOptions{Depth: 1}) }, TextOptions{}},
		{"frames", func(*testing.T) Result { return fixture().ListFrames("t:fib", FrameFilter{}) }, TextOptions{}},
		{"frames_filtered", func(*testing.T) Result { return fixture().ListFrames("t:fib", FrameFilter{Caller: "fib#", Limit: 2}) }, TextOptions{}},
		{"frames_none", func(*testing.T) Result { return fixture().ListFrames("t:fib", FrameFilter{Caller: "zzz"}) }, TextOptions{}},
		{"frames_entry", func(*testing.T) Result { return incomplete().ListFrames("t:<module>", FrameFilter{}) }, TextOptions{}},
		{"diff_values", func(*testing.T) Result {
			f2 := &FLT{Frame: 11, Steps: []Step{
				{Line: 4, Stmt: "y = x + 1", Changes: []Change{{Name: "y", New: "2", Kind: New}}},
				{Line: 5, Stmt: "return y * 2"}}}
			return fixture().Diff(normalizeFLT(), f2)
		}, TextOptions{}},
		{"diff_paths", func(*testing.T) Result { return fixture().Diff(mainFLT(), checkFLT()) }, TextOptions{}},
		{"diff_loops", func(*testing.T) Result {
			tr, a := searchLoop(60, 20)
			_, b := searchLoop(60, 40)
			return tr.Diff(a, b)
		}, TextOptions{Budget: 500}},
		{"state", func(*testing.T) Result {
			s := NewState(fixture())
			s.Break("t:fib", "n == 1")
			s.Break("pkg.util:check", "")
			s.Break("t:normalize", "_return > 10")
			s.Cur = 5
			return s.Summary()
		}, TextOptions{}},
		{"state_incomplete", func(*testing.T) Result { return NewState(incomplete()).Summary() }, TextOptions{}},
		{"breakpoints", func(*testing.T) Result {
			s := NewState(fixture())
			s.Break("t:fib", "")
			s.Break("t:normalize", "_exception is not None")
			return s.ListBreakpoints()
		}, TextOptions{}},
		{"breakpoints_empty", func(*testing.T) Result { return NewState(fixture()).ListBreakpoints() }, TextOptions{}},
		{"break", func(*testing.T) Result { return NewState(fixture()).Break("t:fib", "n == 1") }, TextOptions{}},
		{"break_again", func(*testing.T) Result {
			s := NewState(fixture())
			s.Break("t:fib", "")
			return s.Break("t:fib", "")
		}, TextOptions{}},
		{"clear", func(*testing.T) Result {
			s := NewState(fixture())
			s.Break("t:fib", "")
			s.Break("t:fib", "n == 1")
			s.Break("t:main", "")
			return s.Clear("t:fib", "")
		}, TextOptions{}},
		{"clear_nothing", func(*testing.T) Result { return NewState(fixture()).Clear("t:fib", "n > 2") }, TextOptions{}},
		{"nav_continue", func(*testing.T) Result {
			s := NewState(fixture())
			s.Break("t:fib", "n == 1")
			r := s.Continue(hits)
			r.FLT = s.Trace.FLTView(&FLT{Frame: 5, Steps: []Step{{Line: 8, Stmt: "if n < 2:"}, {Line: 9, Stmt: "return n"}}})
			return r
		}, TextOptions{}},
		{"nav_none", func(*testing.T) Result {
			s := NewState(fixture())
			s.Break("t:normalize", "")
			s.Cur = 11
			return s.Continue(hits)
		}, TextOptions{}},
		{"exec", func(*testing.T) Result {
			return &ExecResult{FID: "t:fib#3", Line: 9, Visit: 1, Stmt: "print(n, n * 2)\nn", Output: "1 2\n", Value: &value}
		}, TextOptions{}},
		{"exec_raised", func(*testing.T) Result {
			return &ExecResult{FID: "t:fib#3", Line: 9, Visit: 2, Stmt: "y", Exception: &Exception{Type: "NameError", Message: "name 'y' is not defined"}}
		}, TextOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := tt.result(t).Text(tt.opts)
			golden(t, tt.name+".txt", out)
			assert.LessOrEqual(t, Tokens(out), max(tt.opts.Budget, DefaultBudget))
		})
	}
}

func TestCallTreeErrors(t *testing.T) {
	_, err := fixture().CallTree(12, TreeOptions{})
	require.EqualError(t, err, "no frame T[12]; the recording has 12")
	assert.ErrorIs(t, err, ErrNotFound)
	_, err = fixture().CallTree(0, TreeOptions{Depth: -1})
	require.EqualError(t, err, "call-tree depth and width must be positive (got -1 and 0)")
	assert.ErrorIs(t, err, ErrBadInput)
}

func TestLoopFitsBudget(t *testing.T) {
	tr, f := sumLoop(30000)
	out := tr.FLTView(f).Text(TextOptions{})
	assert.LessOrEqual(t, Tokens(out), 1500)
	// The first and last iterations are exact, and the fold says what it hides.
	for _, want := range []string{
		"   3 | for i in range(n):   [iteration 1]\n     |   + i = 0\n   4 | s += i\n",
		"   3 | for i in range(n):   [iteration 30000]\n     |   ~ i = 29999 (was 29998)\n   4 | s += i\n     |   ~ s = 449985000 (was 449955001)\n",
		"     ┆ … iterations 3–29999 of line 3 folded (29997 iterations, same path as iteration 2; changing: i, s)\n",
		"Return: 449985000\n",
	} {
		assert.Contains(t, out, want)
	}
}

func TestBudgetIsKept(t *testing.T) {
	tr, f := searchLoop(1000, 500)
	for _, budget := range []int{90, 150, 300, 2000} {
		out := tr.FLTView(f).Text(TextOptions{Budget: budget})
		assert.LessOrEqual(t, Tokens(out), budget, "budget %d", budget)
	}
}

func TestRenderDeterministic(t *testing.T) {
	tr, f := searchLoop(300, 100)
	first := tr.FLTView(f).Text(TextOptions{Budget: 200})
	for range 5 {
		assert.Equal(t, first, tr.FLTView(f).Text(TextOptions{Budget: 200}))
	}
}

func TestJSONGolden(t *testing.T) {
	s := NewState(fixture())
	s.Break("t:fib", "n == 1")
	nav := s.Continue(Hits{{Func: "t:fib", Cond: "n == 1"}: {5, 7}})
	nav.FLT = s.Trace.FLTView(&FLT{Frame: 5, Steps: []Step{{Line: 8, Stmt: "if n < 2:"}, {Line: 9, Stmt: "return n"}}})
	tests := []struct {
		name string
		v    any
	}{
		{"flt_main", fixture().FLTView(mainFLT())},
		{"calltree", mustTree(t, fixture(), 1, TreeOptions{Depth: 1, Width: 2})},
		{"frames", fixture().ListFrames("t:normalize", FrameFilter{})},
		{"diff", fixture().Diff(normalizeFLT(), &FLT{Frame: 11, Steps: []Step{{Line: 4, Stmt: "y = x + 1", Changes: []Change{{Name: "y", New: "2", Kind: New}}}}})},
		{"state", s.Summary()},
		{"nav", nav},
		{"clear", s.Clear("", "")},
		{"commands", []Command{BreakCmd{Func: Ref{Module: "t", Name: "f"}, Cond: "x > 3"}, ExecCmd{Frame: Ref{Name: "f", Index: 2}, Line: 3, Visit: 1, Stmt: "print(x)"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.MarshalIndent(tt.v, "", "  ")
			require.NoError(t, err)
			golden(t, tt.name+".json", string(b)+"\n")
		})
	}
}

// TestFLTCountsPlumbingCalls: the calls of plumbing dunders a statement makes, when several, are
// counted on one line where the first was; one alone is shown as any call.
func TestFLTCountsPlumbingCalls(t *testing.T) {
	const app = "/p/app.py"
	tr := newTrace("/p",
		ret("app:main", 1, -1, 0, app, 1, "None"),
		ret("app:Key.__hash__", 1, 0, 2, app, 9, "7", Arg{"self", "k"}),
		ret("app:Key.__hash__", 2, 0, 2, app, 9, "7", Arg{"self", "k"}),
		ret("app:Key.__eq__", 1, 0, 2, app, 11, "True", Arg{"self", "k"}, Arg{"other", "k"}),
		ret("app:index", 1, 0, 2, app, 13, "{k: 0}", Arg{"keys", "[k]"}),
		ret("app:Key.__hash__", 3, 0, 3, app, 9, "7", Arg{"self", "k"}),
	)
	flt := &FLT{Frame: 0, Steps: []Step{
		{Line: 2, Stmt: "d = index(keys)", Changes: []Change{{Name: "d", New: "{k: 0}", Kind: New}}, Callees: []int{1, 2, 3, 4}},
		{Line: 3, Stmt: "return d[k]", Callees: []int{5}},
	}}
	assert.Equal(t, `Frame: app:main#1   (entry frame)
Args: (none)

   2 | d = index(keys)
     |   + d = {k: 0}
     |   → Key.__hash__ ×2, Key.__eq__ ×1
     |   → app:index#1 → {k: 0}
   3 | return d[k]
     |   → app:Key.__hash__#3 → 7

Return: None
`, tr.FLTView(flt).Text(TextOptions{}))
}

// TestShortKeepsTheSize: a cut value keeps the " (len=N)" the probe wrote after a container it
// cut, which says how big the value is.
func TestShortKeepsTheSize(t *testing.T) {
	v := "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, ...] (len=300)"
	assert.Equal(t, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9… (len=300)", short(v, 40))
	assert.Equal(t, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …", short("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]", 40))
	assert.Equal(t, "'a (len=x)' and some more text, and mor…", short("'a (len=x)' and some more text, and more text (len=x)", 40))
}

// TestFLTArgsSelf: a method's self among an FLT's arguments is cut to argsSelf characters; the
// other arguments keep the FLT's limit.
func TestFLTArgsSelf(t *testing.T) {
	long := "Session(headers={'User-Agent': 'python-requests/2.28.1'}, auth=None, proxies={})"
	assert.Equal(t, "self = Session(headers={'User-Agent': 'python-requests/2.28.1'}, a…, r = "+long,
		detail{valueLimit: fltValue}.argsText([]Arg{{"self", long}, {"r", long}}))
}

// TestTreeArgsSelf: a call tree names a method's self without its value when that is long or was
// not rendered; a short one is shown.
func TestTreeArgsSelf(t *testing.T) {
	d := detail{}
	assert.Equal(t, "self, key='axes.titley'", d.treeArgs([]Arg{{"self", "<RcParams, not rendered>"}, {"key", "'axes.titley'"}}))
	assert.Equal(t, "self", d.treeArgs([]Arg{{"self", "Session(headers={'User-Agent': 'python-requests/2.28.1'})"}}))
	assert.Equal(t, "self=<AxesSubplot: >, axis='x'", d.treeArgs([]Arg{{"self", "<AxesSubplot: >"}, {"axis", "'x'"}}))
}
