package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/server"
)

// pauseOnce is Python for the top of a fault test's target: the first run that reaches it (under
// debugpy only, when `debug` is true) writes its pid into the named file and sleeps, for the test
// to hurt it; every later run finds the file and goes on.
func pauseOnce(file string, debug bool) string {
	cond := "not os.path.exists(%q)"
	if debug {
		cond = "'pydevd' in sys.modules and " + cond
	}
	return fmt.Sprintf(`import os, sys, time
if `+cond+`:
    with open(%q, "w") as _f:
        _f.write(str(os.getpid()))
    os.rename(%q, %q)
    time.sleep(600)
`, file, file+".tmp", file+".tmp", file)
}

// faultSession records cmd in dir with the fault mark in the target's environment.
func faultSession(t *testing.T, dir, cmd, mark string) (*bridge.Session, error) {
	t.Helper()
	needPython(t)
	opts := bridge.Options{Command: cmd, Dir: dir, Env: []string{markVar + "=" + mark}}
	return bridge.NewSession(testContext(t, 2*time.Minute), opts,
		bridge.SessionConfig{ID: "fault", Dir: filepath.Join(t.TempDir(), "session"), Log: testLogger(t)})
}

// killedProgram makes 3000 calls, prints their total, and (first run only) waits to be killed.
const killedProgram = `def work(i):
    return i * 2


def main():
    total = 0
    for i in range(3000):
        total += work(i)
    print("total", total, flush=True)
    return total


main()
`

// TestFaultDebuggeeKilled kills the target with SIGKILL while it is being recorded: the session
// still opens, with the calls recorded up to the kill, marked partial, exit status 137 (128+9);
// no process of the run is left; and the session answers commands (an FLT costs a re-run, which
// now completes).
func TestFaultDebuggeeKilled(t *testing.T) {
	dir := t.TempDir()
	mark := newMark(t)
	writeProgram(t, dir, "killed.py", killedProgram+pauseOnce("debuggee.pid", false))
	type made struct {
		s   *bridge.Session
		err error
	}
	done := make(chan made, 1)
	go func() {
		s, err := faultSession(t, dir, "python killed.py", mark)
		done <- made{s, err}
	}()
	pid := waitPidFile(t, filepath.Join(dir, "debuggee.pid"))
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	m := <-done
	require.NoError(t, m.err)
	s := m.s
	t.Cleanup(s.Close)
	requireNoMarked(t, mark)

	assert.Equal(t, 137, s.Base().ExitCode)
	assert.Equal(t, "total 8997000\n", string(s.Base().Stdout))
	info := s.Info()
	assert.True(t, info.Partial, "a killed recording is marked partial")
	// The probe writes calls in batches: those of the batch the kill interrupted are lost, and
	// the answers say so (partial), never silently.
	assert.Positive(t, info.Frames)
	assert.LessOrEqual(t, info.Frames, 3002)
	const note = "Note: the recording is partial: the run ended before the probe finished, so calls near its end may be missing or unfinished.\n"
	assert.Contains(t, do(t, s, "state").Text, note)
	assert.Equal(t, "Frame: killed:work#7   (caller killed:main#1, line 8)\nArgs: i = 6\n"+note+"\n   2 | return i * 2\n\nReturn: 12\n",
		do(t, s, "flt work#7").Text, "an FLT re-runs the program, which now completes")
	tree := do(t, s, "call-tree main#1 --depth 1").Text
	assert.Contains(t, tree, "killed:main#1() → (unfinished)\n  killed:work#1(i=0) → 0\n")
	requireNoMarked(t, mark)
}

// execProgram is the target of the adapter fault: under debugpy its first run waits to be hurt.
const execProgram = `def f(x):
    y = x + 1
    return y


print(f(41))
`

// adapterOfMark returns the pid of the debugpy adapter among the processes carrying mark.
func adapterOfMark(t *testing.T, mark string) int {
	t.Helper()
	for _, p := range markedProcs(mark) {
		if strings.Contains(procCmdline(p), "debugpy.adapter") {
			return p
		}
	}
	t.Fatalf("no debugpy adapter among the run's processes: %s", describeProcs(markedProcs(mark)))
	return 0
}

