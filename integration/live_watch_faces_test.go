package integration

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/live"
	"github.com/adi-bridge/adi/server"
)

// Watching a live program through the faces: the shop server (testdata/live/shop_server.py)
// under live mode, its request handler watched while it serves, the caught invocations read
// with the adi.* methods, over WebSocket JSON-RPC, MCP and the CLI (the viewer's side is
// integration/browser/test/watch.test.js).

// fltHandle2 is the FLT of the second request's invocation of handle, on every face.
const fltHandle2 = `Frame: shop_server:handle#2   (entry frame)
Args: method = 'GET', path = '/quote/pear/4'

  19 | parts = path.strip("/").split("/")
     |   + parts = ['quote', 'pear', '4']
  20 | item, qty = parts[1], int(parts[2])
     |   + item = 'pear'
     |   + qty = 4
  21 | total = quote(item, qty)
     |   + total = 18
     |   → shop_server:quote#2 → 18
  22 | body = {"item": item, "qty": qty, "total": total}
     |   + body = {'item': 'pear', 'qty': 4, 'total': 18}
  23 | return 200, body

Return: (200, {'item': 'pear', 'qty': 4, 'total': 18})
`

// callTreeHandle2 is the call tree of that invocation.
const callTreeHandle2 = `Call tree of shop_server:handle#2 (depth 2, width 10):
shop_server:handle#2(method='GET', path='/quote/pear/4') → (200, {'item': 'pear', 'qty': 4, 'total…
  shop_server:quote#2(item='pear', qty=4) → 18
`

// threeHandles are the fids the watch on handle catches for the first three requests.
var threeHandles = []string{"shop_server:handle#1", "shop_server:handle#2", "shop_server:handle#3"}

// portIn finds the shop's port in what it printed so far (0 while it has not said it).
func portIn(out string) int {
	m := portLine.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	var port int
	_, _ = fmt.Sscan(m[1], &port)
	return port
}

// threeRequests asks the shop for the three quotes the watch tests expect, and a fourth.
func threeRequests(t *testing.T, port int) {
	t.Helper()
	assert.JSONEq(t, `{"item": "apple", "qty": 2, "total": 6}`, get(t, port, "/quote/apple/2"))
	assert.JSONEq(t, `{"item": "pear", "qty": 4, "total": 18}`, get(t, port, "/quote/pear/4"))
	assert.JSONEq(t, `{"item": "kiwi", "qty": 1, "total": 0}`, get(t, port, "/quote/kiwi/1"))
}

