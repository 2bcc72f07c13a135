package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// importsTrace is the recording of app.py, which imports lib (which imports lib.sub, defines a
// class and registers a function), helper and broken (which raises), then runs main, whose
// lib.work imports lazy on its first call:
//
//	/p/app.py
//	1 import lib, helper
//	2 try:
//	3     import broken
//	4 except ImportError:
//	5     pass
//	6 def main(): return lib.work(2)
//	7 main()
func importsTrace() *Trace {
	const app, lib = "/p/app.py", "/p/lib/__init__.py"
	broken := ret("broken:<module>", 1, 0, 3, "/p/broken.py", 1, "")
	broken.Status, broken.Exception = Raised, &Exception{Type: "ImportError", Message: "no module named x", Line: 1}
	return newTrace("/p",
		ret("app:<module>", 1, -1, 0, app, 1, "None"),
		ret("lib:<module>", 1, 0, 1, lib, 1, "None"),
		ret("lib.sub:<module>", 1, 1, 1, "/p/lib/sub.py", 1, "None"),
		ret("lib:Thing", 1, 1, 3, lib, 3, "class Thing"),
		ret("lib:register", 1, 1, 9, lib, 6, "<function work at 0x…>", Arg{"f", "<function work at 0x…>"}),
		ret("helper:<module>", 1, 0, 1, "/p/helper.py", 1, "None"),
		broken,
		ret("app:main", 1, 0, 7, app, 6, "4"),
		ret("lib:work", 1, 7, 6, lib, 10, "4", Arg{"n", "2"}),
		ret("lazy:<module>", 1, 8, 11, "/p/lazy.py", 1, "None"),
	)
}

// TestCallTreeImports: a call tree sums up the modules a frame imported in one line (they make
// most of a real program's calls, and none of its work) and shows the rest; an import that
// raised is shown; the tree of an import asked for shows what it ran.
func TestCallTreeImports(t *testing.T) {
	tr := importsTrace()
	assert.Equal(t, `Call tree of app:<module>#1 (depth 3, width 10):
app:<module>#1() → None
  … imported lib, helper: 5 calls (call-tree lib:<module>#1 shows one)
  broken:<module>#1() → raised ImportError: no module named x
  app:main#1() → 4
    lib:work#1(n=2) → 4
      … imported lazy: 1 call (call-tree lazy:<module>#1 shows it)
`, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}))
	run := mustRunTree(t, tr, TreeOptions{}, false)
	assert.Equal(t, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}), run.Text(TextOptions{}))
	assert.Equal(t, `Call tree of lib:<module>#1 (depth 3, width 10):
lib:<module>#1() → None
  lib.sub:<module>#1() → None
  lib:Thing#1() → class Thing
  lib:register#1(f=<function work at 0x…>) → <function work at 0x…>
`, mustTree(t, tr, 1, TreeOptions{}).Text(TextOptions{}))
	// imports take no room of the width, and at the depth limit they are named apart too
	assert.Equal(t, `Call tree of app:<module>#1 (depth 1, width 1):
app:<module>#1() → None
  … imported lib, helper: 5 calls (call-tree lib:<module>#1 shows one)
  broken:<module>#1() → raised ImportError: no module named x
  … 1 more call to main, 3 with their callees
`, mustTree(t, tr, 0, TreeOptions{Depth: 1, Width: 1}).Text(TextOptions{}))
	assert.Equal(t, `Call tree of app:main#1 (depth 1, width 10):
app:main#1() → 4
  lib:work#1(n=2) → 4
    … imported lazy: 1 call (call-tree lazy:<module>#1 shows it)
`, mustTree(t, tr, 7, TreeOptions{Depth: 1}).Text(TextOptions{}))

	root := mustTree(t, tr, 0, TreeOptions{}).Root
	assert.Equal(t, []CallGroup{{Func: "lib:<module>", Count: 1, First: "lib:<module>#1"}, {Func: "helper:<module>", Count: 1, First: "helper:<module>#1"}}, root.Imports)
	assert.Equal(t, 5, root.ImportCalls)
	require.Len(t, root.Children, 2)
	assert.Equal(t, "broken:<module>#1", root.Children[0].FID)
}

// TestForkedRunSaysSo: a run that forked says, in every answer's header and in a not-found error,
// how often and where first, since the children's calls are not recorded (a multiprocessing
// pool's workers run the function asked for); the JSON carries both.
func TestForkedRunSaysSo(t *testing.T) {
	tr := newTrace("/p",
		ret("app:<module>", 1, -1, 0, "/p/app.py", 1, "None"),
		ret("app:main", 1, 0, 9, "/p/app.py", 6, "None"),
	)
	tr.Forks, tr.ForkedIn = 2, 1
	assert.Equal(t, `Call tree of app:<module>#1 (depth 3, width 10):
Note: the program forked 2 times (the first in app:main#1); adi records this process only, so calls made in a forked child are not in the recording.
app:<module>#1() → None
  app:main#1() → None
`, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}))
	ct := mustTree(t, tr, 0, TreeOptions{})
	assert.Equal(t, Coverage{Forks: 2, ForkedIn: "app:main#1"}, ct.Recording)
	r, err := ParseRef("square")
	require.NoError(t, err)
	_, err = tr.ResolveFunc(r)
	require.EqualError(t, err, `no function "square" in the recording (nothing of it was called, or it is not user code); `+
		`the program forked 2 times (the first in app:main#1); adi records this process only, so calls made in a forked child are not in the recording.`)
	tr.Forks, tr.ForkedIn = 1, -1 // forked where no recorded frame was active
	assert.Equal(t, "the program forked once; adi records this process only, so calls made in a forked child are not in the recording.",
		ForkNote(tr.Coverage().Forks, tr.Coverage().ForkedIn))
}

