package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/cli"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/live"
	"github.com/adi-bridge/adi/server"
)

// Live mode end to end: real debugpy, real Python programs (testdata/live), the states, the
// refusals, interact, the watchdog, stdin, pytest and unittest, restart, and InspectCoder's three
// patterns scripted as an agent on a fixture bug (cart.py, test_cart.py).

// liveMarkVar marks every process of a test's live sessions, so the test can check that none
// outlives its session.
const liveMarkVar = "ADI_LIVE_TEST_MARK"

// liveEnv is a working directory holding a copy of testdata/live, and the mark of its processes.
type liveEnv struct {
	dir  string
	mark string
	reg  *bridge.Manager
}

func newLiveEnv(t *testing.T) *liveEnv {
	t.Helper()
	needPython(t)
	dir := t.TempDir()
	src := testdata(t, "live")
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644))
	}
	var m [6]byte
	_, _ = rand.Read(m[:])
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), Log: testLogger(t)})
	require.NoError(t, err)
	le := &liveEnv{dir: dir, mark: hex.EncodeToString(m[:]), reg: mgr}
	t.Cleanup(func() {
		le.reg.Shutdown()
		assert.Empty(t, waitLiveProcsGone(le.mark, 10*time.Second), "processes of the test's live sessions outlived them")
	})
	return le
}

// start starts a live session on cmd with a watchdog of limit.
func (le *liveEnv) start(t *testing.T, cmd string, limit time.Duration) (*live.Session, *live.Answer) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, ans, err := live.Launch(ctx, le.reg, "", false, live.Options{Command: cmd, Dir: le.dir, Timeout: limit,
		Env: []string{liveMarkVar + "=" + le.mark}})
	require.NoError(t, err)
	return s, wsWords(ans)
}

// wsWords renders an answer's messages in the JSON-RPC API's names of commands (package faces),
// as a client of the server reads them.
func wsWords(ans *live.Answer) *live.Answer {
	ans.Text, ans.Why = faces.WebSocket.Render(ans.Text), faces.WebSocket.Render(ans.Why)
	return ans
}

// wsError is an error's message in the JSON-RPC API's names of commands.
func wsError(err error) string { return faces.WebSocket.Render(err.Error()) }

// lv runs one command that must be answered.
func lv(t *testing.T, s *live.Session, c live.Cmd) *live.Answer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ans, err := s.Do(ctx, c)
	require.NoError(t, err, "%s", c.Name)
	return wsWords(ans)
}

// lvRefused runs one command that must be refused.
func lvRefused(t *testing.T, s *live.Session, c live.Cmd) *live.RefusedError {
	t.Helper()
	_, err := s.Do(context.Background(), c)
	var re *live.RefusedError
	require.True(t, errors.As(err, &re), "%s should be refused, got %v", c.Name, err)
	return re
}

func bp(loc string) live.Cmd { return live.Cmd{Name: live.CmdSetBreakpoint, Location: loc} }
func interact(code string) live.Cmd {
	return live.Cmd{Name: live.CmdInteract, Code: code}
}

var (
	cont    = live.Cmd{Name: live.CmdContinue}
	restart = live.Cmd{Name: live.CmdRestart}
	stack   = live.Cmd{Name: live.CmdStack}
	where   = live.Cmd{Name: live.CmdWhere}
	status  = live.Cmd{Name: live.CmdStatus}
)

// frames writes a stack innermost last, as FILE:LINE FUNCTION.
func frames(a *live.Answer) []string {
	var out []string
	for i := len(a.Stack) - 1; i >= 0; i-- {
		f := a.Stack[i]
		out = append(out, fmt.Sprintf("%s:%d %s", filepath.Base(f.File), f.Line, f.Function))
	}
	return out
}

// interactResult decodes interact's result.
func interactResult(t *testing.T, a *live.Answer) live.InteractResult {
	t.Helper()
	b, err := json.Marshal(a.Result)
	require.NoError(t, err)
	var r live.InteractResult
	require.NoError(t, json.Unmarshal(b, &r))
	return r
}

func value(t *testing.T, a *live.Answer) string {
	t.Helper()
	r := interactResult(t, a)
	require.Nil(t, r.Exception, "interact raised: %v", r.Exception)
	require.NotNil(t, r.Value, "interact gave no value: %s", a.Text)
	return *r.Value
}

// liveProcs lists the live processes (zombies excluded) carrying liveMarkVar=mark.
func liveProcs(mark string) []int {
	return procsWhere(func(pid int) bool { return hasEnv(pid, liveMarkVar+"="+mark) })
}

