package integration

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/probe"
)

// sleeperProgram makes three calls, then sleeps past any time limit a test gives it.
const sleeperProgram = `import time


def f(i):
    return i * 2


f(0)
f(1)
print("sleeping", flush=True)
time.sleep(600)
`

// TestTimeoutKeepsTheRecording runs, through the CLI, a target that makes three calls and then
// sleeps, with a 1 s time limit: the probe is asked to stop and writes what it recorded, so the
// session has exactly those frames, every answer says the run was stopped at its limit and how
// to raise it, commands work on the frames recorded, and no process of the runs is left.
func TestTimeoutKeepsTheRecording(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", sleeperProgram)
	mark := newMark(t)
	r := newCLI(t, dir)
	r.env = append(r.env, markVar+"="+mark)
	cmd := "python t.py"
	const note = "the run was stopped after its 1 s time limit; the recording ends there (3 calls). " +
		"To record further, raise the limit: --timeout SECONDS."

	res := r.run("call-tree", "--timeout", "1", cmd)
	assert.Equal(t, 1, res.code, "the target did not end on its own")
	assert.Regexp(t, "^adi: recorded `python t.py`: 3 call\\(s\\) in \\d+ ms, exit status 143 \\(session cli-[0-9a-f]{12}\\)\n"+
		"adi: "+regexp.QuoteMeta(note)+"\n"+
		"adi: the target command failed \\(exit status 143\\); the answer above is still valid\n$", res.stderr)
	assert.Equal(t, "Call tree of t:<module>#1 (depth 2, width 10):\nNote: "+note+"\n"+
		"t:<module>#1() → (unfinished)\n  t:f#1(i=0) → 0\n  t:f#2(i=1) → 2\n", res.stdout)
	daemon := r.daemon().PID

	// the frames recorded answer commands; an FLT re-runs the program, which is stopped again
	// at its limit after f#2 ended, so that FLT is complete
	const failed = "adi: the target command failed (exit status 143); the answer above is still valid\n"
	res = r.run("flt", "f#2")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, failed, res.stderr)
	assert.Equal(t, "Frame: t:f#2   (caller t:<module>#1, line 9)\nArgs: i = 1\nNote: "+note+"\n\n   5 | return i * 2\n\nReturn: 2\n", res.stdout)
	res = r.run("state")
	assert.Equal(t, failed, res.stderr)
	assert.Contains(t, res.stdout, "Note: "+note+"\n")

	// more time records the target again (here: stopped again, at the new limit)
	res = r.run("list-frames", "--timeout", "2", cmd, "f")
	assert.Equal(t, 1, res.code)
	assert.Contains(t, res.stderr, "adi: the run was stopped after its 2 s time limit; the recording ends there (3 calls).")
	assert.Contains(t, res.stdout, "t:f#1")
	assert.Contains(t, res.stdout, "t:f#2")
	assert.Equal(t, daemon, r.daemon().PID)

	requireNoMarked(t, mark, daemon)
}

// TestTimeoutStopsTheDebuggee runs an exec --then-continue whose debuggee (under debugpy) then
// sleeps past the time limit: the debuggee is asked to stop too, so its run writes result.json
// with the stop and the calls it made, and no process of the run is left.
func TestTimeoutStopsTheDebuggee(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", sleeperProgram)
	mark := newMark(t)
	s := newSession(t, dir, "python t.py", func(o *bridge.Options) {
		o.Timeout = 3 * time.Second
		o.Env = []string{markVar + "=" + mark}
	})
	ans := do(t, s, "exec f#2 --then-continue y = 1")
	assert.Contains(t, ans.Text, "Then continued: the frame returned 2;")
	runs, err := filepath.Glob(filepath.Join(s.Dir, "runs", "*", "result.json"))
	require.NoError(t, err)
	require.Len(t, runs, 2, "the recording and the exec run")
	rec, err := probe.Read(filepath.Dir(runs[1]))
	require.NoError(t, err)
	require.NotNil(t, rec.Result)
	assert.Equal(t, probe.StoppedTimeout, rec.Result.Stopped)
	assert.Equal(t, "stopped", rec.Result.Exit.Kind)
	assert.False(t, rec.Trace.Partial)
	var fids []string
	for _, f := range rec.Trace.Frames {
		fids = append(fids, f.FID().String())
	}
	assert.Equal(t, []string{"t:<module>#1", "t:f#1", "t:f#2"}, fids)
	s.Close() // and the run it keeps ready for the next exec
	requireNoMarked(t, mark)
}
