package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adi-bridge/adi/cli"
	"github.com/gorilla/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hangProgram has a function whose statements an exec can hang in: spin loops for ever (line 2).
const hangProgram = `def spin():
    while True: pass


def f(x):
    y = x + 1
    z = y * 2
    return z


print(f(1))
`

// execAnswer is the CLI's answer to `exec t.py:f#1 -l 7 -s y` on hangProgram.
const execAnswer = "Exec at t:f#1, line 7, visit 1: y\nOutput: (none)\nValue: 2\n"

// hangLimit is the one-line error of a statement stopped at its 1 s limit in t:f#1 at line 7;
// at says where the statement was running.
func hangLimit(at string) string {
	return "the statement ran longer than 1 s in t:f#1 at t.py:7" + at + "; it was stopped and the session is still usable: " +
		"raise the limit with --timeout SECONDS (timeout over the API and MCP)"
}

// waitExecStarted waits until an exec statement has started in a run under the state directory
// (the probe creates exec.started as it starts the statement).
func waitExecStarted(t testing.TB, state string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(state, "sessions", "*", "runs", "*", "exec.started")); len(m) > 0 {
			return
		}
	}
	t.Fatalf("no exec statement started under %s", state)
}

// TestExecStatementTimeout runs statements that never end through the CLI: each is stopped at
// its -t limit with one line saying where the frame and the statement were, no process of the
// run is left, and the next exec on the session answers.
func TestExecStatementTimeout(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", hangProgram)
	mark := newMark(t)
	r := newCLI(t, dir)
	r.env = append(r.env, markVar+"="+mark)
	res := r.run("call-tree", "python t.py")
	require.Equal(t, 0, res.code, res.stderr)
	daemon := r.daemon().PID

	res = r.run("exec", "-t", "1", "t.py:f#1", "-l", "7", "-s", "import time; time.sleep(100)")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "", res.stdout)
	assert.Equal(t, "adi: "+hangLimit(" (it was running line 1 of the statement)")+"\n", res.stderr)
	requireNoMarked(t, mark, daemon)

	res = r.run("exec", "--timeout", "1", "t.py:f#1", "-l", "7", "-s", "spin()")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: "+hangLimit(" (it was running t.py:2, in spin)")+"\n", res.stderr)
	requireNoMarked(t, mark, daemon)

	// under debugpy (--then-continue) the statement is stopped by ending the run
	res = r.run("exec", "-t", "1", "--then-continue", "t.py:f#1", "-l", "7", "-s", "spin()")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: "+hangLimit("")+"\n", res.stderr)
	requireNoMarked(t, mark, daemon)

	requireExecAnswers(t, r)
	assert.Equal(t, daemon, r.daemon().PID)
}

// TestExecCancelCLI interrupts a hung exec with SIGINT (Ctrl-C): the CLI cancels the call in the
// daemon, says so in one line and exits 130; the run's processes are gone at once (long before
// the statement's limit) and the session answers the next exec.
func TestExecCancelCLI(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", hangProgram)
	mark := newMark(t)
	r := newCLI(t, dir)
	r.env = append(r.env, markVar+"="+mark)
	res := r.run("call-tree", "python t.py")
	require.Equal(t, 0, res.code, res.stderr)
	daemon := r.daemon().PID

	cmd := exec.Command(r.bin, "exec", "-t", "100", "t.py:f#1", "-l", "7", "-s", "spin()")
	cmd.Dir, cmd.Env = r.dir, r.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	started := time.Now()
	require.NoError(t, cmd.Start())
	waitExecStarted(t, r.state)
	// the thin adi catches signals once it has run for cli.SignalDelay (before that, Ctrl-C ends it
	// as it ends any program)
	time.Sleep(time.Until(started.Add(4 * cli.SignalDelay)))
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "adi exec ends with a status: %v", err)
	assert.Equal(t, 130, ee.ExitCode())
	assert.Equal(t, "", out.String())
	assert.Equal(t, "adi: interrupted: adi exec was cancelled; the runs it started were ended and the session is still usable\n", errb.String())
	requireNoMarked(t, mark, daemon)

	requireExecAnswers(t, r)
	assert.Equal(t, daemon, r.daemon().PID)
}