func waitLiveProcsGone(mark string, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		left := liveProcs(mark)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLiveStates walks a script through every state: Start, Runtime (a breakpoint),
// RuntimeError (the ZeroDivisionError leaving the program's code), PostMortem (uncaught, frames
// still inspectable), Done; and checks every refusal on the way.
func TestLiveStates(t *testing.T) {
	le := newLiveEnv(t)
	s, ans := le.start(t, "python states.py", 10*time.Second)
	assert.Equal(t, live.Start, ans.State)
	assert.Equal(t, "launched under debugpy; no line has run yet (live.continue starts it)", ans.Why)
	assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "restart", "status", "close", "watch", "unwatch", "caught", "flt"}, ans.Valid)
	assert.Contains(t, ans.Text, "── live "+s.ID+" · Start · run 1: launched under debugpy; no line has run yet (live.continue starts it)\n")

	// Start: nothing is paused.
	for _, c := range []live.Cmd{interact("1"), stack, where} {
		re := lvRefused(t, s, c)
		assert.Equal(t, "live."+c.Name+" is refused in state Start (launched under debugpy; no line has run yet (live.continue starts it)): the program has not started yet, so nothing is paused; set a breakpoint (live.set_breakpoint), then live.continue. Valid now: live.set_breakpoint, live.clear, live.continue, live.restart, live.status, live.close, live.watch, live.unwatch, live.caught, live.flt", wsError(re))
		assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "restart", "status", "close", "watch", "unwatch", "caught", "flt"}, re.Valid)
	}

	ans = lv(t, s, bp("states.py:2"))
	assert.Equal(t, "Breakpoint set at states.py:2: return a / b\nIt is removed once hit (pass keep to keep it); live.restart sets it again.\n\n", strings.SplitAfter(ans.Text, "again.\n\n")[0])
	ans = lv(t, s, live.Cmd{Name: live.CmdSetBreakpoint, Location: "states.py:2", Condition: "b == 0", Keep: true})
	assert.True(t, strings.HasPrefix(ans.Text, "Breakpoint replaced at states.py:2: return a / b  (only when b == 0)\nIt stays after each hit (keep); live.clear removes it.\n"), ans.Text)

	// Runtime: at the breakpoint, only when b == 0 (the third call).
	ans = lv(t, s, cont)
	assert.Equal(t, live.Runtime, ans.State)
	assert.Equal(t, "paused at breakpoint states.py:2 in divide (hit 1)", ans.Why)
	assert.Equal(t, []string{"states.py:14 <module>", "states.py:9 main", "states.py:2 divide"}, frames(ans))
	assert.Equal(t, "starting\n", ans.Output.Stdout)
	assert.Equal(t, "0", value(t, lv(t, s, interact("b"))))
	assert.Equal(t, "[3.0, 6.0]", value(t, lv(t, s, live.Cmd{Name: live.CmdInteract, Code: "out", Frame: 1})), "frame 1 is main")
	w := lv(t, s, where)
	assert.True(t, strings.HasPrefix(w.Text, "At states.py:2 in divide:\n  1 | def divide(a, b):\n> 2 |     return a / b\n  3 | \n  4 | \n  5 | def main():\n"), w.Text)

	// RuntimeError: the exception is leaving the program's code.
	ans = lv(t, s, cont)
	assert.Equal(t, live.RuntimeError, ans.State)
	assert.Equal(t, "paused on ZeroDivisionError: division by zero, raised at states.py:2 in divide, as it leaves the program's code at states.py:14 in <module>", ans.Why)
	require.NotNil(t, ans.Exception)
	assert.Equal(t, live.Exception{Type: "ZeroDivisionError", Message: "division by zero", Mode: "leaving_user_code"}, *ans.Exception)
	assert.Equal(t, []string{"states.py:14 <module>", "states.py:9 main", "states.py:2 divide"}, frames(ans))
	assert.True(t, ans.Stack[2].Current, "paused in <module>, where the exception leaves the program's code")
	assert.Equal(t, "12", value(t, lv(t, s, interact("a"))))
	assert.Contains(t, lv(t, s, stack).Text, "#1 states.py:9 in main\n   out.append(divide(12, v))\n     out = [3.0, 6.0]\n     v = 0\n     values = [4, 2, 0]\n#0 states.py:2 in divide\n   return a / b\n     a = 12\n     b = 0\n")

	// PostMortem: uncaught; the frames of the traceback stay inspectable.
	ans = lv(t, s, cont)
	assert.Equal(t, live.PostMortem, ans.State)
	assert.Equal(t, "the program is ending by an uncaught ZeroDivisionError: division by zero, raised at states.py:2 in divide; its frames are kept for inspection", ans.Why)
	assert.Equal(t, "uncaught", ans.Exception.Mode)
	assert.Equal(t, "12", value(t, lv(t, s, interact("a"))))
	ans = lv(t, s, bp("states.py:9"))
	assert.Contains(t, ans.Text, "The program is ending by an uncaught exception and runs none of its code again: the breakpoint applies from the next live.restart.")
	assert.Equal(t, live.PostMortem, ans.State)

	// Done.
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "the program exited with status 1", ans.Why)
	require.NotNil(t, ans.ExitCode)
	assert.Equal(t, 1, *ans.ExitCode)
	assert.Equal(t, "Traceback (most recent call last):\n  File \""+filepath.Join(le.dir, "states.py")+"\", line 14, in <module>\n    main()\n", ans.Output.Stderr[:len("Traceback (most recent call last):\n  File \""+filepath.Join(le.dir, "states.py")+"\", line 14, in <module>\n    main()\n")])
	assert.True(t, strings.HasSuffix(ans.Output.Stderr, "ZeroDivisionError: division by zero\n"), ans.Output.Stderr)
	assert.Empty(t, ans.Stack)

	re := lvRefused(t, s, interact("1"))
	assert.Equal(t, "live.interact is refused in state Done (the program exited with status 1): the program has ended, so there is no frame left; live.restart runs it again. Valid now: live.set_breakpoint, live.clear, live.restart, live.status, live.close, live.unwatch, live.caught, live.flt", wsError(re))
	re = lvRefused(t, s, cont)
	assert.Equal(t, "live.continue is refused in state Done (the program exited with status 1): the program has ended; live.restart runs it again. Valid now: live.set_breakpoint, live.clear, live.restart, live.status, live.close, live.unwatch, live.caught, live.flt", wsError(re))
	lvRefused(t, s, stack)
	lvRefused(t, s, where)
	ans = lv(t, s, bp("states.py:7"))
	assert.Contains(t, ans.Text, "The program has ended: the breakpoint applies from the next live.restart.")
	ans = lv(t, s, status)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "Output since the last answer: (none)", strings.Split(ans.Text, "\n")[4])
	closed, err := live.Close(le.reg, s.ID)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(closed.Text, "Closed live session "+s.ID+"; every process of it has ended.\n"), closed.Text)
	assert.Contains(t, faces.WebSocket.Render(closed.Text), "The session is closed; live.start starts a new one.\n")
	_, err = s.Do(context.Background(), status)
	assert.Equal(t, "live session "+s.ID+" was closed while the command ran; start a new one with live.start", wsError(err))
	_, err = live.Of(le.reg, s.ID)
	assert.Equal(t, `no live session "`+s.ID+`" (closed); start one with live.start`, wsError(err))
}