// TestFaultAdapterKilled kills debugpy's adapter while an exec --then-continue (the exec that runs
// under debugpy) waits for the program to reach the frame: the exec fails with a one-line error that
// says what happened, no process of the run is left, and the session answers the same exec on the
// next try.
func TestFaultAdapterKilled(t *testing.T) {
	dir := t.TempDir()
	mark := newMark(t)
	// The program line numbers below count the six lines pauseOnce adds.
	writeProgram(t, dir, "hurt.py", pauseOnce("adapter.wait", true)+execProgram)
	s, err := faultSession(t, dir, "python hurt.py", mark)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	type res struct {
		ans *bridge.Answer
		err error
	}
	done := make(chan res, 1)
	go func() {
		cmd, err := adi.ParseCommand("exec f#1 -l 9 --then-continue y")
		if err != nil {
			done <- res{nil, err}
			return
		}
		ans, err := s.Do(testContext(t, 2*time.Minute), cmd, adi.TextOptions{})
		done <- res{ans, err}
	}()
	waitPidFile(t, filepath.Join(dir, "adapter.wait"))
	require.NoError(t, syscall.Kill(adapterOfMark(t, mark), syscall.SIGKILL))
	r := <-done
	require.Error(t, r.err)
	assert.Equal(t, "debugpy's adapter ended before the run reached hurt:f#1 line 9 (DAP connection closed: EOF); the run's processes were ended and the session is still usable: try again", r.err.Error())
	requireNoMarked(t, mark)
	assert.Equal(t, "Exec at hurt:f#1, line 9, visit 1: y\nOutput: (none)\nValue: 42\n"+
		"Then continued: the frame returned 42; the program ended: exit 0, the same as before.\n"+
		"Output after the statement (tail):\n  42\n",
		do(t, s, "exec f#1 -l 9 --then-continue y").Text)
	s.DropStandby() // the run a session keeps ready for its next exec is not an orphan
	requireNoMarked(t, mark)
}

// spawnProgram starts three children that would sleep for ten minutes and ends: one by
// subprocess (it inherits the run's environment), one by subprocess with an environment of its
// own (only the fault mark: adi's run tag is gone), and one by os.fork.
const spawnProgram = `import os, subprocess, time


def spawn():
    kids = [subprocess.Popen(["sleep", "600"]).pid]
    own = {"ADI_FAULT_MARK": os.environ["ADI_FAULT_MARK"], "PATH": os.environ["PATH"]}
    kids.append(subprocess.Popen(["sleep", "600"], env=own).pid)
    pid = os.fork()
    if pid == 0:
        time.sleep(600)
        os._exit(0)
    kids.append(pid)
    return len(kids)


print("spawned", spawn(), flush=True)
`

// TestFaultTargetSpawnsChildren records a target that leaves children behind: the recording
// completes when the target ends, and every child ends with the run.
func TestFaultTargetSpawnsChildren(t *testing.T) {
	dir := t.TempDir()
	mark := newMark(t)
	writeProgram(t, dir, "spawn.py", spawnProgram)
	s, err := faultSession(t, dir, "python spawn.py", mark)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	requireNoMarked(t, mark)
	base := s.Base()
	assert.Equal(t, 0, base.ExitCode)
	assert.False(t, base.TimedOut, "the run ends with the target, not when its children do")
	assert.Equal(t, "spawned 3\n", string(base.Stdout))
	assert.False(t, s.Info().Partial)
	assert.Contains(t, do(t, s, "flt spawn#1").Text, "\nReturn: 3\n")
	requireNoMarked(t, mark)
	// An exec (the probe ends the run right after the statement; the children end with the run),
	// then one under debugpy that lets the program run to its end.
	assert.Equal(t, "Exec at spawn:spawn#1, line 13, visit 1: len(kids)\nOutput: (none)\nValue: 3\n",
		do(t, s, "exec spawn#1 -l 13 len(kids)").Text)
	requireNoMarked(t, mark)
	assert.Equal(t, "Exec at spawn:spawn#1, line 13, visit 1: len(kids)\nOutput: (none)\nValue: 3\n"+
		"Then continued: the frame returned 3; the program ended: exit 0, the same as before.\n"+
		"Output after the statement (tail):\n  spawned 3\n",
		do(t, s, "exec spawn#1 -l 13 --then-continue len(kids)").Text)
	// the session keeps a run ready for its next exec; closing the session ends it too
	s.Close()
	requireNoMarked(t, mark)
}

// osExitProgram leaves through os._exit in the middle of main: no atexit, no finally, no flush
// of Python's buffers.
const osExitProgram = `import os


def f(x):
    return x + 1


def main():
    print("before", f(1), flush=True)
    os._exit(3)
    print("never")


main()
`

