package live

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/faces"
)

// These tests run the real debugpy (python3-debugpy; `make deps` installs it).

func program(t *testing.T, src string) string {
	t.Helper()
	_, err := dap.FindPython(context.Background(), "")
	require.NoError(t, err, "live mode's tests need python3-debugpy: run `make deps`")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "t.py"), []byte(src), 0o644))
	return dir
}

func gone(pid int) bool {
	err := syscall.Kill(pid, 0)
	if err != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(b[strings.LastIndexByte(string(b), ')')+1:]), " Z ")
}

func waitGone(pid int) bool {
	for i := 0; i < 500; i++ {
		if gone(pid) {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestSessionsIdleAndReplace: a live session is a session of the one Manager: an idle one expires
// (its processes end, its id says why it is gone); starting an open id again is refused unless
// replace is given, which ends the old one.
func TestSessionsIdleAndReplace(t *testing.T) {
	dir := program(t, "x = 1\nprint(x)\n")
	m, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), IdleTimeout: 300 * time.Millisecond})
	require.NoError(t, err)
	defer m.Shutdown()
	ctx := context.Background()
	opts := Options{Command: "python t.py", Dir: dir}

	s, ans, err := Launch(ctx, m, "a", false, opts)
	require.NoError(t, err)
	assert.Equal(t, Start, ans.State)
	_, _, err = Launch(ctx, m, "a", false, opts)
	assert.Equal(t, "live session a is already open; live.close it, live.restart it, or pass replace to start it over", faces.WebSocket.Render(err.Error()))

	ans, err = s.Do(ctx, Cmd{Name: CmdSetBreakpoint, Location: "t.py:2"})
	require.NoError(t, err)
	ans, err = s.Do(ctx, Cmd{Name: CmdContinue})
	require.NoError(t, err)
	require.Equal(t, Runtime, ans.State)
	pid := ans.Pid
	require.NotZero(t, pid)

	s2, _, err := Launch(ctx, m, "a", true, opts)
	require.NoError(t, err)
	assert.True(t, waitGone(pid), "replace ends the old session's processes")
	_, err = s.Do(ctx, Cmd{Name: CmdStatus})
	assert.Equal(t, "live session a was closed while the command ran; start a new one with live.start", faces.WebSocket.Render(err.Error()))

	ans, err = s2.Do(ctx, Cmd{Name: CmdStatus})
	require.NoError(t, err)
	assert.Equal(t, 1, Open(m))
	require.Eventually(t, func() bool { return Open(m) == 0 }, 10*time.Second, 20*time.Millisecond, "the idle session expires")
	_, err = Of(m, "a")
	assert.Equal(t, `no live session "a" (it expired after 300ms unused); start one with live.start`, faces.WebSocket.Render(err.Error()))

	_, _, err = Launch(ctx, m, "bad id!", false, opts)
	assert.EqualError(t, err, `live session id "bad id!" is not valid; use letters, digits, '-' and '_' (at most 64)`)
	_, _, err = Launch(ctx, m, "", false, Options{Command: "python nope.py", Dir: dir})
	assert.EqualError(t, err, "cannot run "+filepath.Join(dir, "nope.py")+": no such file")
	assert.Empty(t, List(m))
}