// TestLiveInteract runs statements in the paused frame: output captured, a final expression's
// value, assignments kept, an exception reported while the program stays paused on the same line,
// and code that runs too long interrupted by the watchdog.
func TestLiveInteract(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python states.py", 2*time.Second)
	lv(t, s, bp("states.py:9"))
	ans := lv(t, s, cont)
	require.Equal(t, "paused at breakpoint states.py:9 in main (hit 1)", ans.Why)

	ans = lv(t, s, interact("print('values', values)\nfor x in values[:2]:\n    print(x * 10)\nlen(values)"))
	r := interactResult(t, ans)
	assert.Equal(t, "values [4, 2, 0]\n40\n20\n", r.Output)
	require.NotNil(t, r.Value)
	assert.Equal(t, "3", *r.Value)
	assert.True(t, strings.HasPrefix(ans.Text, "interact in frame #0, states.py:9 in main:\nOutput:\n  values [4, 2, 0]\n  40\n  20\nChanged: x = 2 (the program runs on with the new values)\nValue: 3\n\n── live "), ans.Text)
	assert.Equal(t, []live.Variable{{Name: "x", Value: "2"}}, r.Changed)
	assert.Empty(t, ans.Output.Stdout, "interact's output is its own, not the program's")

	// An exception inside: reported, what ran before it is kept, still paused on the same line.
	ans = lv(t, s, interact("probe = 41\nprobe += 1\nvalues[7]"))
	r = interactResult(t, ans)
	assert.Equal(t, []live.Variable{{Name: "probe", Value: "42"}}, r.Changed)
	require.NotNil(t, r.Exception)
	assert.Equal(t, adi.Exception{Type: "IndexError", Message: "list index out of range", Line: 3}, *r.Exception)
	assert.Equal(t, []string{"statement line 3: values[7]"}, r.Traceback)
	assert.Contains(t, ans.Text, "Raised: IndexError: list index out of range\n  statement line 3: values[7]\nThe exception stayed inside interact: the program is still paused at states.py:9 in main; what ran before it (assignments) is kept.\n")
	assert.Equal(t, live.Runtime, ans.State)
	assert.Equal(t, []string{"states.py:14 <module>", "states.py:9 main"}, frames(ans))
	assert.Equal(t, "42", value(t, lv(t, s, interact("probe"))))

	// An error inside a function the code calls shows that function in the traceback.
	r = interactResult(t, lv(t, s, interact("divide(1, 0)")))
	assert.Equal(t, "ZeroDivisionError", r.Exception.Type)
	assert.Equal(t, []string{"statement line 1: divide(1, 0)", filepath.Join(le.dir, "states.py") + ":2 in divide: return a / b"}, r.Traceback)

	r = interactResult(t, lv(t, s, interact("def broken(:")))
	assert.Equal(t, &adi.Exception{Type: "SyntaxError", Message: "invalid syntax", Line: 1}, r.Exception)
	assert.Equal(t, []string{"statement line 1: def broken(:"}, r.Traceback)

	// Too long: interrupted at the watchdog's limit (2 s here); the program stays paused.
	ans = lv(t, s, interact("print('spinning')\nwhile True: pass"))
	r = interactResult(t, ans)
	assert.True(t, r.TimedOut)
	assert.Equal(t, "spinning\n", r.Output)
	assert.Contains(t, ans.Text, "Interrupted: the code ran longer than the watchdog's limit of 2 s. Nothing after the interruption ran; the program is still paused at states.py:9 in main.\n")
	assert.Equal(t, live.Runtime, ans.State)
	assert.Equal(t, "[4, 2, 0]", value(t, lv(t, s, interact("values"))))

	// Assignments persist (a local, and a list changed in place): the program runs on with them.
	lv(t, s, interact("v = 3\nvalues[2] = 1"))
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Equal(t, "[4.0, 6.0, 12.0]\n", ans.Output.Stdout)

	_, err := s.Do(context.Background(), live.Cmd{Name: live.CmdRestart})
	require.NoError(t, err)
	lv(t, s, bp("states.py:9"))
	lv(t, s, cont)
	_, err = s.Do(context.Background(), live.Cmd{Name: live.CmdInteract, Code: "1", Frame: 5})
	assert.EqualError(t, err, "frame 5 does not exist; the stack has frames 0 to 1 (0 is the innermost)")
	_, err = s.Do(context.Background(), live.Cmd{Name: live.CmdInteract, Code: "  "})
	assert.Equal(t, "live.interact needs code to run, e.g. print(total) or x = 3", wsError(err))
}

// TestLiveGlobalAssignment: an assignment in interact to a global of the paused function's
// module reaches the module, so code that runs after continue sees it.
func TestLiveGlobalAssignment(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python -m pytest test_cart.py -q -p no:cacheprovider", 20*time.Second)
	lv(t, s, bp("cart.py:20"))
	lv(t, s, cont)
	lv(t, s, interact("rate = 0.1\nTAX = 0"))
	assert.Equal(t, "0", value(t, lv(t, s, live.Cmd{Name: live.CmdInteract, Code: "TAX", Frame: 1})), "checkout sees the module's new TAX")
	ans := lv(t, s, cont)
	assert.Equal(t, "paused on AssertionError: assert 4.5 == 5.4 …, raised at test_cart.py:5 in test_checkout_save10, where it leaves the program's code", ans.Why,
		"(5.0 - 0.5) * (1 + 0): both assignments took effect")
	assert.Equal(t, "assert 4.5 == 5.4\n +  where 4.5 = checkout(['apple, 2, 1.50', 'pear, 1, 2.00'], 'SAVE10')", ans.Exception.Message)
	ans = lv(t, s, cont)
	assert.Equal(t, "the program exited with status 1", ans.Why)
	assert.Contains(t, ans.Output.Stdout, "1 failed")
}

// TestLiveWatchdog pauses `while True: pass` (which makes no line event, so a DAP pause alone never
// lands) and a program asleep in time.sleep, and says where they are.
func TestLiveWatchdog(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python spin.py", 2*time.Second)
	started := time.Now()
	ans := lv(t, s, cont)
	assert.GreaterOrEqual(t, time.Since(started), 2*time.Second)
	assert.Equal(t, live.Runtime, ans.State)
	assert.Equal(t, "paused by the watchdog after 2 s at spin.py:2 in <module>", ans.Why)
	assert.Equal(t, []string{"spin.py:2 <module>"}, frames(ans))
	assert.True(t, strings.HasPrefix(ans.Text, "continue → the program neither paused nor finished within the watchdog's limit of 2 s: adi paused it at spin.py:2 in <module> (Runtime). Inspect it, live.continue for another 2 s, or live.restart.\n"), ans.Text)
	assert.Equal(t, "spinning\n", ans.Output.Stdout)
	w := lv(t, s, where)
	assert.Contains(t, w.Text, "> 2 | while True: pass\n")
	// Again: the watchdog works every time.
	ans = lv(t, s, cont)
	assert.Equal(t, "paused by the watchdog after 2 s at spin.py:2 in <module>", ans.Why)
	_, err := live.Close(le.reg, s.ID)
	require.NoError(t, err)

	s, _ = le.start(t, "python sleepy.py", 2*time.Second)
	ans = lv(t, s, cont)
	assert.Equal(t, live.Runtime, ans.State)
	assert.Equal(t, "paused by the watchdog after 2 s at sleepy.py:4 in <module>", ans.Why)
	assert.Equal(t, "sleeping\n", ans.Output.Stdout)
	assert.Equal(t, "'sleeping'", value(t, lv(t, s, interact("'sleeping'"))))
}