// TestExecCancelWebSocket cancels a hung adi.execute with $/cancelRequest on the same WebSocket
// of a real `adi serve`: the call answers at once with the cancelled error, no process of the run
// is left, and a timeout param stops the next hung statement with the one-line timeout error.
func TestExecCancelWebSocket(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", hangProgram)
	mark := newMark(t)
	state := t.TempDir()
	s := faultServe(t, state, markVar+"="+mark)
	u := "ws" + strings.TrimPrefix(s.url, "http") + "/rpc"
	c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Authorization": {"Bearer " + s.token}})
	require.NoError(t, err)
	defer c.Close()
	send := func(msg string) { require.NoError(t, c.WriteMessage(websocket.TextMessage, []byte(msg))) }
	read := func() map[string]any {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(2*time.Minute)))
		_, b, err := c.ReadMessage()
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	params, _ := json.Marshal(map[string]any{"command": "python t.py", "dir": dir, "id": "hang"})
	send(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":` + string(params) + `}`)
	require.Nil(t, read()["error"])

	send(`{"jsonrpc":"2.0","id":"x7","method":"adi.execute","params":{"session":"hang","frame":"f#1","line":7,"stmt":"spin()","timeout":100}}`)
	waitExecStarted(t, state)
	send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"x7"}}`)
	got := read()
	assert.Equal(t, "x7", got["id"])
	assert.Equal(t, map[string]any{"code": -32800.0, "data": map[string]any{"kind": "cancelled"},
		"message": "adi.execute was cancelled by the client; the runs it started were ended and the session is still usable"}, got["error"])
	requireNoMarked(t, mark, s.cmd.Process.Pid)

	send(`{"jsonrpc":"2.0","id":8,"method":"adi.execute","params":{"session":"hang","frame":"f#1","line":7,"stmt":"spin()","timeout":1}}`)
	got = read()
	assert.Equal(t, map[string]any{"code": -32005.0, "data": map[string]any{"kind": "timeout"},
		"message": hangLimit(" (it was running t.py:2, in spin)")}, got["error"])
	requireNoMarked(t, mark, s.cmd.Process.Pid)

	send(`{"jsonrpc":"2.0","id":9,"method":"adi.execute","params":{"session":"hang","frame":"f#1","line":7,"stmt":"y"}}`)
	got = read()
	require.Nil(t, got["error"])
	assert.Equal(t, execAnswer, got["result"].(map[string]any)["text"])
}

// TestMCPExecCancel drives `adi mcp` with the go-sdk's client over stdio: adi_exec's timeout
// stops a hung statement with the one-line error, and a call whose context the client cancels
// (the SDK sends notifications/cancelled) ends its run at once; the next adi_exec answers.
func TestMCPExecCancel(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", hangProgram)
	mark := newMark(t)
	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.Command(adiBinary(t), "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+state, markVar+"="+mark)
	client := mcp.NewClient(&mcp.Implementation{Name: "adi-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer func() {
		assert.NoError(t, cs.Close())
		assert.True(t, waitProcessGone(cmd.Process.Pid, 10*time.Second), "adi mcp ends when its stdin closes")
	}()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "adi_open", Arguments: map[string]any{"command": "python t.py"}})
	require.NoError(t, err)
	require.False(t, res.IsError, mcpText(t, res))

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "adi_exec", Arguments: map[string]any{"frame": "f#1", "line": 7, "stmt": "spin()", "timeout": 1}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, hangLimit(" (it was running t.py:2, in spin)")+" (timeout)", mcpText(t, res))
	requireNoMarked(t, mark, cmd.Process.Pid)

	callCtx, cancelCall := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "adi_exec", Arguments: map[string]any{"frame": "f#1", "line": 7, "stmt": "spin()", "timeout": 100}})
		done <- err
	}()
	waitExecStarted(t, state)
	cancelCall()
	assert.ErrorIs(t, <-done, context.Canceled)
	requireNoMarked(t, mark, cmd.Process.Pid)

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "adi_exec", Arguments: map[string]any{"frame": "f#1", "line": 7, "stmt": "y"}})
	require.NoError(t, err)
	require.False(t, res.IsError, mcpText(t, res))
	assert.Equal(t, strings.TrimSuffix(execAnswer, "\n"), strings.TrimSuffix(mcpText(t, res), "\n"))
}

// TestNoDebugpyRefusedAtOnce records and execs a target run by a python without debugpy (a venv
// without site packages): both work, since neither needs debugpy; exec --then-continue and live
// mode, which do, refuse at once with one line that says how to install it, instead of debugpy's
// "Timed out waiting for debuggee to spawn" 15 s later.
func TestNoDebugpyRefusedAtOnce(t *testing.T) {
	needPython(t)
	venv := filepath.Join(t.TempDir(), "venv")
	out, err := exec.Command("/usr/bin/python3", "-m", "venv", "--without-pip", venv).CombinedOutput()
	require.NoError(t, err, "%s", out)
	py := filepath.Join(venv, "bin", "python")
	dir := t.TempDir()
	writeProgram(t, dir, "t.py", hangProgram)
	r := newCLI(t, dir)
	cmd := py + " t.py"

	res := r.run("call-tree", cmd)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "t:f#1(x=1) → 4\n")
	requireExecAnswers(t, r)

	install := " has no debugpy, which %s needs (recording and exec do not); install it into that python (`" + py +
		" -m pip install debugpy`), or for /usr/bin/python3 run `make deps` (Debian's python3-debugpy)\n"
	res = r.run("exec", "--then-continue", "t.py:f#1", "-l", "7", "-s", "y = 5")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "", res.stdout)
	assert.Equal(t, "adi: "+py+strings.Replace(install, "%s", "exec --then-continue", 1), res.stderr)

	res = r.run("live", "start", cmd)
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: "+py+strings.Replace(install, "%s", "live mode", 1), res.stderr)

	requireExecAnswers(t, r)
}

// requireExecAnswers checks that the session still answers an exec after a statement was stopped
// or cancelled: the same answer as before it.
func requireExecAnswers(t *testing.T, r *cliRun) {
	t.Helper()
	res := r.run("exec", "t.py:f#1", "-l", "7", "-s", "y")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, execAnswer, res.stdout)
}
