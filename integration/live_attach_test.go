package integration

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/cli"
	"github.com/adi-bridge/adi/server"
)

// live.attach end to end: a program its owner started with `python -m debugpy --listen
// 127.0.0.1:PORT --wait-for-client`, attached through the CLI and over WebSocket: a breakpoint,
// continue to it, interact (a changed value), close (adi detaches; the program runs to its end
// with the changed value and exits by itself), no process left behind, and the refusals.

// attachProg sums 0..4 in work; the breakpoint goes on line 7 (total += i). It writes the result
// into the file named by its argument and prints it.
const attachProg = `import sys


def work(n):
    total = 0
    for i in range(n):
        total += i
    return total


result = work(5)
with open(sys.argv[1], "w") as f:
    f.write("result=%d\n" % result)
print("done", result)
`

// debugpyServer is a program running `python -m debugpy --listen ADDR --wait-for-client`.
type debugpyServer struct {
	addr   string
	port   int
	dir    string
	cmd    *exec.Cmd
	stdout bytes.Buffer
	waited chan error
}

// startDebugpyServer starts attachProg under debugpy's server on a free loopback port, in dir,
// and returns once it listens.
func startDebugpyServer(t *testing.T, dir string) *debugpyServer {
	t.Helper()
	needPython(t)
	py := "/usr/bin/python3"
	if exec.Command(py, "-c", "import debugpy").Run() != nil {
		t.Skip("/usr/bin/python3 has no debugpy")
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prog.py"), []byte(attachProg), 0o644))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	ds := &debugpyServer{addr: fmt.Sprintf("127.0.0.1:%d", port), port: port, dir: dir, waited: make(chan error, 1)}
	ds.cmd = exec.Command(py, "-m", "debugpy", "--listen", ds.addr, "--wait-for-client", "prog.py", "out.txt")
	ds.cmd.Dir = dir
	ds.cmd.Stdout = &ds.stdout
	require.NoError(t, ds.cmd.Start())
	go func() { ds.waited <- ds.cmd.Wait() }()
	t.Cleanup(func() {
		_ = ds.cmd.Process.Kill()
		<-ds.waited
	})
	// Wait for the listening socket without connecting: debugpy's adapter takes the first
	// connection for its client.
	want := fmt.Sprintf("0100007F:%04X 00000000:0000 0A", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		b, _ := os.ReadFile("/proc/net/tcp")
		if strings.Contains(string(b), want) {
			return ds
		}
		require.True(t, time.Now().Before(deadline), "debugpy did not listen on %s", ds.addr)
		time.Sleep(50 * time.Millisecond)
	}
}

// ranToEnd waits for the program to exit by itself and checks that it finished with the value
// interact set (total = 100 at i == 3: 0+1+2+100+4) and that no process of it (debugpy's
// adapter included) is left.
func (ds *debugpyServer) ranToEnd(t *testing.T) {
	t.Helper()
	select {
	case err := <-ds.waited:
		ds.waited <- err
		require.NoError(t, err, "the program should exit 0 after adi detached")
	case <-time.After(20 * time.Second):
		t.Fatal("the program did not run to its end after adi detached")
	}
	assert.Equal(t, "result=107\n", string(mustRead(t, ds.dir, "out.txt")))
	assert.Equal(t, "done 107\n", ds.stdout.String())
	port := strconv.Itoa(ds.port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := procsWith("debugpy", port)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of the debugpy server on port %s outlived it: %v", port, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// procsWith lists the processes whose command line contains every word.
func procsWith(words ...string) []string {
	ents, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		all := true
		for _, w := range words {
			all = all && strings.Contains(line, w)
		}
		if all {
			out = append(out, e.Name()+": "+line)
		}
	}
	return out
}

func TestLiveAttachCLI(t *testing.T) {
	dir := t.TempDir()
	ds := startDebugpyServer(t, dir)
	r := newCLI(t, dir)

	res := r.run("live", "attach", "10.1.2.3:5678")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: adi live attach 10.1.2.3:5678 is not a loopback address, and debugpy runs whatever code its client sends over an unencrypted connection; forward the port to 127.0.0.1 (ssh -L, docker -p 127.0.0.1:PORT:PORT), or pass --allow-remote if you mean it\n", res.stderr)

	res = r.run("live", "attach", ds.addr)
	require.Equal(t, 0, res.code, res.stderr)
	id := cli.LiveID(dir, "attach "+ds.addr)
	assert.True(t, strings.HasPrefix(res.stdout, "Attached to the program at "+ds.addr+" as live session "+id+" (watchdog 30 s). It runs (or, started with --wait-for-client, waits for adi live continue): set breakpoints (adi live break FILE:LINE), then adi live continue waits until it stops at one. adi live close detaches and leaves it running."), res.stdout)
	assert.Contains(t, res.stdout, "── live "+id+" · Running · run 1: attached to the program at "+ds.addr+"; it runs, or waits for its client if started with --wait-for-client (adi live continue lets it go on and waits until it stops)\n")
	assert.Contains(t, res.stdout, "\nValid now: adi live break, adi live clear, adi live continue, adi live status, adi live close, adi live watch, adi live unwatch, adi live caught, adi live flt\n")

	res = r.run("live", "interact", "1")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: adi live interact is refused in state Running (attached to the program at "+ds.addr+"; it runs, or waits for its client if started with --wait-for-client (adi live continue lets it go on and waits until it stops)): the program is running, so nothing is paused; adi live continue waits until it stops (set a breakpoint first with adi live break). Valid now: adi live break, adi live clear, adi live continue, adi live status, adi live close, adi live watch, adi live unwatch, adi live caught, adi live flt\n", res.stderr)

	res = r.run("live", "break", "prog.py:7", "--cond", "i == 3")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Breakpoint set at prog.py:7: total += i  (only when i == 3)\n"), res.stdout)

	res = r.run("live", "continue")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "continue → paused at breakpoint prog.py:7 in work after "), res.stdout)
	assert.Contains(t, res.stdout, "── live "+id+" · Runtime · run 1: paused at breakpoint prog.py:7 in work (hit 1)\n")
	assert.Contains(t, res.stdout, "Stack (innermost last):\n  #1 prog.py:11 in <module>\n  #0 prog.py:7 in work\n")

	res = r.run("live", "interact", "total, i")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "interact in frame #0, prog.py:7 in work:\nOutput: (none)\nValue: (3, 3)\n"), res.stdout)
	res = r.run("live", "interact", "total = 100")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "interact in frame #0, prog.py:7 in work:\nChanged: total = 100 (the program runs on with the new values)\n"), res.stdout)

	res = r.run("live", "restart")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: adi live restart is refused in state Runtime (paused at breakpoint prog.py:7 in work (hit 1)): adi attached to this program and did not start it, so it cannot run it again; start it again under `python -m debugpy --listen` and adi live attach to it. Valid now: adi live break, adi live clear, adi live continue, adi live interact, adi live stack, adi live where, adi live status, adi live close, adi live watch, adi live unwatch, adi live caught, adi live flt\n", res.stderr)

	res = r.run("live", "close")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Closed live session "+id+": adi detached from the program, which keeps running (adi did not start it, so it does not end it).\n"), res.stdout)
	ds.ranToEnd(t)

	// Nothing listens there any more: refused at once, with one line.
	start := time.Now()
	res = r.run("live", "attach", ds.addr)
	assert.Equal(t, 1, res.code)
	assert.Equal(t, "adi: attach to "+ds.addr+": nothing listens there (connection refused); start the program with `python -m debugpy --listen "+ds.addr+" prog.py`\n", res.stderr)
	assert.Less(t, time.Since(start), 5*time.Second)
	res = r.run("live", "list")
	assert.Equal(t, "No live sessions. Start one with: adi live start \"python t.py\"\n", res.stdout)
}