// TestLiveStdin: a program reading input() with no input gets end of file at once (and the
// answers say so); with `< file` it reads the file.
func TestLiveStdin(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python greet.py", 10*time.Second)
	ans := lv(t, s, cont)
	assert.Equal(t, live.RuntimeError, ans.State)
	assert.Equal(t, "EOFError", ans.Exception.Type)
	assert.True(t, strings.HasPrefix(ans.Text, "continue → paused on an exception: EOFError: EOF when reading a line, raised at greet.py:1 in <module> (RuntimeError). Note: it read standard input, which is empty: the command gives no input (add `< FILE` to it)."), ans.Text)
	lv(t, s, cont)
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "the program exited with status 1; it read standard input, which is empty: the command gives no input (add `< FILE` to it)", ans.Why)
	assert.True(t, strings.HasSuffix(ans.Output.Stderr, "EOFError: EOF when reading a line\n"), ans.Output.Stderr)

	s, _ = le.start(t, "python greet.py < name.txt", 10*time.Second)
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Equal(t, "hello Ada\n", ans.Output.Stdout)
	assert.Empty(t, ans.Output.Stderr)
}

// TestLivePytestMock: under live mode pytest's monkeypatch and unittest.mock.patch still work: a
// kept breakpoint in the code they patch sees the patched values, and both tests pass.
func TestLivePytestMock(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python -m pytest test_clock.py -q -p no:cacheprovider", 20*time.Second)
	ans := lv(t, s, live.Cmd{Name: live.CmdSetBreakpoint, Location: "clock.py:10", Keep: true})
	assert.Equal(t, "clock.py:10", ans.Breakpoints[0].Location)
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint clock.py:10 in greeting (hit 1)", ans.Why)
	assert.Equal(t, []string{"test_clock.py:8 test_greeting_monkeypatch", "clock.py:10 greeting"}, frames(ans))
	assert.Equal(t, "9", value(t, lv(t, s, interact("h"))))
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint clock.py:10 in greeting (hit 2)", ans.Why)
	assert.Equal(t, []string{"test_clock.py:13 test_greeting_mock", "clock.py:10 greeting"}, frames(ans))
	assert.Equal(t, "20", value(t, lv(t, s, interact("h"))))
	assert.Equal(t, "True", value(t, lv(t, s, interact("type(hour).__name__ == 'MagicMock'"))))
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Contains(t, ans.Output.Stdout, "2 passed")
	assert.Equal(t, 2, ans.Breakpoints[0].Hits)
}

// TestLiveUnittest: a failing unittest stops where its assertion leaves the test (RuntimeError);
// after a restart, a perturbation in the code under test makes it pass.
func TestLiveUnittest(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python test_unit.py", 20*time.Second)
	ans := lv(t, s, cont)
	assert.Equal(t, live.RuntimeError, ans.State)
	assert.Equal(t, live.Exception{Type: "AssertionError", Message: "500.0 != 5.0", Mode: "leaving_user_code"}, *ans.Exception)
	assert.Equal(t, []string{"test_unit.py:13 <module>", "test_unit.py:9 test_save10"}, frames(ans))
	assert.Equal(t, "500.0", value(t, lv(t, s, interact("got"))))
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State, "unittest.main's SystemExit is not a stop")
	assert.Equal(t, "the program exited with status 1", ans.Why)
	assert.Contains(t, ans.Output.Stderr, "FAILED (failures=1)")

	lv(t, s, restart)
	lv(t, s, bp("cart.py:20"))
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint cart.py:20 in discount (hit 1)", ans.Why)
	lv(t, s, interact("rate = 0.1"))
	ans = lv(t, s, cont)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Contains(t, ans.Output.Stderr, "\nOK\n")
}

// TestLiveInspectCoderPatterns scripts an agent following InspectCoder's three patterns on a
// fixture bug (cart.py: the SAVE10 code takes 10 times the total off; test_cart.py fails):
// multi-hop state tracing, inspect-perturb-validate, and error recovery by restart.
func TestLiveInspectCoderPatterns(t *testing.T) {
	le := newLiveEnv(t)
	s, ans := le.start(t, "python -m pytest test_cart.py -q -p no:cacheprovider", 20*time.Second)
	assert.Equal(t, live.Start, ans.State)

	// 1. Multi-hop state tracing: break where the discount is computed and inside it; inspect at
	// each point on the way.
	lv(t, s, bp("cart.py:26"))
	ans = lv(t, s, bp("cart.py:20"))
	assert.Equal(t, []string{"cart.py:26", "cart.py:20"}, locations(ans))
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint cart.py:26 in checkout (hit 1)", ans.Why)
	assert.Equal(t, []string{"test_cart.py:5 test_checkout_save10", "cart.py:26 checkout"}, frames(ans))
	assert.Equal(t, "5.0", value(t, lv(t, s, interact("total"))), "the subtotal is right")
	assert.Equal(t, "[('apple', 2, 1.5), ('pear', 1, 2.0)]", value(t, lv(t, s, interact("[(i['name'], i['qty'], i['price']) for i in items]"))))
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint cart.py:20 in discount (hit 1)", ans.Why)
	assert.Equal(t, []string{"test_cart.py:5 test_checkout_save10", "cart.py:26 checkout", "cart.py:20 discount"}, frames(ans))
	assert.Equal(t, "10", value(t, lv(t, s, interact("rate"))), "found: SAVE10 gives a rate of 10, not 0.1")
	assert.Equal(t, "'SAVE10'", value(t, lv(t, s, live.Cmd{Name: live.CmdInteract, Code: "code", Frame: 1})))

	// 2. Inspect-perturb-validate: set the rate the code should have computed, continue: the
	// test passes.
	lv(t, s, interact("rate = 0.1"))
	ans = lv(t, s, cont)
	assert.Equal(t, live.Done, ans.State)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Contains(t, ans.Output.Stdout, "1 passed")

	// 3. Error recovery by restart: a fresh run stops at the same points (the breakpoints were
	// removed at their hits and are set again); a wrong perturbation crashes the test; restart and
	// try the right one.
	oldPid := 0
	ans = lv(t, s, restart)
	assert.Equal(t, live.Start, ans.State)
	assert.Equal(t, 2, ans.Run)
	for _, b := range ans.Breakpoints {
		assert.True(t, b.Armed, b.Location)
		assert.Equal(t, 0, b.Hits, b.Location)
	}
	assert.True(t, strings.HasPrefix(ans.Text, "Restarted `python -m pytest test_cart.py -q -p no:cacheprovider` (run 2); every process of run 1 has ended. 2 breakpoint(s) set again. No line has run yet: live.continue starts it.\n"), ans.Text)
	lv(t, s, cont)
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint cart.py:20 in discount (hit 1)", ans.Why)
	oldPid = ans.Pid
	require.NotZero(t, oldPid)
	lv(t, s, interact("rate = None"))
	ans = lv(t, s, cont)
	assert.Equal(t, live.RuntimeError, ans.State)
	assert.Equal(t, "TypeError", ans.Exception.Type)
	assert.Equal(t, "unsupported operand type(s) for *: 'float' and 'NoneType'", ans.Exception.Message)
	ans = lv(t, s, restart)
	assert.Equal(t, 3, ans.Run)
	assert.True(t, waitProcessGone(oldPid, 10*time.Second), "restart ends the old run's processes")
	lv(t, s, cont)
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint cart.py:20 in discount (hit 1)", ans.Why)
	assert.NotEqual(t, oldPid, ans.Pid)
	lv(t, s, interact("rate = 0.1"))
	ans = lv(t, s, cont)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Contains(t, ans.Output.Stdout, "1 passed")
}

