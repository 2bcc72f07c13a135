package integration

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// slowTeardown prints, exits with 3, and then, in the interpreter's teardown (an object freed
// with its module), waits for the file its argument names and prints to both streams.
const slowTeardown = `import os, sys, time

GATE = sys.argv[1]


class Late:
    def __del__(self):
        while not os.path.exists(GATE):
            time.sleep(0.01)
        print("bye from the teardown")
        sys.stderr.write("late stderr\n")


def work(n):
    return n * 2


keep = Late()
print("result", work(21))
sys.exit(3)
`

// A run is answered once its probe has written result.json, while the interpreter still tears
// down: the answer has the output printed before (flushed by the probe) and the exit status the
// probe gives; what the teardown prints is saved into the run's directory when the process ends,
// and closing the session waits for it, leaving no process behind.
func TestRunAnsweredBeforeItsProcessEnds(t *testing.T) {
	gate := filepath.Join(t.TempDir(), "gate")
	mgr, s, mark := lateSession(t, gate)

	base := s.Base()
	assert.Equal(t, 3, base.ExitCode)
	assert.Equal(t, "result 42\n", string(base.Stdout))
	assert.Equal(t, "", string(base.Stderr))
	assert.Equal(t, "Call tree of late:<module>#1 (depth 2, width 10):\nlate:<module>#1() → raised SystemExit: 3\n"+
		"  late:Late#1() → class Late\n  late:work#1(n=21) → 42\n", do(t, s, "call-tree").Text)
	require.NotEmpty(t, markedProcs(mark), "the target is still in its teardown, waiting for the gate")

	require.NoError(t, os.WriteFile(gate, nil, 0o644))
	require.NoError(t, mgr.Close(s.ID))
	requireNoMarked(t, mark)
	out, err := os.ReadFile(filepath.Join(base.Dir, "stdout"))
	require.NoError(t, err)
	assert.Equal(t, "result 42\nbye from the teardown\n", string(out))
	errOut, err := os.ReadFile(filepath.Join(base.Dir, "stderr"))
	require.NoError(t, err)
	assert.Equal(t, "late stderr\n", string(errOut))
	meta, err := os.ReadFile(filepath.Join(base.Dir, "run.json"))
	require.NoError(t, err)
	assert.Contains(t, string(meta), `"exit_code": 3`)
}

// A session closing while a run's process is still in its teardown waits for it a moment, then
// ends it: closing never hangs on a teardown that does not end, and no process is left behind.
func TestCloseEndsATeardownThatHangs(t *testing.T) {
	mgr, s, mark := lateSession(t, filepath.Join(t.TempDir(), "never"))
	assert.Equal(t, "result 42\n", string(s.Base().Stdout))
	require.NotEmpty(t, markedProcs(mark))
	require.NoError(t, mgr.Close(s.ID))
	requireNoMarked(t, mark)
}

// lateSession records slowTeardown in a new session (its teardown waits for the file gate): the
// manager, the session and the mark its processes carry.
func lateSession(t *testing.T, gate string) (*bridge.Manager, *bridge.Session, string) {
	t.Helper()
	needPython(t)
	mark := newMark(t)
	dir := t.TempDir()
	writeProgram(t, dir, "late.py", slowTeardown)
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), Log: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	s, err := mgr.Create(testContext(t, time.Minute), "late", bridge.Options{Command: "python late.py " + gate, Dir: dir,
		Env: []string{markVar + "=" + mark}})
	require.NoError(t, err)
	return mgr, s, mark
}
