package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/examples"
	"github.com/adi-bridge/adi/internal/faces"
)

// workdir returns a fresh directory holding orders.py and the named files: testdata/engine's, or
// the probe's unit-test fixtures (programs both test suites run, kept once).
func workdir(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "orders.py"), examples.Orders, 0o644))
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", "engine", f))
		if os.IsNotExist(err) {
			b, err = os.ReadFile(filepath.Join("..", "probe", "python", "tests", "fixtures", f))
		}
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	return dir
}

// newSession records cmd in dir with a real probe run.
func newSession(t *testing.T, dir, cmd string, mod ...func(*bridge.Options)) *bridge.Session {
	t.Helper()
	needPython(t)
	opts := bridge.Options{Command: cmd, Dir: dir}
	for _, m := range mod {
		m(&opts)
	}
	s, err := bridge.NewSession(testContext(t, 2*time.Minute), opts,
		bridge.SessionConfig{ID: "t", Dir: filepath.Join(t.TempDir(), "session"), Log: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

// do runs one command line and returns its answer.
func do(t *testing.T, s *bridge.Session, line string) *bridge.Answer {
	t.Helper()
	cmd, err := adi.ParseCommand(line)
	require.NoError(t, err, line)
	ans, err := s.Do(testContext(t, 2*time.Minute), cmd, adi.TextOptions{})
	require.NoError(t, err, line)
	ans.Text = faces.CLI.Render(ans.Text) // in the words of the command language, the CLI's
	return ans
}

// doErr runs one command line that must fail and returns the error text.
func doErr(t *testing.T, s *bridge.Session, line string) error {
	t.Helper()
	cmd, err := adi.ParseCommand(line)
	if err != nil {
		return err
	}
	ans, err := s.Do(testContext(t, 2*time.Minute), cmd, adi.TextOptions{})
	require.Error(t, err, "%s answered:\n%v", line, ans)
	return err
}

// runCount is how many runs the session has started (a re-run that added nothing leaves no
// directory, so the directories do not count them).
func runCount(t *testing.T, s *bridge.Session) int {
	t.Helper()
	return s.Runs()
}

// TestEngineDemoInvestigation follows the paper's loop on the demo bug with real runs: call-tree,
// a conditional break evaluated on live values, continue/prev answered from the recording,
// step-out/step-into, and execute under debugpy.
func TestEngineDemoInvestigation(t *testing.T) {
	s := newSession(t, workdir(t), "python orders.py")
	assert.Equal(t, "total: 29.0\n", string(s.Base().Stdout))
	assert.Equal(t, 12, s.Trace().Len())
	assert.Equal(t, 1, runCount(t, s))

	tree := do(t, s, "call-tree --depth 4").Text
	assert.Contains(t, tree, "        orders:bulk_rate#3(qty=10, rate=0.15) → 0.0\n")
	assert.Contains(t, tree, "      orders:line_total#3(item={'name': 'melon', 'qty': 10, 'price': 2…, rules={'apple': 0.1, 'melon': 0.…) → 20.0\n")

	br := do(t, s, "break bulk_rate rate > 0").Text
	assert.Contains(t, br, "break → orders:bulk_rate#1  (the first of 2 invocations where the condition held; adi continue moves to the next)")
	assert.Contains(t, br, "Args: qty = 12, rate = 0.1\n\n  16 | if qty > BULK_QUANTITY:  → True\n  17 | return rate\n\nReturn: 0.1\n")
	runs := runCount(t, s)
	assert.Equal(t, 2, runs, "one run evaluates the condition on live values")

	c1 := do(t, s, "continue").Text
	assert.Contains(t, c1, "continue → orders:bulk_rate#3  (breakpoint orders:bulk_rate if rate > 0; hit 2 of 2)")
	assert.Contains(t, c1, "Args: qty = 10, rate = 0.15\n\n  16 | if qty > BULK_QUANTITY:  → False\n  18 | return 0.0\n\nReturn: 0.0\n")
	c2 := do(t, s, "continue").Text
	assert.Contains(t, c2, "no further hit")
	p := do(t, s, "prev").Text
	assert.Contains(t, p, "prev → orders:bulk_rate#1")
	// Navigation re-ran nothing: the first run recorded every frame's FLT (eager FLTs).
	assert.Equal(t, runs, runCount(t, s))

	out := do(t, s, "step-out").Text
	assert.Contains(t, out, "Frame: orders:line_total#1")
	assert.Contains(t, do(t, s, "step-out").Text, "Frame: orders:price_items#1")
	assert.Contains(t, do(t, s, "step-out").Text, "Frame: orders:invoice#1")
	lt := do(t, s, "step-into line_total#3").Text
	assert.Contains(t, lt, "  22 | rate = bulk_rate(item[\"qty\"], rules.get(item[\"name\"], 0.0))\n     |   + rate = 0.0\n     |   → orders:bulk_rate#3 → 0.0\n")
	assert.Contains(t, lt, "  23 | subtotal = item[\"qty\"] * item[\"price\"]\n     |   + subtotal = 20.0\n")
	assert.Contains(t, lt, "Return: 20.0")
	// Not even for frames no breakpoint matched (step-out to the callers, step-into).
	assert.Equal(t, runs, runCount(t, s))

	ex := do(t, s, "exec bulk_rate#3 -l 16 qty, BULK_QUANTITY, qty > BULK_QUANTITY")
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: qty, BULK_QUANTITY, qty > BULK_QUANTITY\nOutput: (none)\nValue: (10, 10, False)\n", ex.Text)
	pr := do(t, s, "exec line_total#3 print('subtotal is', subtotal)")
	assert.Equal(t, "Exec at orders:line_total#3, line 25, visit 1: print('subtotal is', subtotal)\nOutput:\n  subtotal is 20.0\n", pr.Text)
	bad := do(t, s, "exec bulk_rate#3 qty / 0")
	assert.Contains(t, bad.Text, "Raised: ZeroDivisionError: division by zero")

	// execute changed nothing: T, Σ and the source are as they were.
	st := do(t, s, "state").Text
	assert.Contains(t, st, "orders:line_total#3")
	assert.Equal(t, 12, s.Trace().Len())
	src, err := os.ReadFile(filepath.Join(s.Info().Dir, "orders.py"))
	require.NoError(t, err)
	assert.Equal(t, string(examples.Orders), string(src))
}

// TestEngineExecThenContinue validates a fix hypothesis without editing a file: a failing pytest
// test passes once the statement perturbs the frame.
func TestEngineExecThenContinue(t *testing.T) {
	s := newSession(t, workdir(t, "test_orders.py"), "python -m pytest test_orders.py -q -p no:cacheprovider")
	require.True(t, s.Base().Failed(), "the test fails before the perturbation")
	ans := do(t, s, "exec bulk_rate#3 -l 16 --then-continue qty = 11")
	assert.Contains(t, ans.Text, "Then continued: the frame returned 0.15; the program ended: it now succeeds (exit 0; it exited 1 before).")
	assert.Contains(t, ans.Text, "1 passed")
}

// TestEngineBadInput checks that each bad input gets a one-line answer that says what to do, and
// that the session stays usable after each.
func TestEngineBadInput(t *testing.T) {
	s := newSession(t, workdir(t), "python orders.py")
	cases := []struct{ line, want string }{
		{"break bulk_rat", `no function "bulk_rat" in the recording; closest: orders:bulk_rate`},
		{"step-into bulk_rate#7", "orders:bulk_rate#7: orders:bulk_rate was called 3 time(s); use an index from 1 to 3"},
		{"exec bulk_rate#3 -l 17 qty", "orders:bulk_rate#3 never reaches line 17 (it runs lines 16, 18); pick one of those with -l"},
		{"exec bulk_rate#3 -l 16 -k 2 qty", "orders:bulk_rate#3 reaches line 16 only 1 time(s); use -k from 1 to 1"},
	}
	for _, c := range cases {
		err := doErr(t, s, c.line)
		assert.Equal(t, c.want, err.Error(), c.line)
		assert.NotContains(t, err.Error(), "\n")
	}
	// A condition with a syntax error is refused (and not kept); one that raises is reported.
	syn := doErr(t, s, "break bulk_rate rate >")
	assert.Equal(t, "condition 'rate >' is not a Python expression: invalid syntax", syn.Error())
	assert.NotContains(t, do(t, s, "list").Text, "rate >")
	raises := do(t, s, "break line_total nope > 1").Text
	assert.Contains(t, raises, "Condition error: NameError: name 'nope' is not defined (at orders:line_total#1, counted as false; 3 evaluation(s) failed)")
	syntaxStmt := do(t, s, "exec bulk_rate#1 x = = 1").Text
	assert.Contains(t, syntaxStmt, "Raised: SyntaxError")
	assert.Contains(t, do(t, s, "step-into bulk_rate#2").Text, "Frame: orders:bulk_rate#2")
}

// TestEngineTargetsThatFail covers targets that crash, never end, or read stdin.
func TestEngineTargetsThatFail(t *testing.T) {
	dir := workdir(t, "crash.py", "forever.py", "reads_stdin.py", "numbers.txt")

	crash := newSession(t, dir, "python crash.py")
	assert.True(t, crash.Base().Failed())
	assert.Contains(t, string(crash.Base().Stderr), "ValueError: invalid literal for int() with base 10: 'x'")
	flt := do(t, crash, "flt parse#3").Text
	assert.Contains(t, flt, "Raised: ValueError: invalid literal for int() with base 10: 'x'")

	forever := newSession(t, dir, "python forever.py", func(o *bridge.Options) { o.Timeout = 3 * time.Second })
	assert.True(t, forever.Base().TimedOut)
	// asked to stop at its limit, the probe wrote what it recorded: cut there, not partial
	assert.False(t, forever.Trace().Partial)
	assert.Equal(t, int64(3000), forever.Trace().TimeLimitMS)
	assert.Equal(t, "stopped", forever.Base().Rec.Result.Exit.Kind)
	st := do(t, forever, "state").Text
	assert.Contains(t, st, "Note: the run was stopped after its 3 s time limit; the recording ends there (3 calls).")
	assert.Contains(t, do(t, forever, "call-tree").Text, "forever:<module>#1() → (unfinished)\n  forever:main#1() → (unfinished)\n    forever:spin#1(n=0) → (unfinished)\n")
	assert.Equal(t, "spinning\n", string(forever.Base().Stdout))

	noInput := newSession(t, dir, "python reads_stdin.py")
	assert.Equal(t, "got 0 numbers; total 0\n", string(noInput.Base().Stdout))
	withInput := newSession(t, dir, "python reads_stdin.py < numbers.txt")
	assert.Equal(t, "got 3 numbers; total 12\n", string(withInput.Base().Stdout))
}

// TestEngineRefusesBadTargets checks the errors for targets that cannot run at all.
func TestEngineRefusesBadTargets(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	for cmd, want := range map[string]string{
		"python missing.py":          "cannot run " + filepath.Join(dir, "missing.py") + ": no such file",
		"python t.py | grep x":       "target must be a plain python command (found a pipeline '|')",
		"bash run.sh":                "target must be a plain python command",
		"python sol.py < nothere.in": "no such file",
	} {
		_, err := bridge.NewSession(context.Background(), bridge.Options{Command: cmd, Dir: dir},
			bridge.SessionConfig{ID: "x", Dir: filepath.Join(t.TempDir(), "s")})
		require.Error(t, err, cmd)
		assert.True(t, strings.Contains(err.Error(), want), "%s: got %q", cmd, err)
		assert.NotContains(t, err.Error(), "\n")
	}
}

// TestEngineBreakOnAHotFunction sets a breakpoint on a function called 250 times: the answer
// counts every match, its JSON names the first 100 (not all), and its text the first 10; a
// condition's answer counts its matches and shows the first.
func TestEngineBreakOnAHotFunction(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "hot.py"), []byte("def sq(x):\n    return x * x\n\n\nprint(sum(sq(i) for i in range(250)))\n"), 0o644))
	s := newSession(t, dir, "python hot.py")
	ans := do(t, s, "break sq")
	assert.Equal(t, "Breakpoint set: hot:sq  (every call); hot:sq was called 250 time(s); 1 breakpoint(s) in all.\n"+
		"Matches 250 invocation(s): hot:sq#1, hot:sq#2, hot:sq#3, hot:sq#4, hot:sq#5, hot:sq#6, hot:sq#7, hot:sq#8, hot:sq#9, hot:sq#10 … and 240 more. Next: adi continue.\n",
		ans.Text)
	var got struct {
		Matches int      `json:"matches"`
		Hits    []string `json:"hits"`
	}
	b, err := json.Marshal(ans.Result)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, 250, got.Matches)
	require.Len(t, got.Hits, 100)
	assert.Equal(t, "hot:sq#1", got.Hits[0])
	assert.Equal(t, "hot:sq#100", got.Hits[99])

	do(t, s, "clear")
	cond := do(t, s, "break sq x >= 3")
	assert.Equal(t, "break → hot:sq#4  (the first of 247 invocations where the condition held; adi continue moves to the next)\n\n"+
		"Frame: hot:sq#4   (caller hot:<module>#1, line 5)\nArgs: x = 3\n\n   2 | return x * x\n\nReturn: 9\n", cond.Text)
	assert.True(t, strings.HasPrefix(do(t, s, "continue").Text, "continue → hot:sq#5  (breakpoint hot:sq if x >= 3; hit 2 of 247)\n"))
}