func TestLiveAttachServer(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	dir := t.TempDir()
	ds := startDebugpyServer(t, dir)
	ctx := testContext(t, 2*time.Minute)
	lcall := func(method string, params map[string]any) liveAnswer {
		t.Helper()
		var a liveAnswer
		require.NoError(t, c.Call(ctx, method, params, &a), method)
		return a
	}

	e := callErr(t, c, "live.attach", map[string]any{"address": "10.1.2.3:5678"})
	assert.Equal(t, server.CodeBadInput, e.Code)
	assert.Equal(t, "live.attach 10.1.2.3:5678 is not a loopback address, and debugpy runs whatever code its client sends over an unencrypted connection; forward the port to 127.0.0.1 (ssh -L, docker -p 127.0.0.1:PORT:PORT), or pass allow_remote if you mean it", e.Message)
	e = callErr(t, c, "live.attach", map[string]any{"address": "5678"})
	assert.Equal(t, server.CodeBadInput, e.Code)
	assert.Equal(t, `live.attach "5678" is not HOST:PORT, e.g. 127.0.0.1:5678 (what `+"`python -m debugpy --listen 127.0.0.1:5678`"+` listens on)`, e.Message)

	a := lcall("live.attach", map[string]any{"address": ds.addr, "dir": dir, "id": "srv", "timeout_ms": 20000})
	assert.Equal(t, "srv", a.Live)
	assert.Equal(t, "Running", a.State)
	assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "status", "close", "watch", "unwatch", "caught", "flt"}, a.Valid)
	e = callErr(t, c, "live.restart", map[string]any{"live": "srv"})
	assert.Equal(t, server.CodeRefused, e.Code)
	assert.Equal(t, []string{"set_breakpoint", "clear", "continue", "status", "close", "watch", "unwatch", "caught", "flt"}, e.Data.Valid)

	lcall("live.set_breakpoint", map[string]any{"live": "srv", "location": "prog.py:7", "condition": "i == 3"})
	a = lcall("live.continue", map[string]any{"live": "srv"})
	assert.Equal(t, "Runtime", a.State)
	assert.Equal(t, "paused at breakpoint prog.py:7 in work (hit 1)", a.Why)
	a = lcall("live.interact", map[string]any{"live": "srv", "code": "print(total, i); total = 100"})
	assert.True(t, strings.HasPrefix(a.Text, "interact in frame #0, prog.py:7 in work:\nOutput:\n  3 3\nChanged: total = 100 (the program runs on with the new values)\n"), a.Text)
	a = lcall("live.where", map[string]any{"live": "srv"})
	assert.Contains(t, a.Text, ">  7 |         total += i\n")

	var list struct {
		Live []struct {
			ID, Command, State string
		} `json:"live"`
	}
	require.NoError(t, c.Call(ctx, "live.list", nil, &list))
	require.Len(t, list.Live, 1)
	assert.Equal(t, "attach "+ds.addr, list.Live[0].Command)

	a = lcall("live.close", map[string]any{"live": "srv"})
	assert.True(t, strings.HasPrefix(a.Text, "Closed live session srv: adi detached from the program, which keeps running (adi did not start it, so it does not end it).\n"), a.Text)
	ds.ranToEnd(t)

	start := time.Now()
	e = callErr(t, c, "live.attach", map[string]any{"address": ds.addr, "id": "srv"})
	assert.Equal(t, server.CodeBadInput, e.Code)
	assert.Equal(t, "attach to "+ds.addr+": nothing listens there (connection refused); start the program with `python -m debugpy --listen "+ds.addr+" prog.py`", e.Message)
	assert.Less(t, time.Since(start), 5*time.Second)
	e = callErr(t, c, "live.status", map[string]any{"live": "srv"})
	assert.Equal(t, server.CodeSessionNotFound, e.Code)
}