// TestFaultTargetOsExit records a target that calls os._exit(3): the recording is kept whole, the
// exit status is 3, and the frames it never returned from say so.
func TestFaultTargetOsExit(t *testing.T) {
	dir := t.TempDir()
	mark := newMark(t)
	writeProgram(t, dir, "osexit.py", osExitProgram)
	s, err := faultSession(t, dir, "python osexit.py", mark)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	requireNoMarked(t, mark)
	base := s.Base()
	assert.Equal(t, 3, base.ExitCode)
	assert.Equal(t, "before 2\n", string(base.Stdout))
	require.NotNil(t, base.Rec.Result, "the probe writes its result before os._exit ends the process")
	assert.Equal(t, "os_exit", base.Rec.Result.Exit.Kind)
	assert.True(t, base.Rec.Result.Complete)
	info := s.Info()
	assert.False(t, info.Partial)
	assert.Equal(t, 3, info.Frames)
	assert.Equal(t, 3, info.ExitCode)
	assert.Equal(t, "Call tree of osexit:<module>#1 (depth 2, width 10):\n"+
		"Unfinished: the run ended in osexit:main#1, 1 level deep.\n"+
		"osexit:<module>#1() → (unfinished)\n  osexit:main#1() → (unfinished)\n    osexit:f#1(x=1) → 2\n",
		do(t, s, "call-tree").Text)
	assert.Equal(t, "Frame: osexit:main#1   (caller osexit:<module>#1, line 14)\nArgs: (none)\n\n"+
		"   9 | print(\"before\", f(1), flush=True)\n     |   → osexit:f#1 → 2\n  10 | os._exit(3)\n\n"+
		"Unfinished: the run ended while this invocation was still active or suspended.\n",
		do(t, s, "flt main#1").Text)
	assert.Equal(t, "Exec at osexit:main#1, line 10, visit 1: f(5)\nOutput: (none)\nValue: 6\n"+
		"Then continued: the frame did not finish; the program ended: exit 3, the same as before.\n",
		do(t, s, "exec main#1 -l 10 --then-continue f(5)").Text)
	s.DropStandby() // the run a session keeps ready for its next exec is not an orphan
	requireNoMarked(t, mark)
}

// rerunHangsProgram records normally; its first re-run (the one that evaluates a breakpoint
// condition and records the first hit's FLT) then hangs inside f, after 10,004 statements (which
// the probe has partly written out) and writing its pid, until it is killed; later runs go
// through.
const rerunHangsProgram = `import os, time


def f(n):
    y = 0
    for i in range(n):
        y += i
    if os.path.exists("recorded") and not os.path.exists("rerun.pid"):
        with open("rerun.pid.tmp", "w") as fh:
            fh.write(str(os.getpid()))
        os.rename("rerun.pid.tmp", "rerun.pid")
        time.sleep(600)
    return y


print(f(5000))
open("recorded", "w").close()
`

