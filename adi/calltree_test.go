package adi

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/internal/faces"
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
	assert.Equal(t, `Call tree of app:<module>#1 (depth 2, width 10):
app:<module>#1() → None
  … imported lib, helper: 5 calls (call-tree lib:<module>#1 shows one)
  broken:<module>#1() → raised ImportError: no module named x
  app:main#1() → 4
    lib:work#1(n=2) → 4
      … imported lazy: 1 call (call-tree lazy:<module>#1 shows it)
`, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}))
	run := mustRunTree(t, tr, TreeOptions{}, false)
	assert.Equal(t, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}), run.Text(TextOptions{}))
	assert.Equal(t, `Call tree of lib:<module>#1 (depth 2, width 10):
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
	assert.Equal(t, `Call tree of app:<module>#1 (depth 2, width 10):
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
	assert.Equal(t, `Call tree of the run: 2 entry frames (depth 2, width 10):
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
	assert.Equal(t, `Call tree of g:<module>#1 (depth 2, width 10):
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

// deepFailure is the recording of app.py, which fails deep in lib after some setup, with calls at
// exit:
//
//	/p/app.py                                   /p/lib.py
//	 1 import atexit, lib                       lib.configure() calls setopt, getopt, parse and
//	 2 def validate(opts): return True          store 3 times each, in turn; lib.run(opts) calls
//	 3 def main():                              step(1), step(2), step(3), and close() in a
//	 4     opts = lib.configure()               finally; step(3) calls check(7), which raises
//	 5     for i in range(6): lib.register(i)   ValueError('bad item 7') at line 31; lib
//	 6     validate(opts)                       registers cleanup() with atexit twice.
//	 7     try: lib.run(opts)                   lib.shutdown(reason) calls flush 3 times.
//	 9     finally: lib.shutdown('error')
//	10 main()
func deepFailure() *Trace {
	const app, lib = "/p/app.py", "/p/lib.py"
	var frames []Frame
	counts := map[string]int{}
	add := func(fn string, caller, callLine int, file string, value string, args ...Arg) int {
		counts[fn]++
		frames = append(frames, ret(fn, counts[fn], caller, callLine, file, 1, value, args...))
		return len(frames) - 1
	}
	fail := func(j, line int) {
		frames[j].Status, frames[j].Outcome = Raised, Raising(&Exception{Type: "ValueError", Message: "bad item 7", Line: line})
	}
	mod := add("app:<module>", -1, 0, app, "")
	fail(mod, 8)
	add("lib:<module>", mod, 1, lib, "None")
	main := add("app:main", mod, 8, app, "")
	fail(main, 7)
	cfg := add("lib:configure", main, 4, lib, "{'debug': False}")
	for i := range 12 {
		add([]string{"lib:setopt", "lib:getopt", "lib:parse", "lib:store"}[i%4], cfg, 3, lib, "None", Arg{"k", strconv.Itoa(i)})
	}
	for i := range 6 {
		add("lib:register", main, 5, lib, "None", Arg{"i", strconv.Itoa(i)})
	}
	add("app:validate", main, 6, app, "True", Arg{"opts", "{'debug': False}"})
	run := add("lib:run", main, 7, lib, "", Arg{"opts", "{'debug': False}"})
	fail(run, 12)
	add("lib:step", run, 12, lib, "1", Arg{"n", "1"})
	add("lib:step", run, 12, lib, "2", Arg{"n", "2"})
	step := add("lib:step", run, 12, lib, "", Arg{"n", "3"})
	fail(step, 22)
	check := add("lib:check", step, 22, lib, "", Arg{"v", "7"})
	fail(check, 31)
	add("lib:close", run, 15, lib, "None")
	add("lib:flush", len(frames)-1, 40, lib, "None")
	down := add("lib:shutdown", main, 9, lib, "None", Arg{"reason", "'error'"})
	for range 3 {
		add("lib:flush", down, 44, lib, "None")
	}
	add("lib:cleanup", -1, 0, lib, "None")
	add("lib:flush", len(frames)-1, 40, lib, "None")
	add("lib:cleanup", -1, 0, lib, "None")
	return newTrace("/p", frames...)
}

// TestCallTreeLeadsToTheFailure: a run that failed says where in its head, and its tree shows
// the calls leading there whatever the depth; the calls at exit are summed up in one line. Under
// the budget the calls after the failure fold first, then the calls below library functions off
// the path (not the entry script's), then values, then the middle is cut but for the failure
// path; the answer says how to open what was folded.
func TestCallTreeLeadsToTheFailure(t *testing.T) {
	tr := deepFailure()
	run := mustRunTree(t, tr, TreeOptions{Depth: 3}, false)
	assert.Equal(t, `Call tree of the run: 3 entry frames (depth 3, width 10):
Failed: ValueError: bad item 7, raised in lib:check#1 at line 31, 4 levels deep; the calls leading there are shown whatever the depth.
app:<module>#1() → raised ValueError (the failure)
  … imported lib: 1 call (call-tree lib:<module>#1 shows it)
  app:main#1() → raised ValueError (the failure)
    lib:configure#1() → {'debug': False}
      lib:setopt#1(k=0) → None
      lib:getopt#1(k=1) → None
      lib:parse#1(k=2) → None
      lib:store#1(k=3) → None
      lib:setopt#2(k=4) → None
      lib:getopt#2(k=5) → None
      lib:parse#2(k=6) → None
      lib:store#2(k=7) → None
      lib:setopt#3(k=8) → None
      lib:getopt#3(k=9) → None
      … 2 more calls (1 to parse, 1 to store)
    lib:register#1(i=0) → None
    lib:register#2(i=1) → None
    lib:register#3(i=2) → None
    lib:register#4(i=3) → None
    lib:register#5(i=4) → None
    lib:register#6(i=5) → None
    app:validate#1(opts={'debug': False}) → True
    lib:run#1(opts={'debug': False}) → raised ValueError (the failure)
      lib:step#1(n=1) → 1
      lib:step#2(n=2) → 2
      lib:step#3(n=3) → raised ValueError (the failure)
        lib:check#1(v=7) → raised ValueError (the failure)
      lib:close#1() → None  ⋯ 1 call below
    lib:shutdown#1(reason='error') → None
      lib:flush#2() → None
      lib:flush#3() → None
      lib:flush#4() → None
… at exit (after the main module ended): 2 calls to cleanup, 3 with their callees (adi call-tree lib:cleanup#1 shows the first)
`, faces.CLI.Render(run.Text(TextOptions{})))
	assert.Equal(t, &TreeFailure{FID: "lib:check#1", Exception: &Exception{Type: "ValueError", Message: "bad item 7", Line: 31}, Depth: 4}, run.Failure)
	main := run.Roots[0].Children[0]
	assert.True(t, main.Failure)
	assert.True(t, main.Children[8].Children[3].Teardown) // close, in run's finally
	assert.True(t, main.Children[9].Teardown)             // shutdown, in main's finally
	assert.Equal(t, []CallGroup{{Func: "lib:cleanup", Count: 2, First: "lib:cleanup#1"}}, run.ExitRoots)

	// under the budget: the calls below library calls off the failure path fold (calls after
	// the failure fold only where that is shorter)
	assert.Equal(t, `Call tree of the run: 3 entry frames (depth 3, width 10):
Failed: ValueError: bad item 7, raised in lib:check#1 at line 31, 4 levels deep; the calls leading there are shown whatever the depth.
app:<module>#1() → raised ValueError (the failure)
  … imported lib: 1 call (call-tree lib:<module>#1 shows it)
  app:main#1() → raised ValueError (the failure)
    lib:configure#1() → {'debug': False}
      … 12 calls (3 to setopt, 3 to getopt, 3 to parse, 3 to store) folded
    lib:register#1(i=0) → None
    lib:register#2(i=1) → None
    lib:register#3(i=2) → None
    lib:register#4(i=3) → None
    lib:register#5(i=4) → None
    lib:register#6(i=5) → None
    app:validate#1(opts={'debug': False}) → True
    lib:run#1(opts={'debug': False}) → raised ValueError (the failure)
      lib:step#1(n=1) → 1
      lib:step#2(n=2) → 2
      lib:step#3(n=3) → raised ValueError (the failure)
        lib:check#1(v=7) → raised ValueError (the failure)
      lib:close#1() → None  ⋯ 1 call below
    lib:shutdown#1(reason='error') → None
      … 3 calls to flush folded
… at exit (after the main module ended): 2 calls to cleanup, 3 with their callees (adi call-tree lib:cleanup#1 shows the first)
Folded: adi call-tree FUNC#N shows the calls folded below FUNC#N.
(shrunk to fit the 340-token budget: callees of library calls off the failure path folded)
`, faces.CLI.Render(run.Text(TextOptions{Budget: 340})))
	// tighter: the middle is cut, but not the failure path
	assert.Equal(t, `Call tree of the run: 3 entry frames (depth 3, width 10):
Failed: ValueError: bad item 7, raised in lib:check#1 at line 31, 4 levels deep; the calls leading there are shown whatever the depth.
app:<module>#1() → raised ValueError (the failure)
  … imported lib: 1 call (call-tree lib:<module>#1 shows it)
  app:main#1() → raised ValueError (the failure)
    lib:configure#1() → {'debug': False}
┆ … nodes 4–10 of 17 cut here to fit the budget
    lib:run#1(opts={'debug': False}) → raised ValueError (the failure)
┆ … nodes 12–13 of 17 cut here to fit the budget
      lib:step#3(n=3) → raised ValueError (the failure)
        lib:check#1(v=7) → raised ValueError (the failure)
┆ … nodes 16–17 of 17 cut here to fit the budget
… at exit (after the main module ended): 2 calls to cleanup, 3 with their callees (adi call-tree lib:cleanup#1 shows the first)
Folded: adi call-tree FUNC#N shows the calls folded below FUNC#N.
(shrunk to fit the 300-token budget: callees of library calls off the failure path folded; nodes 4–17 of 17 cut but for the failure path)
`, faces.CLI.Render(run.Text(TextOptions{Budget: 300})))

	for _, budget := range []int{200, 250, 300, 350, 400} {
		assert.LessOrEqual(t, Tokens(run.Text(TextOptions{Budget: budget})), budget, "budget %d", budget)
	}

	// more calls than the width: the callee on the failure path, the entry script's calls, then
	// the calls nearest the failure; the earlier ones are counted where they were made
	assert.Equal(t, `Call tree of app:main#1 (depth 1, width 4):
Failed: ValueError: bad item 7, raised in lib:check#1 at line 31, 3 levels deep; the calls leading there are shown whatever the depth.
app:main#1() → raised ValueError (the failure)
  … 5 earlier calls (1 to configure, 4 to register), 17 with their callees
  lib:register#5(i=4) → None
  lib:register#6(i=5) → None
  app:validate#1(opts={'debug': False}) → True
  lib:run#1(opts={'debug': False}) → raised ValueError (the failure)
    lib:step#1(n=1) → 1
    lib:step#2(n=2) → 2
    lib:step#3(n=3) → raised ValueError (the failure)
      lib:check#1(v=7) → raised ValueError (the failure)
    lib:close#1() → None  ⋯ 1 call below
  … 1 more call to shutdown, 4 with their callees
`, faces.CLI.Render(mustTree(t, tr, 2, TreeOptions{Depth: 1, Width: 4}).Text(TextOptions{})))
}

// TestFailurePaths: sys.exit(0) is no failure and sys.exit(2) is one; a run that ended inside its
// calls (os._exit, a kill) leads to the innermost call then active; a call made during an import
// (its values not rendered) folds first.
func TestFailurePaths(t *testing.T) {
	exit := func(status string, st Status) *Trace {
		mod := ret("t:<module>", 1, -1, 0, "/p/t.py", 1, "")
		main := ret("t:main", 1, 0, 9, "/p/t.py", 3, "")
		leave := ret("t:leave", 1, 8, 5, "/p/t.py", 7, "")
		hook := ret("t:hook", 1, 0, 2, "/p/t.py", 11, "None", Arg{"name", "<not rendered: during an import>"})
		hook.ArgsFP = ImportFP
		for _, f := range []*Frame{&mod, &main, &leave} {
			f.Status = st
			if st == Raised {
				f.Outcome = Raising(&Exception{Type: "SystemExit", Message: status, Line: 8})
			} else {
				f.Outcome = NoOutcome
			}
		}
		reg := func(n int) Frame {
			f := ret("t:register", n, 1, 12, "/p/t.py", 14, "None", Arg{"name", "<not rendered: during an import>"})
			f.ArgsFP = ImportFP
			return f
		}
		return newTrace("/p", mod, hook, reg(1), reg(2), reg(3), reg(4), reg(5), reg(6), main, leave)
	}
	assert.Nil(t, mustRunTree(t, exit("0", Raised), TreeOptions{}, false).Failure)
	assert.Equal(t, `Call tree of t:<module>#1 (depth 2, width 10):
Failed: SystemExit: 2, raised in t:leave#1 at line 8, 2 levels deep.
t:<module>#1() → raised SystemExit (the failure)
  t:hook#1(name=<not rendered: during an import>) → None
    t:register#1(name=<not rendered: during an import>) → None
    t:register#2(name=<not rendered: during an import>) → None
    t:register#3(name=<not rendered: during an import>) → None
    … 3 more calls to register
  t:main#1() → raised SystemExit (the failure)
    t:leave#1() → raised SystemExit (the failure)
`, mustRunTree(t, exit("2", Raised), TreeOptions{}, false).Text(TextOptions{}))
	assert.Equal(t, `Call tree of t:<module>#1 (depth 2, width 10):
Unfinished: the run ended in t:leave#1, 2 levels deep.
t:<module>#1() → (unfinished)
  … during an import, folded: 1 call to hook, 7 with their callees
  t:main#1() → (unfinished)
    t:leave#1() → (unfinished)
Folded: adi call-tree FUNC#N shows the calls folded below FUNC#N.
(shrunk to fit the 110-token budget: calls after the failure and during imports folded)
`, faces.CLI.Render(mustRunTree(t, exit("", Unfinished), TreeOptions{}, false).Text(TextOptions{Budget: 110})))
}

// TestCallTreeOverview: a node shows its calls as an overview: the arguments a call left at their
// literal defaults are left out, at most perFunction calls of one function are shown, and calls
// of plumbing dunders (__eq__, __hash__) are counted with the calls left out, not shown.
func TestCallTreeOverview(t *testing.T) {
	dir := t.TempDir()
	app := filepath.Join(dir, "app.py")
	require.NoError(t, os.WriteFile(app, []byte("def main():\n    pass\ndef fmt(x, sep=', ', strict=False, base=10):\n    pass\n"), 0o644))
	frames := []Frame{ret("app:main", 1, -1, 0, app, 1, "None")}
	for k := 1; k <= 5; k++ {
		frames = append(frames,
			ret("app:fmt", k, 0, 2, app, 3, "'x'", Arg{"x", strconv.Itoa(k)}, Arg{"sep", "', '"}, Arg{"strict", "True"}, Arg{"base", "10"}),
			ret("app:Key.__eq__", k, 0, 2, app, 9, "False", Arg{"self", "k"}, Arg{"other", "j"}))
	}
	frames = append(frames, ret("app:Key.__init__", 1, 0, 2, app, 9, "None", Arg{"self", "k"}))
	tr := newTrace(dir, frames...)
	assert.Equal(t, `Call tree of app:main#1 (depth 2, width 10):
app:main#1() → None
  app:fmt#1(x=1, strict=True) → 'x'
  app:fmt#2(x=2, strict=True) → 'x'
  app:fmt#3(x=3, strict=True) → 'x'
  app:Key.__init__#1(self=k) → None
  … 7 more calls (5 to Key.__eq__, 2 to fmt)
`, mustTree(t, tr, 0, TreeOptions{}).Text(TextOptions{}))
}

// TestCallTreeFailingFrameKeepsTheWidth: the frame a failure was raised in shows its calls up to
// the width, in order, like any frame on the failure path.
func TestCallTreeFailingFrameKeepsTheWidth(t *testing.T) {
	const app = "/p/app.py"
	work := ret("app:work", 1, -1, 0, app, 1, "")
	work.Status, work.Outcome = Raised, Raising(&Exception{Type: "ValueError", Message: "", Line: 4})
	frames := []Frame{work}
	for k := 1; k <= 30; k++ {
		frames = append(frames, ret("app:helper", k, 0, 3, app, 6, "None", Arg{"i", strconv.Itoa(k - 1)}))
	}
	tree := mustTree(t, newTrace("/p", frames...), 0, TreeOptions{Width: 3})
	assert.Equal(t, `Call tree of app:work#1 (depth 2, width 3):
app:work#1() → raised ValueError
  app:helper#1(i=0) → None
  app:helper#2(i=1) → None
  app:helper#3(i=2) → None
  … 27 more calls to helper
`, tree.Text(TextOptions{}))
}