func locations(a *live.Answer) []string {
	var out []string
	for _, b := range a.Breakpoints {
		out = append(out, b.Location)
	}
	return out
}

// TestLiveDeadDebugger: a debuggee killed behind adi's back, or a debugpy adapter that dies, moves
// the session to Done with the explanation; the session stays usable (restart).
func TestLiveDeadDebugger(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python states.py", 10*time.Second)
	lv(t, s, bp("states.py:9"))
	ans := lv(t, s, cont)
	require.NotZero(t, ans.Pid)
	require.NoError(t, syscall.Kill(ans.Pid, syscall.SIGKILL))
	require.True(t, waitProcessGone(ans.Pid, 10*time.Second))
	require.Eventually(t, func() bool { return lv(t, s, status).State == live.Done }, 10*time.Second, 20*time.Millisecond)
	ans = lv(t, s, status)
	assert.Equal(t, "the program exited with status 247 (what debugpy reports for a process killed by signal 9: killed)", ans.Why)
	lvRefused(t, s, interact("1"))

	lv(t, s, restart)
	ans = lv(t, s, cont)
	require.Equal(t, live.Runtime, ans.State)
	adapter := parentOf(t, parentOf(t, ans.Pid))
	require.NoError(t, syscall.Kill(adapter, syscall.SIGKILL))
	require.Eventually(t, func() bool { return lv(t, s, status).State == live.Done }, 10*time.Second, 20*time.Millisecond)
	ans = lv(t, s, status)
	assert.True(t, strings.HasPrefix(ans.Why, "the debugger ended the session without an exit status"), ans.Why)
	ans = lv(t, s, restart)
	assert.Equal(t, live.Start, ans.State)
	ans = lv(t, s, cont)
	assert.Equal(t, "paused at breakpoint states.py:9 in main (hit 1)", ans.Why)
}

// parentOf returns the parent of process pid.
func parentOf(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	require.NoError(t, err)
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	ppid, err := strconv.Atoi(f[1])
	require.NoError(t, err)
	return ppid
}

// TestLiveNoWedge drives sessions with a long pseudo-random sequence of commands, then with
// concurrent ones: every command is answered (or refused) in bounded time, the session is always
// in one of the five states with the valid commands of that state, and closing ends every
// process.
func TestLiveNoWedge(t *testing.T) {
	le := newLiveEnv(t)
	for _, target := range []string{"python states.py", "python spin.py"} {
		s, _ := le.start(t, target, time.Second)
		file := strings.Fields(target)[1]
		cmds := []live.Cmd{bp(file + ":2"), bp(file + ":1"), {Name: live.CmdSetBreakpoint, Location: file + ":2", Keep: true},
			{Name: live.CmdClear}, cont, cont, cont, restart, interact("1/0"), interact("b = 0"), interact("while True: pass"),
			{Name: live.CmdInteract, Code: "1", Frame: 3}, stack, where, status}
		seed, n := int64(8), 40
		if file == "spin.py" {
			n = 20 // its continues run into the watchdog: a second or two each
		}
		for i := 0; i < n; i++ {
			seed = (seed*6364136223846793005 + 1442695040888963407) & (1<<62 - 1)
			c := cmds[int(seed>>20)%len(cmds)]
			started := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			ans, err := s.Do(ctx, c)
			cancel()
			require.Less(t, time.Since(started), 10*time.Second, "%s #%d took too long", c.Name, i)
			if err != nil {
				var re *live.RefusedError
				if !errors.As(err, &re) {
					assert.Contains(t, []string{"frame 3 does not exist; the stack has frames 0 to 0 (0 is the innermost)",
						"frame 3 does not exist; the stack has frames 0 to 1 (0 is the innermost)",
						"frame 3 does not exist; the stack has frames 0 to 2 (0 is the innermost)"}, err.Error(), "%s #%d", c.Name, i)
				}
				continue
			}
			assert.Contains(t, []live.State{live.Start, live.Runtime, live.RuntimeError, live.PostMortem, live.Done}, ans.State)
			assert.Equal(t, live.Valid(ans.State), ans.Valid, "%s #%d", c.Name, i)
		}

		// Concurrent commands on one session are serialised; each is answered.
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for _, c := range []live.Cmd{status, cont, interact("1"), where, status, restart, cont, stack} {
			wg.Add(1)
			go func(c live.Cmd) {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				_, err := s.Do(ctx, c)
				var re *live.RefusedError
				if err != nil && !errors.As(err, &re) && !strings.HasPrefix(err.Error(), "frame ") {
					errs <- fmt.Errorf("%s: %w", c.Name, err)
				}
			}(c)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}

		// Close while a continue runs: the continue ends at once with an error, the processes end.
		lv(t, s, restart)
		done := make(chan error, 1)
		go func() {
			_, err := s.Do(context.Background(), cont)
			done <- err
		}()
		time.Sleep(300 * time.Millisecond)
		_, err := live.Close(le.reg, s.ID)
		require.NoError(t, err)
		select {
		case err := <-done:
			if err != nil {
				assert.Contains(t, err.Error(), "was closed while the command ran")
			}
		case <-time.After(10 * time.Second):
			t.Fatal("continue did not end when its session was closed")
		}
	}
	assert.Empty(t, waitLiveProcsGone(le.mark, 10*time.Second))
}

// liveCopy copies the live fixtures into a fresh directory (for the faces' tests, which have no
// liveEnv).
func liveCopy(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := testdata(t, "live")
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	for _, e := range ents {
		require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), mustRead(t, src, e.Name()), 0o644))
	}
	return dir
}

// liveAnswer is live.Answer as a client decodes it.
type liveAnswer struct {
	Live     string          `json:"live"`
	Command  string          `json:"command"`
	Text     string          `json:"text"`
	State    string          `json:"state"`
	Why      string          `json:"why"`
	ExitCode *int            `json:"exit_code"`
	Valid    []string        `json:"valid"`
	Result   json.RawMessage `json:"result"`
	Output   struct {
		Stdout string `json:"stdout"`
		Stderr string `json:"stderr"`
	} `json:"output"`
}