// TestFaultBridgeSIGTERM sends SIGTERM to `adi serve` while it has an idle session, a session
// whose re-run (a breakpoint condition's) is running, a session being recorded and an exec under
// debugpy in flight: adi exits 0, every process of every run ends, the callers are told, what is
// on disk is complete or marked partial (a run without result.json), the session still being
// recorded is not kept, and a restarted adi lists the sessions and answers from them: from disk
// where it can (never from the unfinished FLT the interrupted run left), re-running otherwise.
func TestFaultBridgeSIGTERM(t *testing.T) {
	state := t.TempDir()
	mark := newMark(t)
	srv := faultServe(t, state, markVar+"="+mark)
	c := srv.dial(t)
	ctx := testContext(t, 3*time.Minute)
	sessions := filepath.Join(state, "sessions")
	create := func(c *server.Client, id, cmd, dir string) {
		t.Helper()
		require.NoError(t, c.Call(ctx, "session.create", map[string]any{"id": id, "command": cmd, "dir": dir}, nil))
	}
	runs := func(session string) []string {
		t.Helper()
		ents, err := os.ReadDir(filepath.Join(sessions, session, "runs"))
		require.NoError(t, err)
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	done := func(session, run string) bool {
		_, err := os.Stat(filepath.Join(sessions, session, "runs", run, "result.json"))
		return err == nil
	}

	create(c, "idle", "python orders.py", demoDir(t))
	var a answer
	require.NoError(t, c.Call(ctx, "adi.break", map[string]any{"session": "idle", "func": "bulk_rate#3"}, &a))
	require.Equal(t, "break", a.Command)
	idleRuns := runs("idle")

	rerun := t.TempDir()
	writeProgram(t, rerun, "rerun.py", rerunHangsProgram)
	create(c, "rerun", "python rerun.py", rerun)
	creating := t.TempDir()
	writeProgram(t, creating, "slow.py", pauseOnce("slow.pid", false)+"print('recorded')\n")
	execDir := t.TempDir()
	writeProgram(t, execDir, "hurt.py", pauseOnce("adapter.wait", true)+execProgram)
	create(c, "exec", "python hurt.py", execDir)

	var inflight []chan error
	start := func(method string, params map[string]any) {
		ch := make(chan error, 1)
		inflight = append(inflight, ch)
		cl := srv.dial(t)
		go func() { ch <- cl.Call(context.Background(), method, params, nil) }()
	}
	start("adi.break", map[string]any{"session": "rerun", "func": "f", "cond": "n > 0"})
	start("session.create", map[string]any{"id": "creating", "command": "python slow.py", "dir": creating})
	start("adi.execute", map[string]any{"session": "exec", "frame": "f#1", "line": 9, "stmt": "y", "then_continue": true})
	waitPidFile(t, filepath.Join(rerun, "rerun.pid"))
	waitPidFile(t, filepath.Join(creating, "slow.pid"))
	waitPidFile(t, filepath.Join(execDir, "adapter.wait"))

	pid := srv.cmd.Process.Pid
	assert.Equal(t, 0, srv.stop(t, syscall.SIGTERM), "adi serve exits 0 on SIGTERM; stderr: %s", srv.stderr)
	requireNoMarked(t, mark, pid)
	for _, ch := range inflight {
		err := <-ch
		require.Error(t, err)
		assert.Equal(t, "adi: the connection to the server has ended: websocket: close 1001 (going away): adi server shutting down", err.Error())
	}

	for _, r := range idleRuns {
		assert.True(t, done("idle", r), "idle run %s is complete", r)
	}
	assert.Equal(t, []string{"0000", "0001"}, runs("rerun"))
	assert.True(t, done("rerun", "0000"))
	assert.False(t, done("rerun", "0001"), "the interrupted re-run is partial: no result.json")
	execRuns := runs("exec")
	assert.True(t, done("exec", "0000"))
	for _, r := range execRuns[1:] { // a finished exec run leaves nothing on disk
		assert.False(t, done("exec", r), "exec run %s left on disk is the interrupted one: no result.json", r)
	}
	_, err := os.Stat(filepath.Join(sessions, "creating"))
	assert.True(t, os.IsNotExist(err), "a session whose first recording never finished is not kept")

	again := faultServe(t, state, markVar+"="+mark)
	c = again.dial(t)
	var list struct {
		Sessions []bridge.Info `json:"sessions"`
	}
	require.NoError(t, c.Call(ctx, "session.list", nil, &list))
	type row struct {
		ID              string
		Frames          int
		Partial, Closed bool
	}
	var rows []row
	for _, s := range list.Sessions {
		rows = append(rows, row{s.ID, s.Frames, s.Partial, s.Closed})
	}
	assert.Equal(t, []row{{"idle", 12, false, true}, {"rerun", 2, false, true}, {"exec", 2, false, true}}, rows)

	require.NoError(t, c.Call(ctx, "adi.flt", map[string]any{"session": "idle", "frame": "bulk_rate#3"}, &a))
	assert.Equal(t, fltBulkRate3, a.Text)
	require.NoError(t, c.Call(ctx, "adi.state", map[string]any{"session": "idle"}, &a))
	assert.Contains(t, a.Text, "Inspecting: orders:bulk_rate#3 ")
	assert.Equal(t, idleRuns, runs("idle"), "answered from disk: nothing re-ran")

	require.NoError(t, c.Call(ctx, "adi.break", map[string]any{"session": "rerun", "func": "f", "cond": "n > 0"}, &a))
	assert.Contains(t, a.Text, "break → rerun:f#1  (the only invocation where the condition held)\n")
	assert.Contains(t, a.Text, "\nReturn: 12497500\n")
	require.NoError(t, c.Call(ctx, "adi.flt", map[string]any{"session": "rerun", "frame": "f#1"}, &a))
	var flt struct {
		Steps []json.RawMessage `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &flt))
	assert.Len(t, flt.Steps, 10004, "the whole FLT, not the unfinished one the interrupted run left")
	assert.Contains(t, a.Text, "\nReturn: 12497500\n")

	require.NoError(t, c.Call(ctx, "adi.execute", map[string]any{"session": "exec", "frame": "f#1", "line": 9, "stmt": "y"}, &a))
	assert.Equal(t, "Exec at hurt:f#1, line 9, visit 1: y\nOutput: (none)\nValue: 42\n", a.Text)

	assert.Equal(t, 0, again.stop(t, syscall.SIGTERM))
	requireNoMarked(t, mark)
}
