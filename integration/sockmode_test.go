package integration

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/live"
)

// TestLiveControlSocketPrivate runs a live session under a umask of 0 (everything created open
// to every user unless its maker says otherwise) and checks the watch recorder's control socket,
// bound by the probe in the program's process, is mode 0600 and its directory, made by the
// bridge, 0700: no other user can connect to the running program's recorder.
func TestLiveControlSocketPrivate(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where the bridge makes the session's directory
	le := newLiveEnv(t)
	old := syscall.Umask(0)
	s, _ := func() (*live.Session, *live.Answer) {
		defer syscall.Umask(old) // the program's process inherits 0 when it starts, here
		return le.start(t, "python sleepy.py", 30*time.Second)
	}()
	lv(t, s, live.Cmd{Name: live.CmdContinue, Background: true}) // the launcher binds it before the program's first line
	var socks []string
	for deadline := time.Now().Add(30 * time.Second); len(socks) == 0; time.Sleep(20 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the watch recorder's socket never appeared under %s", tmp)
		socks, _ = filepath.Glob(filepath.Join(tmp, "adi-live-*", "w1.sock"))
	}
	require.Len(t, socks, 1)
	st, err := os.Stat(socks[0])
	require.NoError(t, err)
	assert.Equal(t, os.ModeSocket|0o600, st.Mode(), "the socket")
	st, err = os.Stat(filepath.Dir(socks[0]))
	require.NoError(t, err)
	assert.Equal(t, os.ModeDir|0o700, st.Mode(), "its directory")
	_, err = live.Close(le.reg, s.ID)
	require.NoError(t, err)
}