// TestLiveServer drives live mode over WebSocket JSON-RPC: the methods, the refused error (code
// -32006 with the valid commands), and the other errors.
func TestLiveServer(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	dir := liveCopy(t)
	ctx := testContext(t, 3*time.Minute)
	lcall := func(method string, params map[string]any) liveAnswer {
		t.Helper()
		var a liveAnswer
		require.NoError(t, c.Call(ctx, method, params, &a), method)
		return a
	}

	var ms struct {
		Methods []struct{ Name, Params string } `json:"methods"`
	}
	require.NoError(t, c.Call(ctx, "server.methods", nil, &ms))
	var names []string
	for _, m := range ms.Methods {
		if strings.HasPrefix(m.Name, "live.") {
			names = append(names, m.Name+" "+m.Params)
		}
	}
	assert.Equal(t, []string{"live.attach {address, id?, replace?, dir?, timeout_ms?, allow_remote?}", "live.caught {live}", "live.clear {live, location?}", "live.close {live}", "live.continue {live, background?}",
		"live.flt {live, frame?, finish?}", "live.interact {live, code, frame?}", "live.list {}", "live.restart {live}",
		"live.set_breakpoint {live, location, condition?, keep?}", "live.stack {live}", "live.start {command, id?, replace?, dir?, env?, timeout_ms?, python?}",
		"live.status {live}", "live.unwatch {live, func?}", "live.watch {live, func, condition?, max?}", "live.where {live}"}, names)

	a := lcall("live.start", map[string]any{"command": "python -m pytest test_cart.py -q -p no:cacheprovider", "dir": dir, "id": "cart", "timeout_ms": 20000})
	assert.Equal(t, "cart", a.Live)
	assert.Equal(t, "start", a.Command)
	assert.Equal(t, "Start", a.State)
	assert.True(t, strings.HasPrefix(a.Text, "Started `python -m pytest test_cart.py -q -p no:cacheprovider` under debugpy as live session cart (watchdog 20 s)."), a.Text)

	e := callErr(t, c, "live.start", map[string]any{"command": "python states.py", "dir": dir, "id": "cart"})
	assert.Equal(t, server.CodeBadInput, e.Code)
	assert.Equal(t, "live session cart is already open; live.close it, live.restart it, or pass replace to start it over", e.Message)

	e = callErr(t, c, "live.interact", map[string]any{"live": "cart", "code": "1"})
	assert.Equal(t, server.CodeRefused, e.Code)
	assert.Equal(t, "refused", e.Data.Kind)
	assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "restart", "status", "close", "watch", "unwatch", "caught", "flt"}, e.Data.Valid)
	assert.Equal(t, "live.interact is refused in state Start (launched under debugpy; no line has run yet (live.continue starts it)): the program has not started yet, so nothing is paused; set a breakpoint (live.set_breakpoint), then live.continue. Valid now: live.set_breakpoint, live.clear, live.continue, live.restart, live.status, live.close, live.watch, live.unwatch, live.caught, live.flt", e.Message)

	e = callErr(t, c, "live.set_breakpoint", map[string]any{"live": "cart", "location": "cart.py:21"})
	assert.Equal(t, server.CodeBadInput, e.Code)
	assert.Equal(t, "line 21 of cart.py is blank; a breakpoint needs a line with a statement (e.g. line 20 or 23)", e.Message)
	e = callErr(t, c, "live.continue", map[string]any{"live": "cart", "lve": 1})
	assert.Equal(t, server.CodeInvalidParams, e.Code)
	assert.Equal(t, `live.continue: unknown param "lve"; it takes {live, background?}`, e.Message)

	a = lcall("live.set_breakpoint", map[string]any{"live": "cart", "location": "cart.py:20"})
	assert.Equal(t, "Breakpoint set at cart.py:20: return total * rate\nIt is removed once hit (pass keep to keep it); live.restart sets it again.\n", strings.SplitAfter(a.Text, "again.\n")[0])
	assert.Contains(t, a.Text, "\nValid now: live.set_breakpoint, live.clear, live.continue, live.restart, live.status, live.close, live.watch, live.unwatch, live.caught, live.flt\n")
	e = callErr(t, c, "adi.state", map[string]any{"session": "nope"})
	assert.Equal(t, `no session "nope"; list them with session.list or create one with session.create`, e.Message)
	a = lcall("live.continue", map[string]any{"live": "cart"})
	assert.Equal(t, "Runtime", a.State)
	assert.Equal(t, "paused at breakpoint cart.py:20 in discount (hit 1)", a.Why)
	a = lcall("live.interact", map[string]any{"live": "cart", "code": "print(rate); rate = 0.1"})
	assert.True(t, strings.HasPrefix(a.Text, "interact in frame #0, cart.py:20 in discount:\nOutput:\n  10\n"), a.Text)
	a = lcall("live.continue", map[string]any{"live": "cart"})
	assert.Equal(t, "Done", a.State)
	require.NotNil(t, a.ExitCode)
	assert.Equal(t, 0, *a.ExitCode)
	assert.Contains(t, a.Output.Stdout, "1 passed")

	e = callErr(t, c, "live.interact", map[string]any{"live": "cart", "code": "1"})
	assert.Equal(t, server.CodeRefused, e.Code)
	assert.Equal(t, "live.interact is refused in state Done (the program exited with status 0): the program has ended, so there is no frame left; live.restart runs it again. Valid now: live.set_breakpoint, live.clear, live.restart, live.status, live.close, live.unwatch, live.caught, live.flt", e.Message)

	var list struct {
		Live []live.Info `json:"live"`
	}
	require.NoError(t, c.Call(ctx, "live.list", nil, &list))
	require.Len(t, list.Live, 1)
	assert.Equal(t, live.Info{ID: "cart", Command: "python -m pytest test_cart.py -q -p no:cacheprovider", Dir: dir, State: live.Done, Run: 1},
		live.Info{ID: list.Live[0].ID, Command: list.Live[0].Command, Dir: list.Live[0].Dir, State: list.Live[0].State, Run: list.Live[0].Run})

	a = lcall("live.close", map[string]any{"live": "cart"})
	assert.True(t, strings.HasPrefix(a.Text, "Closed live session cart; every process of it has ended.\n"), a.Text)
	e = callErr(t, c, "live.status", map[string]any{"live": "cart"})
	assert.Equal(t, server.CodeSessionNotFound, e.Code)
	assert.Equal(t, `no live session "cart" (closed); start one with live.start`, e.Message)
	e = callErr(t, c, "live.status", map[string]any{"live": "nope"})
	assert.Equal(t, `no live session "nope" (it was never started in this server); start one with live.start`, e.Message)
}