// TestEngineExecStandby checks that after an exec --then-continue (the exec that runs under
// debugpy) the session keeps a run ready under debugpy for the next one, that the next exec
// --then-continue runs in it (the statement reports the pid of the process it ran in: the standby's
// debuggee), that a plain exec neither takes it nor needs it, that the answers are those of a cold
// run, and that closing the session ends the standby.
func TestEngineExecStandby(t *testing.T) {
	s := newSession(t, workdir(t), "python orders.py")
	const then = "Then continued: the frame returned 0.0; the program ended: exit 0, the same as before.\n" +
		"Output after the statement (tail):\n  total: 29.0\n"
	const want = "Exec at orders:bulk_rate#3, line 16, visit 1: qty\nOutput: (none)\nValue: 10\n" + then
	assert.Equal(t, want, do(t, s, "exec bulk_rate#3 -l 16 --then-continue qty").Text)

	standby := func() int {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			require.True(t, time.Now().Before(deadline), "no standby run appeared after the exec")
			if pids := procsWhere(func(pid int) bool { return hasArgs(pid, "--standby", s.Dir, "--connect") }); len(pids) == 1 {
				return pids[0]
			}
		}
	}
	debuggee := standby()
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: qty\nOutput: (none)\nValue: 10\n",
		do(t, s, "exec bulk_rate#3 -l 16 qty").Text, "a plain exec runs without debugpy")
	plain := do(t, s, "exec bulk_rate#3 -l 16 __import__('os').getpid(), 'pydevd' in __import__('sys').modules")
	v := plain.Result.(*adi.ExecResult).Value
	require.NotNil(t, v)
	assert.NotEqual(t, fmt.Sprintf("(%d, False)", debuggee), *v)
	assert.Regexp(t, `^\(\d+, False\)$`, *v, "a plain exec runs in a process of its own, without pydevd")
	assert.Equal(t, debuggee, standby(), "a plain exec leaves the standby alone")
	assert.Equal(t, fmt.Sprintf("Exec at orders:bulk_rate#3, line 16, visit 1: __import__('os').getpid()\nOutput: (none)\nValue: %d\n", debuggee)+then,
		do(t, s, "exec bulk_rate#3 -l 16 --then-continue __import__('os').getpid()").Text, "the exec ran in the standby's debuggee")
	assert.Equal(t, want, do(t, s, "exec bulk_rate#3 -l 16 --then-continue qty").Text)

	s.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := procsWhere(func(pid int) bool { return hasArgs(pid, "--standby", s.Dir) })
		if len(left) == 0 {
			break
		}
		require.True(t, time.Now().Before(deadline), "the standby outlived its session: %v", left)
	}
}