// TestEntryFramesNameTheirThread: an entry frame that ran in another thread than the program's
// first (a pool's worker) is shown with its thread's name in a call tree and an FLT's header; a
// frame it called needs none (its caller says where it ran); a live recording shows none.
func TestEntryFramesNameTheirThread(t *testing.T) {
	work := ret("app:square", 1, -1, 0, "/p/app.py", 3, "0", Arg{"x", "0"})
	work.Thread = 1
	inner := ret("app:helper", 1, 1, 4, "/p/app.py", 9, "0")
	inner.Thread = 1
	tr := newTrace("/p", ret("app:<module>", 1, -1, 0, "/p/app.py", 1, "None"), work, inner)
	tr.Threads = []string{"MainThread", "ThreadPoolExecutor-0_0"}
	run := mustRunTree(t, tr, TreeOptions{}, false)
	assert.Equal(t, `Call tree of the run: 2 entry frames (depth 3, width 10):
app:<module>#1() → None
app:square#1(x=0) → 0  [thread ThreadPoolExecutor-0_0]
  app:helper#1() → 0
`, run.Text(TextOptions{}))
	assert.Equal(t, "ThreadPoolExecutor-0_0", run.Roots[1].Thread)
	assert.Equal(t, "entry frame, thread ThreadPoolExecutor-0_0", tr.FrameSummary(1).callerText())
	assert.Equal(t, "caller app:square#1, line 4", tr.FrameSummary(2).callerText())
	assert.Equal(t, "ThreadPoolExecutor-0_0", tr.FrameSummary(2).Thread)
	assert.Equal(t, "entry frame", tr.FrameSummary(0).callerText())
	tr.Live = true
	assert.Equal(t, "entry frame", tr.FrameSummary(1).callerText())
}

// TestGeneratorsSayWhatTheyYielded: a generator's line in a call tree, a frame list and an FLT's
// call says how often it yielded and its last value (the None it returned says nothing), then how
// it ended when it did not return; a coroutine's return value stays.
func TestGeneratorsSayWhatTheyYielded(t *testing.T) {
	const g = "/p/g.py"
	gen := func(fn string, n int, st Status, value string, exc *Exception) Frame {
		f := ret(fn, n, 0, 9, g, 1, value)
		f.Code.Kind, f.Status, f.Exception = GeneratorCode, st, exc
		if exc != nil {
			f.Outcome = Raising(exc)
		}
		return f
	}
	coro := ret("g:fetch", 1, 0, 12, g, 20, "5")
	coro.Code.Kind = CoroutineCode
	tr := newTrace("/p",
		ret("g:<module>", 1, -1, 0, g, 1, "None"),
		gen("g:evens", 1, Returned, "None", nil),
		gen("g:evens", 2, Returned, "None", nil),
		gen("g:pairs", 1, Returned, "2", nil),
		gen("g:parse", 1, Raised, "", &Exception{Type: "ValueError", Message: "bad", Line: 4}),
		gen("g:ticks", 1, Raised, "", &Exception{Type: "GeneratorExit", Line: 6}),
		gen("g:stream", 1, Unfinished, "", nil),
		gen("g:rows", 1, Returned, "None", nil),
		coro,
	)
	tr.Frames[6].Outcome = NoOutcome
	for _, v := range []string{"0", "2", "'x' * 3"} {
		tr.AddYield(1, v)
	}
	tr.AddYield(3, "('a', 1)")
	tr.AddYield(4, "'b'")
	tr.AddYield(5, "0")
	tr.AddYield(6, "1")
	tr.AddYield(7, "") // not rendered (a bare call)
	tr.AddYield(8, "None")
	assert.Equal(t, `Call tree of g:<module>#1 (depth 3, width 10):
g:<module>#1() → None
  g:evens#1() → yielded 3 (last 'x' * 3)
  g:evens#2() → yielded nothing
  g:pairs#1() → yielded 1 (last ('a', 1)), returned 2
  g:parse#1() → yielded 1 (last 'b'), then raised ValueError: bad
  g:ticks#1() → yielded 1 (last 0), then closed (GeneratorExit) at line 6
  g:stream#1() → yielded 1 (last 1), unfinished
  g:rows#1() → yielded 1
  g:fetch#1() → 5
`, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}))
	assert.Equal(t, "g:evens#1 → yielded 3 (last 'x' * 3)", detail{}.callText(tr.callView(1)))
	row := tr.FrameSummary(1)
	assert.Equal(t, "yielded 3 (last 'x' * 3)", detail{}.frameOutcome(row.Status, row.Return, row.Exception, Yielded{row.Kind, row.Yields, row.LastYield}))
	assert.Equal(t, "'x' * 3", tr.FrameJSON(1).LastYield)
}