// TestLiveAttachMCP attaches through `adi mcp`'s live_attach; the other live tools default to
// that session.
func TestLiveAttachMCP(t *testing.T) {
	dir := t.TempDir()
	ds := startDebugpyServer(t, dir)
	ctx := testContext(t, 2*time.Minute)
	tool := adiMCP(t, ctx, dir)
	text, isErr := tool("live_attach", map[string]any{"address": "10.1.2.3:5678"})
	assert.True(t, isErr)
	assert.Equal(t, "live_attach 10.1.2.3:5678 is not a loopback address, and debugpy runs whatever code its client sends over an unencrypted connection; forward the port to 127.0.0.1 (ssh -L, docker -p 127.0.0.1:PORT:PORT), or pass allow_remote if you mean it (bad_input)", text)

	text, isErr = tool("live_attach", map[string]any{"address": ds.addr, "timeout_seconds": 20})
	require.False(t, isErr, text)
	assert.Contains(t, text, "(watchdog 20 s)")
	assert.Contains(t, text, " · Running · run 1: attached to the program at "+ds.addr)
	text, isErr = tool("live_restart", nil)
	assert.True(t, isErr)
	assert.Contains(t, text, "live_restart is refused in state Running")
	text, isErr = tool("live_set_breakpoint", map[string]any{"location": "prog.py:7", "condition": "i == 3"})
	require.False(t, isErr, text)
	text, _ = tool("live_continue", nil)
	assert.Contains(t, text, "· Runtime · run 1: paused at breakpoint prog.py:7 in work (hit 1)\n")
	text, _ = tool("live_interact", map[string]any{"code": "total = 100\ni"})
	assert.Contains(t, text, "Value: 3\n")
	text, _ = tool("live_close", nil)
	assert.Contains(t, text, "adi detached from the program, which keeps running")
	ds.ranToEnd(t)
}