// TestEngineExecWithoutDebugpy checks the plain exec: the probe runs the statement itself in a run
// without debugpy (pydevd is not loaded, no debug run is kept ready), in one run when the frame's
// FLT is not cached (eager FLTs off), with the same answers as before: the value, what the
// statement prints, its exception, and where the frame never goes, from the FLT of a second run
// (the exec's own writes no T; the FLT is then cached).
func TestEngineExecWithoutDebugpy(t *testing.T) {
	s := newSession(t, workdir(t), "python orders.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	runs := runCount(t, s)
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: qty, 'pydevd' in __import__('sys').modules, 'debugpy' in __import__('sys').modules\n"+
		"Output: (none)\nValue: (10, False, False)\n",
		do(t, s, "exec bulk_rate#3 -l 16 qty, 'pydevd' in __import__('sys').modules, 'debugpy' in __import__('sys').modules").Text)
	assert.Equal(t, runs+1, runCount(t, s), "one run: the FLT was not cached")
	_, err := os.Stat(filepath.Join(s.Dir, "runs", fmt.Sprintf("%04d", runs)))
	assert.True(t, os.IsNotExist(err), "an exec's run leaves nothing on disk: %v", err)

	// The default line is the frame's last: its FLT first, then the exec.
	runs = runCount(t, s)
	assert.Equal(t, "Exec at orders:line_total#3, line 25, visit 1: print('subtotal is', subtotal)\nOutput:\n  subtotal is 20.0\n",
		do(t, s, "exec line_total#3 print('subtotal is', subtotal)").Text)
	assert.Equal(t, runs+2, runCount(t, s))
	runs = runCount(t, s)
	raised := do(t, s, "exec line_total#3 -l 24 print(subtotal)\nsubtotal / 0")
	assert.Equal(t, "Exec at orders:line_total#3, line 24, visit 1: print(subtotal) …\nOutput:\n  20.0\nRaised: ZeroDivisionError: float division by zero\n  statement line 2: subtotal / 0\n",
		raised.Text)
	assert.Equal(t, &adi.Exception{Type: "ZeroDivisionError", Message: "float division by zero", Line: 2},
		raised.Result.(*adi.ExecResult).Exception, "the exception's line within the statement")
	assert.Equal(t, runs+1, runCount(t, s), "the FLT is cached: one run")

	// Never reached: the exec's run writes no T, so it says only that it missed the stop; a second
	// run records the FLT that says where the frame goes, and it is cached.
	runs = runCount(t, s)
	assert.Equal(t, "orders:bulk_rate#2 never reaches line 17 (it runs lines 16, 18); pick one of those with -l",
		doErr(t, s, "exec bulk_rate#2 -l 17 qty").Error())
	assert.Equal(t, runs+2, runCount(t, s))
	_, err = os.Stat(filepath.Join(s.Dir, "runs", fmt.Sprintf("%04d", runs)))
	assert.True(t, os.IsNotExist(err), "the run that missed the stop leaves nothing on disk: %v", err)
	assert.Contains(t, do(t, s, "flt bulk_rate#2").Text, "Return: 0.0")
	assert.Equal(t, runs+2, runCount(t, s), "the FLT of the second run was cached")
	assert.Equal(t, "orders:bulk_rate#1 reaches line 16 only 1 time(s); use -k from 1 to 1",
		doErr(t, s, "exec bulk_rate#1 -l 16 -k 2 qty").Error())
	assert.Equal(t, runs+4, runCount(t, s))

	// No debug run is kept ready after plain execs (only the probe process for the next re-run).
	time.Sleep(time.Second)
	assert.Empty(t, procsWhere(func(pid int) bool { return hasArgs(pid, "--standby", filepath.Join(s.Dir, "standby-")) }))

	// --then-continue still runs under debugpy.
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: 'pydevd' in __import__('sys').modules\nOutput: (none)\nValue: True\n"+
		"Then continued: the frame returned 0.0; the program ended: exit 0, the same as before.\n"+
		"Output after the statement (tail):\n  total: 29.0\n",
		do(t, s, "exec bulk_rate#3 -l 16 --then-continue 'pydevd' in __import__('sys').modules").Text)
}