// TestLiveCLI drives `adi live` from bash: start, break, continue, interact (also from stdin),
// the refusal (exit 1, one line), close.
func TestLiveCLI(t *testing.T) {
	dir := liveCopy(t)
	r := newCLI(t, dir)
	res := r.run("live", "status")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, fmt.Sprintf("adi: live status: no live session yet in %s; start one first: adi live start \"python t.py\"\n", r.state), res.stderr)

	res = r.run("live", "start", "python states.py", "-t", "10")
	require.Equal(t, 0, res.code, res.stderr)
	id := cliLiveID(dir, "python states.py")
	assert.True(t, strings.HasPrefix(res.stdout, "Started `python states.py` under debugpy as live session "+id+" (watchdog 10 s)."), res.stdout)

	res = r.run("live", "interact", "1")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: adi live interact is refused in state Start (launched under debugpy; no line has run yet (adi live continue starts it)): the program has not started yet, so nothing is paused; set a breakpoint (adi live break), then adi live continue. Valid now: adi live break, adi live clear, adi live continue, adi live restart, adi live status, adi live close, adi live watch, adi live unwatch, adi live caught, adi live flt\n", res.stderr)

	res = r.run("live", "break", "states.py:2", "--cond", "b == 0")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Breakpoint set at states.py:2: return a / b  (only when b == 0)\nIt is removed once hit (pass --keep to keep it); adi live restart sets it again.\n"), res.stdout)
	assert.Contains(t, res.stdout, "\nValid now: adi live break, adi live clear, adi live continue, adi live restart, adi live status, adi live close, adi live watch, adi live unwatch, adi live caught, adi live flt\n")
	res = r.run("state", "--session", "nope")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: no session \"nope\"; list them with adi sessions or create one with a command given the target, e.g. adi call-tree \"python t.py\"\n", res.stderr)
	res = r.run("live", "continue")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "── live "+id+" · Runtime · run 1: paused at breakpoint states.py:2 in divide (hit 1)\n")
	assert.Contains(t, res.stdout, "Stack (innermost last):\n  #2 states.py:14 in <module>\n  #1 states.py:9 in main\n  #0 states.py:2 in divide\n")
	assert.Contains(t, res.stdout, "Output since the last answer:\n  stdout:\n    starting\n")

	cmd := exec.Command(r.bin, "live", "interact", "-")
	cmd.Dir, cmd.Env = r.dir, r.env
	cmd.Stdin = strings.NewReader("print(a, b)\nb = 4\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(out), "interact in frame #0, states.py:2 in divide:\nOutput:\n  12 0\n"), string(out))

	res = r.run("live", "continue", "--json")
	require.Equal(t, 0, res.code, res.stderr)
	var a liveAnswer
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &a))
	assert.Equal(t, "Done", a.State)
	assert.Equal(t, "[3.0, 6.0, 3.0]\n", a.Output.Stdout)

	res = r.run("live", "list")
	assert.Equal(t, fmt.Sprintf("Live sessions (1):\n  %s  python states.py  (Done, run 1) in %s\n", id, dir), res.stdout)
	res = r.run("live", "close")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Closed live session "+id+"; every process of it has ended.\n"), res.stdout)
	res = r.run("live", "frobnicate")
	assert.Equal(t, 2, res.code)
	assert.Equal(t, "adi: unknown live command \"frobnicate\"; run `adi live help` for the list\n", res.stderr)
}

// cliLiveID is the live session id the CLI derives for a command in a directory.
func cliLiveID(dir, target string) string { return cli.LiveID(dir, target) }

// TestExecThenContinueFaces: exec --then-continue over the CLI and adi_exec's then_continue over
// MCP run the statement at the chosen point and let the program run to its end: a failing test
// now passes, without editing a file.
func TestExecThenContinueFaces(t *testing.T) {
	dir := liveCopy(t)
	r := newCLI(t, dir)
	res := r.run("exec", "python -m pytest test_cart.py -q -p no:cacheprovider", "cart.py:discount#1", "-l", "20", "--then-continue", "-s", "rate = 0.1")
	assert.Equal(t, 1, res.code, "the recorded run failed (the CLI says so), the answer is printed")
	assert.True(t, strings.HasSuffix(res.stderr, "adi: the target command failed (exit status 1); the answer above is still valid\n"), res.stderr)
	assert.Contains(t, res.stdout, "Exec at cart:discount#1, line 20, visit 1: rate = 0.1\n")
	assert.Contains(t, res.stdout, "Then continued: the frame returned 0.5; the program ended: it now succeeds (exit 0; it exited 1 before).")
	assert.Contains(t, res.stdout, "1 passed")

	needPython(t)
	ctx := testContext(t, 3*time.Minute)
	tool := adiMCP(t, ctx, dir)
	text, isErr := tool("adi_open", map[string]any{"command": "python -m pytest test_cart.py -q -p no:cacheprovider"})
	require.False(t, isErr, text)
	text, isErr = tool("adi_exec", map[string]any{"frame": "cart.py:discount#1", "line": 20, "stmt": "rate = 0.1", "then_continue": true})
	require.False(t, isErr, text)
	assert.Contains(t, text, "Then continued: the frame returned 0.5; the program ended: it now succeeds (exit 0; it exited 1 before).")
}

