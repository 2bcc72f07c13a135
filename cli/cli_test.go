package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionID(t *testing.T) {
	a := SessionID("/p", "python t.py")
	assert.Regexp(t, `^cli-[0-9a-f]{12}$`, a)
	assert.Equal(t, a, SessionID("/p", "  python   t.py "), "spacing does not make another session")
	assert.NotEqual(t, a, SessionID("/q", "python t.py"), "another directory is another session")
	assert.NotEqual(t, a, SessionID("/p", "python u.py"))
}

func TestDaemonInfoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "daemon.json")
	info := DaemonInfo{URL: "http://127.0.0.1:1", Token: "tok", PID: 42}
	require.NoError(t, WriteDaemonInfo(path, info))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "the file holds the token")
	got, err := ReadDaemonInfo(path)
	require.NoError(t, err)
	assert.Equal(t, info, got)
	RemoveDaemonInfo(path, 7)
	_, err = os.Stat(path)
	assert.NoError(t, err, "another pid's file stays")
	RemoveDaemonInfo(path, 42)
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err))
}

func TestProcessGone(t *testing.T) {
	assert.False(t, ProcessGone(os.Getpid()))
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	assert.True(t, ProcessGone(cmd.Process.Pid))
}

// TestVersionFlag: `adi --version` is `adi version`: the version, the Go release, the platform.
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errOut strings.Builder
		code := Main(context.Background(), args, &out, &errOut, Options{})
		assert.Equal(t, 0, code, errOut.String())
		assert.Equal(t, "adi "+versionText()+"\n", out.String())
		assert.Regexp(t, `^adi \S+ \(go\S+ `+runtime.GOOS+"/"+runtime.GOARCH+`\)\n$`, out.String())
	}
}
