package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/daptest"
	"github.com/adi-bridge/adi/internal/errkind"
)

// bareVenv makes a venv without pip and without the system's site packages: its python has no
// debugpy.
func bareVenv(t *testing.T) string {
	t.Helper()
	venv := filepath.Join(t.TempDir(), "venv")
	out, err := exec.Command("/usr/bin/python3", "-m", "venv", "--without-pip", venv).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return filepath.Join(venv, "bin", "python")
}

// noDebugpyText is the one line adi dap answers a launch of a python without debugpy with.
func noDebugpyText(py string) string {
	return fmt.Sprintf("adi: %s has no debugpy, which the editor's debug session needs (recording and exec do not); "+
		"install it into that python (`%s -m pip install debugpy`), or for /usr/bin/python3 run `make deps` (Debian's python3-debugpy)", py, py)
}

// TestDAPLaunchNoDebugpy launches, through `adi dap` over stdio (the real binary) and through
// the proxy on TCP (as `adi dap --listen` and `adi serve --dap` serve it), a program with a
// python that has no debugpy, named by "python" and by the legacy "pythonPath". The launch is
// refused at once with one line saying so and how to install it, instead of debugpy's "Timed
// out waiting for debuggee to spawn" after 15 s: the client waits at most 5 s for the answer.
func TestDAPLaunchNoDebugpy(t *testing.T) {
	py := needPython(t)
	venvPy := bareVenv(t)
	prog := vscodeFixture(t, "app.py")
	check := func(t *testing.T, e *daptest.Client, member string, value any) {
		e.Limit = 5 * time.Second // far below debugpy's 15 s: a context limit, not a measurement
		e.Call("initialize", map[string]any{"adapterID": "debugpy"})
		args := appLaunch(t, prog)
		args[member] = value
		resp := e.Response(e.Send("launch", args))
		assert.False(t, resp.Success)
		assert.Equal(t, noDebugpyText(venvPy), resp.ErrMessage)
		var b struct {
			Error struct {
				ID     int    `json:"id"`
				Format string `json:"format"`
			} `json:"error"`
		}
		require.NoError(t, resp.Body(&b))
		assert.Equal(t, errkind.NoDebugpy.DAP(), b.Error.ID)
		assert.Equal(t, noDebugpyText(venvPy), b.Error.Format)
		e.Call("disconnect", nil)
	}

	t.Run("stdio", func(t *testing.T) {
		bin := buildADI(t)
		cmd := exec.Command(bin, "dap", "--python", py.Path)
		cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
		in, err := cmd.StdinPipe()
		require.NoError(t, err)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		check(t, daptest.NewClient(t, stdio{out, in}), "python", venvPy)
	})
	t.Run("listen", func(t *testing.T) {
		p := startProxy(t, proxyOptions{record: true})
		check(t, dialEditor(t, p.addr), "pythonPath", []string{venvPy})
		assert.Empty(t, p.mgr.List(), "a refused launch records no session")
	})
}