// TestLiveMCP drives live mode through `adi mcp`: the tools default to the live session used
// last, a refusal is a tool error with its kind.
func TestLiveMCP(t *testing.T) {
	needPython(t)
	dir := liveCopy(t)
	ctx := testContext(t, 3*time.Minute)
	tool := adiMCP(t, ctx, dir)
	text, isErr := tool("live_continue", nil)
	assert.True(t, isErr)
	assert.Equal(t, "no live session yet: call live_start with the command to debug first", text)

	text, isErr = tool("live_start", map[string]any{"command": "python -m pytest test_cart.py -q -p no:cacheprovider", "timeout_seconds": 20})
	require.False(t, isErr, text)
	assert.Contains(t, text, "(watchdog 20 s)")
	text, isErr = tool("live_interact", map[string]any{"code": "1"})
	assert.True(t, isErr)
	assert.Equal(t, "live_interact is refused in state Start (launched under debugpy; no line has run yet (live_continue starts it)): the program has not started yet, so nothing is paused; set a breakpoint (live_set_breakpoint), then live_continue. Valid now: live_set_breakpoint, live_clear, live_continue, live_restart, live_status, live_close, live_watch, live_unwatch, live_caught, live_flt (refused)", text)
	text, isErr = tool("live_set_breakpoint", map[string]any{"location": "cart.py:20"})
	require.False(t, isErr, text)
	assert.Equal(t, "Breakpoint set at cart.py:20: return total * rate\nIt is removed once hit (pass keep to keep it); live_restart sets it again.\n", strings.SplitAfter(text, "again.\n")[0])
	assert.Contains(t, text, "\nValid now: live_set_breakpoint, live_clear, live_continue, live_restart, live_status, live_close, live_watch, live_unwatch, live_caught, live_flt\n")
	text, isErr = tool("adi_state", map[string]any{"session": "nope"})
	assert.True(t, isErr)
	assert.Equal(t, `no session "nope"; list them with adi_sessions or create one with adi_open (session_not_found)`, text)
	text, _ = tool("live_continue", nil)
	assert.Contains(t, text, "· Runtime · run 1: paused at breakpoint cart.py:20 in discount (hit 1)\n")
	text, _ = tool("live_interact", map[string]any{"code": "rate = 0.1\nrate"})
	assert.Contains(t, text, "Value: 0.1\n")
	text, _ = tool("live_continue", nil)
	assert.Contains(t, text, "· Done · run 1: the program exited with status 0\n")
	assert.Contains(t, text, "1 passed")
	text, _ = tool("live_close", nil)
	assert.Contains(t, text, "every process of it has ended")
}

// BenchmarkLive measures live mode: starting a session and running it to its first breakpoint,
// and the round trips on a paused program: interact (one DAP evaluate of the helper), continue to
// the next hit of a kept breakpoint in a loop, and status (no DAP request).
func BenchmarkLive(b *testing.B) {
	needPython(b)
	dir := b.TempDir()
	src, err := os.ReadFile(testdata(b, "live/loop.py"))
	require.NoError(b, err)
	require.NoError(b, os.WriteFile(filepath.Join(dir, "loop.py"), src, 0o644))
	reg, err := bridge.NewManager(bridge.ManagerConfig{StateDir: b.TempDir()})
	require.NoError(b, err)
	defer reg.Shutdown()
	ctx := context.Background()
	b.Run("start-to-first-stop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, _, err := live.Launch(ctx, reg, "bench", true, live.Options{Command: "python loop.py", Dir: dir})
			require.NoError(b, err)
			_, err = s.Do(ctx, live.Cmd{Name: live.CmdSetBreakpoint, Location: "loop.py:3"})
			require.NoError(b, err)
			_, err = s.Do(ctx, live.Cmd{Name: live.CmdContinue})
			require.NoError(b, err)
		}
	})
	s, _, err := live.Launch(ctx, reg, "", false, live.Options{Command: "python loop.py", Dir: dir})
	require.NoError(b, err)
	_, err = s.Do(ctx, live.Cmd{Name: live.CmdSetBreakpoint, Location: "loop.py:3", Keep: true})
	require.NoError(b, err)
	_, err = s.Do(ctx, live.Cmd{Name: live.CmdContinue})
	require.NoError(b, err)
	b.Run("interact", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Do(ctx, live.Cmd{Name: live.CmdInteract, Code: "total"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("continue-to-breakpoint", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Do(ctx, live.Cmd{Name: live.CmdContinue}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("status", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Do(ctx, live.Cmd{Name: live.CmdStatus}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestLiveKeepsServerAwake: a server that stops when idle (the CLI's daemon) stays up while a live
// session is open, and stops once it is closed.
func TestLiveKeepsServerAwake(t *testing.T) {
	needPython(t)
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), Log: testLogger(t)})
	require.NoError(t, err)
	defer mgr.Shutdown()
	srv, err := server.Start(server.Config{Manager: mgr, ExitWhenIdle: 300 * time.Millisecond, Log: testLogger(t)})
	require.NoError(t, err)
	defer func() { _ = srv.Close(context.Background()) }()
	var a liveAnswer
	ctx := testContext(t, time.Minute)
	raw, rerr := srv.Handler().CallJSON(context.Background(), faces.WebSocket, "live.start", map[string]any{"command": "python states.py", "dir": liveCopy(t), "id": "awake"})
	require.Nil(t, rerr)
	require.NoError(t, json.Unmarshal(raw, &a))
	require.Equal(t, "Start", a.State)
	select {
	case <-srv.Stopped():
		t.Fatal("the server stopped with a live session open")
	case <-time.After(1500 * time.Millisecond):
	}
	_, rerr = srv.Handler().CallJSON(context.Background(), faces.WebSocket, "live.close", map[string]any{"live": "awake"})
	require.Nil(t, rerr)
	select {
	case <-srv.Stopped():
	case <-ctx.Done():
		t.Fatal("the server did not stop once idle with no session open")
	}
}

// TestLiveOutputOrder: the output a program wrote before it stopped is in that stop's answer,
// never in a later one (it travels on another path than the stop: adi syncs them), and the
// launcher's markers never show.
func TestLiveOutputOrder(t *testing.T) {
	le := newLiveEnv(t)
	s, _ := le.start(t, "python echo.py", 20*time.Second)
	lv(t, s, live.Cmd{Name: live.CmdSetBreakpoint, Location: "echo.py:6", Keep: true})
	for i := 0; i < 20; i++ {
		ans := lv(t, s, cont)
		require.Equal(t, fmt.Sprintf("paused at breakpoint echo.py:6 in <module> (hit %d)", i+1), ans.Why)
		assert.Equal(t, fmt.Sprintf("line %d\n", i), ans.Output.Stdout, "stop %d", i)
		assert.Equal(t, fmt.Sprintf("err %d\n", i), ans.Output.Stderr, "stop %d", i)
	}
	ans := lv(t, s, cont)
	assert.Equal(t, "the program exited with status 0", ans.Why)
	assert.Equal(t, "done\n", ans.Output.Stdout)
	assert.Empty(t, ans.Output.Stderr)
}

// adiMCP starts `adi mcp` in dir with a fresh state directory, connects the Go SDK's client to it,
// and returns a tool caller: each call returns the text and whether the tool reported an error.
// The client closes, and the server process must end, when the test ends.
func adiMCP(t *testing.T, ctx context.Context, dir string) func(name string, args map[string]any) (string, bool) {
	t.Helper()
	cmd := exec.Command(adiBinary(t), "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "adi-test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		assert.NoError(t, cs.Close())
		assert.True(t, waitProcessGone(cmd.Process.Pid, 10*time.Second), "adi mcp outlived its client")
	})
	return func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		require.NoError(t, err)
		return mcpText(t, res), res.IsError
	}
}
