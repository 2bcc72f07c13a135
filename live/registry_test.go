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

// TestRegistryIdleAndReplace: an idle session expires (its processes end, its id says why it is
// gone); starting an open id again is refused unless replace is given, which ends the old one.
func TestRegistryIdleAndReplace(t *testing.T) {
	dir := program(t, "x = 1\nprint(x)\n")
	reg := NewRegistry(RegistryConfig{Idle: 300 * time.Millisecond})
	defer reg.Shutdown()
	ctx := context.Background()
	opts := Options{Command: "python t.py", Dir: dir}

	s, ans, err := reg.Start(ctx, "a", false, opts)
	require.NoError(t, err)
	assert.Equal(t, Start, ans.State)
	_, _, err = reg.Start(ctx, "a", false, opts)
	assert.Equal(t, "live session a is already open; live.close it, live.restart it, or pass replace to start it over", faces.WebSocket.Render(err.Error()))

	ans, err = s.Do(ctx, Cmd{Name: CmdSetBreakpoint, Location: "t.py:2"})
	require.NoError(t, err)
	ans, err = s.Do(ctx, Cmd{Name: CmdContinue})
	require.NoError(t, err)
	require.Equal(t, Runtime, ans.State)
	pid := ans.Pid
	require.NotZero(t, pid)

	s2, _, err := reg.Start(ctx, "a", true, opts)
	require.NoError(t, err)
	assert.True(t, waitGone(pid), "replace ends the old session's processes")
	_, err = s.Do(ctx, Cmd{Name: CmdStatus})
	assert.Equal(t, "live session a was closed while the command ran; start a new one with live.start", faces.WebSocket.Render(err.Error()))

	ans, err = s2.Do(ctx, Cmd{Name: CmdStatus})
	require.NoError(t, err)
	assert.Equal(t, 1, reg.Open())
	require.Eventually(t, func() bool { return reg.Open() == 0 }, 10*time.Second, 20*time.Millisecond, "the idle session expires")
	_, err = reg.Get("a")
	assert.Equal(t, `no live session "a" (it expired after 300ms unused); start one with live.start`, faces.WebSocket.Render(err.Error()))

	_, _, err = reg.Start(ctx, "bad id!", false, opts)
	assert.EqualError(t, err, `live session id "bad id!" is not valid; use letters, digits, '-' and '_' (at most 64)`)
	_, _, err = reg.Start(ctx, "", false, Options{Command: "python nope.py", Dir: dir})
	assert.EqualError(t, err, "cannot run "+filepath.Join(dir, "nope.py")+": no such file")
	assert.Empty(t, reg.List())
}