// TestLiveWatchServerFace: the watch flow over WebSocket JSON-RPC, with the trace_updated events
// a subscriber gets as each request is caught.
func TestLiveWatchServerFace(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	dir := liveCopy(t)
	mark := newMark(t)
	t.Cleanup(func() {
		assert.Empty(t, waitLiveProcsGone(mark, 10*time.Second), "processes of the live session outlived it")
	})
	ctx := testContext(t, 3*time.Minute)
	lcall := func(method string, params map[string]any) liveAnswer {
		t.Helper()
		var a liveAnswer
		require.NoError(t, c.Call(ctx, method, params, &a), method)
		return a
	}

	// A second connection subscribes to the events, so that reading them does not race the calls'.
	ev := ts.dial(t)
	var sub map[string]string
	require.NoError(t, ev.Call(ctx, "session.subscribe", map[string]any{"session": "shop"}, &sub))
	assert.Equal(t, map[string]string{"subscribed": "shop"}, sub)

	a := lcall("live.start", map[string]any{"command": "python shop_server.py", "dir": dir, "id": "shop", "timeout_ms": 30000,
		"env": map[string]string{liveMarkVar: mark}})
	assert.Equal(t, "shop", a.Live)
	assert.Equal(t, "Start", a.State)
	a = lcall("live.watch", map[string]any{"live": "shop", "func": "handle"})
	assert.Equal(t, "Watching handle: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it. "+
		"The program has not started: the watch is in place before its first line. live.caught lists what it caught; adi.flt FUNC#N shows one.",
		firstPara(a.Text))
	e := callErr(t, c, "adi.flt", map[string]any{"session": "shop"})
	assert.Equal(t, server.CodeNotFound, e.Code)
	assert.Equal(t, "live session shop's watches caught nothing yet; watch a function (live.watch FUNC) and let the program call it (live.caught lists what was caught)", e.Message)
	a = lcall("live.continue", map[string]any{"live": "shop", "background": true})
	assert.Equal(t, "Running", a.State)

	// the live session is a session of the server: session.list lists it
	var list struct {
		Sessions []bridge.Info `json:"sessions"`
	}
	require.NoError(t, c.Call(ctx, "session.list", nil, &list))
	var ids []string
	for _, s := range list.Sessions {
		ids = append(ids, s.ID)
	}
	assert.Contains(t, ids, "shop")

	var out strings.Builder
	port := 0
	for deadline := time.Now().Add(20 * time.Second); port == 0 && time.Now().Before(deadline); {
		a = lcall("live.status", map[string]any{"live": "shop"})
		out.WriteString(a.Output.Stdout)
		if port = portIn(out.String()); port == 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	require.NotZero(t, port, "the shop never said its port: %q", out.String())

	// Each request caught brings a trace_updated event with T grown (handle and quote: 2 frames).
	bodies := map[string]string{"/quote/apple/2": `{"item": "apple", "qty": 2, "total": 6}`,
		"/quote/pear/4": `{"item": "pear", "qty": 4, "total": 18}`, "/quote/kiwi/1": `{"item": "kiwi", "qty": 1, "total": 0}`}
	for i, path := range []string{"/quote/apple/2", "/quote/pear/4", "/quote/kiwi/1"} {
		assert.JSONEq(t, bodies[path], get(t, port, path))
		e := waitEvent(t, ev, func(e bridge.Event) bool {
			return e.Session == "shop" && e.Kind == "trace_updated" && e.Frames >= 2*(i+1)
		})
		assert.Equal(t, 2*(i+1), e.Frames, "request %d", i+1)
	}

	var fids []string
	for i := 0; i < 200; i++ {
		a = lcall("live.caught", map[string]any{"live": "shop"})
		var infos []live.WatchInfo
		require.NoError(t, json.Unmarshal(a.Result, &infos))
		require.Len(t, infos, 1)
		if fids = infos[0].Caught; len(fids) == 3 && infos[0].Running == 0 {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	assert.Equal(t, threeHandles, fids)
	assert.Equal(t, "handle: 3 caught: shop_server:handle#1, shop_server:handle#2, shop_server:handle#3\n"+
		"Every ADI command answers about them: adi.flt FUNC#N, adi.call_tree FUNC#N, adi.diff A B.", firstPara(a.Text))

	// The adi.* methods answer about them, with session = the live session's id.
	r := call(t, c, "adi.flt", map[string]any{"session": "shop", "frame": "shop_server:handle#2"})
	assert.Equal(t, fltHandle2, r.Text)
	assert.False(t, r.TargetFailed, "the live program runs on: no exit status, no failed target")
	r = call(t, c, "adi.call_tree", map[string]any{"session": "shop", "frame": "shop_server:handle#2"})
	assert.Equal(t, callTreeHandle2, r.Text)

	a = lcall("live.unwatch", map[string]any{"live": "shop"})
	assert.Equal(t, "No longer watching handle; what was caught stays (live.caught).", firstPara(a.Text))
	assert.JSONEq(t, `{"item": "apple", "qty": 5, "total": 13}`, get(t, port, "/quote/apple/5"))
	time.Sleep(3 * followEveryTest)
	a = lcall("live.caught", map[string]any{"live": "shop"})
	assert.Equal(t, "shop_server:handle: 3 caught: shop_server:handle#1, shop_server:handle#2, shop_server:handle#3 (no longer watched)", strings.SplitN(a.Text, "\n", 2)[0])
	var info struct {
		Session bridge.Info `json:"session"`
	}
	require.NoError(t, c.Call(ctx, "session.get", map[string]any{"session": "shop"}, &info))
	assert.Equal(t, 6, info.Session.Frames, "the fourth request was served and not caught")

	a = lcall("live.close", map[string]any{"live": "shop"})
	assert.True(t, strings.HasPrefix(a.Text, "Closed live session shop; every process of it has ended.\n"), a.Text)
	assert.Empty(t, liveProcs(mark), "closed, the live session left no process")
	e = callErr(t, c, "live.status", map[string]any{"live": "shop"})
	assert.Equal(t, server.CodeSessionNotFound, e.Code)
}

// followEveryTest is live's followEvery (how often a watching session re-reads its recording).
const followEveryTest = 200 * time.Millisecond

// TestLiveWatchMCP: the watch flow through `adi mcp`'s tools.
func TestLiveWatchMCP(t *testing.T) {
	needPython(t)
	dir := liveCopy(t)
	mark := newMark(t)
	ctx := testContext(t, 3*time.Minute)
	t.Cleanup(func() {
		assert.Empty(t, waitLiveProcsGone(mark, 10*time.Second), "processes of the live session outlived it")
	})
	call := adiMCP(t, ctx, dir)
	tool := func(name string, args map[string]any) string {
		t.Helper()
		text, isErr := call(name, args)
		require.False(t, isErr, "%s: %s", name, text)
		return text
	}

	text := tool("live_start", map[string]any{"command": "python shop_server.py", "id": "shop", "timeout_seconds": 30,
		"env": map[string]string{liveMarkVar: mark}})
	assert.True(t, strings.HasPrefix(text, "Started `python shop_server.py` under debugpy as live session shop (watchdog 30 s)."), text)
	text = tool("live_watch", map[string]any{"func": "handle"})
	assert.Equal(t, "Watching handle: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it. "+
		"The program has not started: the watch is in place before its first line. live_caught lists what it caught; adi_flt FUNC#N shows one.",
		firstPara(text))
	text = tool("live_continue", map[string]any{"background": true})
	assert.Contains(t, text, "── live shop · Running · run 1")

	var out strings.Builder
	out.WriteString(text)
	port := portIn(out.String())
	for deadline := time.Now().Add(20 * time.Second); port == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		out.WriteString(tool("live_status", nil))
		port = portIn(out.String())
	}
	require.NotZero(t, port, "the shop never said its port: %q", out.String())
	threeRequests(t, port)

	want := "handle: 3 caught: shop_server:handle#1, shop_server:handle#2, shop_server:handle#3\n" +
		"Every ADI command answers about them: adi_flt FUNC#N, adi_call_tree FUNC#N, adi_diff A B."
	for i := 0; i < 200; i++ {
		if text = tool("live_caught", nil); firstPara(text) == want {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	assert.Equal(t, want, firstPara(text))
	assert.Equal(t, fltHandle2, tool("adi_flt", map[string]any{"session": "shop", "frame": "shop_server:handle#2"}))
	assert.Equal(t, callTreeHandle2, tool("adi_call_tree", map[string]any{"session": "shop", "frame": "shop_server:handle#2"}))

	text = tool("live_unwatch", nil)
	assert.Equal(t, "No longer watching handle; what was caught stays (live_caught).", firstPara(text))
	assert.JSONEq(t, `{"item": "apple", "qty": 5, "total": 13}`, get(t, port, "/quote/apple/5"))
	time.Sleep(3 * followEveryTest)
	text = tool("live_caught", nil)
	assert.Equal(t, "shop_server:handle: 3 caught: shop_server:handle#1, shop_server:handle#2, shop_server:handle#3 (no longer watched)", strings.SplitN(text, "\n", 2)[0])
	text = tool("live_close", nil)
	assert.True(t, strings.HasPrefix(text, "Closed live session shop; every process of it has ended.\n"), text)
	assert.Empty(t, liveProcs(mark), "closed, the live session left no process")
}

// TestLiveWatchCLI: the watch flow through the adi binary; `--session live` names the live
// session started last.
func TestLiveWatchCLI(t *testing.T) {
	dir := liveCopy(t)
	r := newCLI(t, dir)
	mark := newMark(t)
	r.env = append(r.env, liveMarkVar+"="+mark)
	ours := func() []int { // the live session's processes (the daemon carries the mark too)
		daemon := r.daemon().PID
		var left []int
		for _, pid := range waitLiveProcsGone(mark, 0) {
			if pid != daemon {
				left = append(left, pid)
			}
		}
		return left
	}

	res := r.run("live", "start", "python shop_server.py", "-t", "30")
	require.Equal(t, 0, res.code, res.stderr)
	id := cliLiveID(dir, "python shop_server.py")
	assert.True(t, strings.HasPrefix(res.stdout, "Started `python shop_server.py` under debugpy as live session "+id+" (watchdog 30 s)."), res.stdout)
	res = r.run("live", "watch", "handle")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Watching handle: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it. "+
		"The program has not started: the watch is in place before its first line. adi live caught lists what it caught; adi flt FUNC#N shows one.",
		firstPara(res.stdout))
	res = r.run("live", "continue", "--background")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stdout, "── live "+id+" · Running · run 1")

	var out strings.Builder
	out.WriteString(res.stdout)
	port := portIn(out.String())
	for deadline := time.Now().Add(20 * time.Second); port == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		res = r.run("live", "status")
		require.Equal(t, 0, res.code, res.stderr)
		out.WriteString(res.stdout)
		port = portIn(out.String())
	}
	require.NotZero(t, port, "the shop never said its port: %q", out.String())
	threeRequests(t, port)

	want := "handle: 3 caught: shop_server:handle#1, shop_server:handle#2, shop_server:handle#3\n" +
		"Every ADI command answers about them: adi flt FUNC#N, adi call-tree FUNC#N, adi diff A B."
	for i := 0; i < 100; i++ {
		if res = r.run("live", "caught"); firstPara(res.stdout) == want {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, want, firstPara(res.stdout))

	res = r.run("flt", "--session", "live", "shop_server:handle#2")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, fltHandle2, res.stdout)
	res = r.run("call-tree", "--session", "live", "shop_server:handle#2")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, callTreeHandle2, res.stdout)
	res = r.run("flt", "--session", id, "handle#2")
	assert.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, fltHandle2, res.stdout, "the session named by its id, the frame by its short fid")

	res = r.run("live", "unwatch")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "No longer watching handle; what was caught stays (adi live caught).", firstPara(res.stdout))
	assert.JSONEq(t, `{"item": "apple", "qty": 5, "total": 13}`, get(t, port, "/quote/apple/5"))
	time.Sleep(3 * followEveryTest)
	res = r.run("live", "caught")
	assert.Equal(t, "shop_server:handle: 3 caught: shop_server:handle#1, shop_server:handle#2, shop_server:handle#3 (no longer watched)", strings.SplitN(res.stdout, "\n", 2)[0])

	res = r.run("live", "close")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "Closed live session "+id+"; every process of it has ended.\n"), res.stdout)
	assert.Empty(t, ours(), "closed, the live session left no process")
}
