package integration

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/examples"
	"github.com/adi-bridge/adi/server"
)

// testServer is a server started in the test process on 127.0.0.1:0 with its own state directory.
type testServer struct {
	srv *server.Server
	mgr *bridge.Manager
}

func startServer(t testing.TB) *testServer {
	t.Helper()
	needPython(t)
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir(), Log: testLogger(t)})
	require.NoError(t, err)
	srv, err := server.Start(server.Config{Manager: mgr, Log: testLogger(t)})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		assert.NoError(t, srv.Close(ctx))
		mgr.Shutdown()
	})
	return &testServer{srv: srv, mgr: mgr}
}

// dial connects a WebSocket client with the token.
func (ts *testServer) dial(t testing.TB) *server.Client {
	t.Helper()
	c, _, err := server.Dial(context.Background(), ts.srv.URL(), ts.srv.Token(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// demoDir returns a directory holding the demo program, orders.py.
func demoDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "orders.py"), examples.Orders, 0o644))
	return dir
}

// answer is the result of every adi.* method.
type answer struct {
	Command      string          `json:"command"`
	Text         string          `json:"text"`
	Result       json.RawMessage `json:"result"`
	TargetFailed bool            `json:"target_failed"`
}

func call(t testing.TB, c *server.Client, method string, params any) answer {
	t.Helper()
	var a answer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, c.Call(ctx, method, params, &a), method)
	return a
}

// callErr calls a method that must fail and returns its error.
func callErr(t testing.TB, c *server.Client, method string, params any) *server.Error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := c.Call(ctx, method, params, nil)
	var e *server.Error
	require.True(t, errors.As(err, &e), "%s should fail with a JSON-RPC error, got %v", method, err)
	return e
}

func createDemo(t testing.TB, c *server.Client, id, dir string) server.CreateResult {
	t.Helper()
	var res server.CreateResult
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, c.Call(ctx, "session.create", map[string]any{"command": "python orders.py", "dir": dir, "id": id}, &res))
	return res
}

// fltBulkRate3 is the FLT of the invocation the demo is about.
const fltBulkRate3 = `Frame: orders:bulk_rate#3   (caller orders:line_total#3, line 22)
Args: qty = 10, rate = 0.15

  16 | if qty > BULK_QUANTITY:  → False
  18 | return 0.0

Return: 0.0
`

// waitEvent reads the client's events until one matches, or fails after a while.
func waitEvent(t testing.TB, c *server.Client, match func(bridge.Event) bool) bridge.Event {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case raw := <-c.Events():
			var ev bridge.Event
			require.NoError(t, json.Unmarshal(raw, &ev))
			if match(ev) {
				return ev
			}
		case <-timeout:
			t.Fatal("the expected session.event did not come")
		}
	}
}

// TestServerEveryMethod drives the demo program through every method over one WebSocket.
func TestServerEveryMethod(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	dir := demoDir(t)

	var sub map[string]string
	require.NoError(t, c.Call(context.Background(), "session.subscribe", map[string]any{}, &sub))
	assert.Equal(t, map[string]string{"subscribed": "*"}, sub)

	res := createDemo(t, c, "demo", dir)
	assert.Equal(t, "demo", res.Session.ID)
	assert.Equal(t, 12, res.Session.Frames)
	assert.Equal(t, 12, res.Run.Frames)
	assert.Equal(t, "total: 29.0\n", res.Run.Stdout)
	assert.False(t, res.Reused)
	assert.True(t, strings.HasPrefix(res.Text, "Recorded `python orders.py` (session demo): 12 call(s) in "), res.Text)
	assert.Contains(t, res.Text, "the target exited with status 0.\nstdout (last lines):\n  total: 29.0\n")
	waitEvent(t, c, func(ev bridge.Event) bool { return ev.Kind == "run_started" && ev.Purpose == "record T" })
	var output strings.Builder // the target's output arrives as it is written, maybe in pieces
	ev := waitEvent(t, c, func(ev bridge.Event) bool {
		if ev.Kind == "output" && ev.Stream == "stdout" {
			output.WriteString(ev.Text)
		}
		return ev.Kind == "run_finished"
	})
	assert.Equal(t, 12, ev.Frames)
	assert.Equal(t, "total: 29.0\n", output.String())

	var again server.CreateResult
	require.NoError(t, c.Call(context.Background(), "session.create",
		map[string]any{"command": "python orders.py", "dir": dir, "id": "demo", "reuse": true}, &again))
	assert.True(t, again.Reused, "the same command in the same directory reuses the recording")

	var list struct {
		Sessions []bridge.Info `json:"sessions"`
	}
	require.NoError(t, c.Call(context.Background(), "session.list", nil, &list))
	require.Len(t, list.Sessions, 1)
	assert.Equal(t, "demo", list.Sessions[0].ID)
	assert.False(t, list.Sessions[0].Closed)

	var got struct {
		Session bridge.Info    `json:"session"`
		Run     server.RunInfo `json:"run"`
	}
	require.NoError(t, c.Call(context.Background(), "session.get", map[string]any{"session": "demo"}, &got))
	assert.Equal(t, 0, got.Run.ExitCode)
	assert.Equal(t, "orders:<module>#1", got.Session.Current)

	s := map[string]any{"session": "demo"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{"session": "demo"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	a := call(t, c, "adi.call_tree", with("depth", "4")) // a number sent as a string
	assert.Equal(t, "call-tree", a.Command)
	assert.True(t, strings.HasPrefix(a.Text, "Call tree of orders:<module>#1 (depth 4, width 10):\n"), a.Text)
	assert.Contains(t, a.Text, "        orders:bulk_rate#3(qty=10, rate=0.15) → 0.0\n")
	assert.False(t, a.TargetFailed)

	a = call(t, c, "adi.list_frames", with("func", "bulk_rate"))
	assert.True(t, strings.HasPrefix(a.Text, "Frames (3 total):\n"), a.Text)

	a = call(t, c, "adi.break", with("func", "bulk_rate"))
	assert.Contains(t, a.Text, "Matches 3 invocation(s): orders:bulk_rate#1, orders:bulk_rate#2, orders:bulk_rate#3. Next: adi.continue.\n")

	var nav struct {
		To string `json:"to"`
	}
	a = call(t, c, "adi.continue", s)
	require.NoError(t, json.Unmarshal(a.Result, &nav))
	assert.Equal(t, "orders:bulk_rate#1", nav.To)
	assert.Contains(t, a.Text, "Args: qty = 12, rate = 0.1\n")
	a = call(t, c, "adi.continue", s)
	require.NoError(t, json.Unmarshal(a.Result, &nav))
	assert.Equal(t, "orders:bulk_rate#2", nav.To)
	a = call(t, c, "adi.prev", s)
	require.NoError(t, json.Unmarshal(a.Result, &nav))
	assert.Equal(t, "orders:bulk_rate#1", nav.To)

	a = call(t, c, "adi.step_into", with("frame", "orders:bulk_rate#3"))
	assert.Contains(t, a.Text, fltBulkRate3)
	a = call(t, c, "adi.step_out", s)
	require.NoError(t, json.Unmarshal(a.Result, &nav))
	assert.Equal(t, "orders:line_total#3", nav.To)

	a = call(t, c, "adi.flt", with("frame", "bulk_rate#3"))
	assert.Equal(t, fltBulkRate3, a.Text)
	a = call(t, c, "adi.diff", with("a", "bulk_rate#1", "b", "bulk_rate#3"))
	assert.True(t, strings.HasPrefix(a.Text, "Diff: A = orders:bulk_rate#1 (caller orders:line_total#1, line 22)\n"), a.Text)
	a = call(t, c, "adi.state", s)
	assert.Contains(t, a.Text, "Inspecting: orders:line_total#3 (T[10]; the recording has 12 call(s))\n")
	a = call(t, c, "adi.list", s)
	assert.Equal(t, "Breakpoints (1):\n  1. orders:bulk_rate  (every call)\n", a.Text)
	a = call(t, c, "adi.run", with("line", "break line_total"))
	assert.Contains(t, a.Text, "2 breakpoint(s) in all")
	a = call(t, c, "adi.clear", with("func", "line_total"))
	assert.Contains(t, a.Text, "1 breakpoint(s) left")
	a = call(t, c, "adi.clear", s)
	a = call(t, c, "adi.list", s)
	assert.Equal(t, "Breakpoints: none. Set one with: adi.break func [cond]\n", a.Text)

	var frames struct {
		Total  int `json:"total"`
		Frames []struct {
			FID struct {
				Func  string `json:"func"`
				Index int    `json:"index"`
			} `json:"fid"`
		} `json:"frames"`
	}
	require.NoError(t, c.Call(context.Background(), "trace.frames", with("limit", "5"), &frames))
	assert.Equal(t, 12, frames.Total)
	assert.Len(t, frames.Frames, 5)
	require.NoError(t, c.Call(context.Background(), "trace.frames", with("query", "BULK_RATE"), &frames))
	assert.Equal(t, 3, frames.Total)
	require.NoError(t, c.Call(context.Background(), "trace.children", with("frame", "price_items#1"), &frames))
	var kids []string
	for _, f := range frames.Frames {
		kids = append(kids, fmt.Sprintf("%s#%d", f.FID.Func, f.FID.Index))
	}
	assert.Equal(t, []string{"orders:line_total#1", "orders:line_total#2", "orders:line_total#3"}, kids)
	require.NoError(t, c.Call(context.Background(), "trace.children", with("frame", 0), &frames))
	assert.Equal(t, "orders:invoice", frames.Frames[0].FID.Func)

	var src struct {
		File  string   `json:"file"`
		Lines []string `json:"lines"`
	}
	require.NoError(t, c.Call(context.Background(), "trace.source", with("file", filepath.Join(dir, "orders.py")), &src))
	assert.Equal(t, "BULK_QUANTITY = 10", src.Lines[6])
	e := callErr(t, c, "trace.source", with("file", "/etc/passwd"))
	assert.Equal(t, server.CodeNotFound, e.Code)
	assert.Equal(t, "trace.source: /etc/passwd is not a file of this recording; only files that appear in T can be read", e.Message)

	var info struct {
		PID          int `json:"pid"`
		OpenSessions int `json:"open_sessions"`
	}
	require.NoError(t, c.Call(context.Background(), "server.info", nil, &info))
	assert.Equal(t, os.Getpid(), info.PID)
	assert.Equal(t, 1, info.OpenSessions)
	var ms struct {
		Methods []server.MethodInfo `json:"methods"`
	}
	require.NoError(t, c.Call(context.Background(), "server.methods", nil, &ms))
	assert.Len(t, ms.Methods, len(server.Methods()))

	var closed map[string]bool
	require.NoError(t, c.Call(context.Background(), "session.close", s, &closed))
	assert.Equal(t, map[string]bool{"closed": true}, closed)
	waitEvent(t, c, func(ev bridge.Event) bool { return ev.Kind == "closed" && ev.Session == "demo" })
	require.NoError(t, c.Call(context.Background(), "session.list", nil, &list))
	require.Len(t, list.Sessions, 1)
	assert.True(t, list.Sessions[0].Closed, "a closed session stays on disk")
	// A command on a closed session reopens it from disk without re-running anything; Σ is kept.
	a = call(t, c, "adi.state", s)
	assert.Contains(t, a.Text, "Inspecting: orders:line_total#3")

	var unsub map[string]string
	require.NoError(t, c.Call(context.Background(), "session.unsubscribe", nil, &unsub))
	assert.Equal(t, map[string]string{"unsubscribed": "*"}, unsub)

	var deleted map[string]bool
	require.NoError(t, c.Call(context.Background(), "session.delete", s, &deleted))
	assert.Equal(t, map[string]bool{"deleted": true}, deleted)
	e = callErr(t, c, "adi.state", s)
	assert.Equal(t, server.CodeSessionNotFound, e.Code)
	assert.Equal(t, `no session "demo"; list them with session.list or create one with session.create`, e.Message)
	assert.Equal(t, "session_not_found", e.Data.Kind)
}

// TestServerExecute runs a statement inside a past frame, then lets the program run on to its end
// (then_continue) and reports the downstream outcome.
func TestServerExecute(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	createDemo(t, c, "ex", demoDir(t))
	var a answer
	err := c.Call(context.Background(), "adi.execute", map[string]any{"session": "ex", "frame": "bulk_rate#3", "line": 16,
		"stmt": "print(qty, qty > BULK_QUANTITY)", "then_continue": true}, &a)
	require.NoError(t, err)
	assert.Contains(t, a.Text, "10 False")
	assert.Contains(t, a.Text, "Then continued: the frame returned 0.0; the program ended: exit 0, the same as before.")
	var res struct {
		Downstream struct {
			FrameReturn string `json:"frame_return"`
			ExitCode    int    `json:"exit_code"`
		} `json:"downstream"`
	}
	require.NoError(t, json.Unmarshal(a.Result, &res))
	assert.Equal(t, "0.0", res.Downstream.FrameReturn)
}

// TestServerAuthAndOrigin checks the refusals of the handshake and of the HTTP API, and that the
// server's own origin, no origin, the query token and the cookie are accepted.
func TestServerAuthAndOrigin(t *testing.T) {
	ts := startServer(t)
	url, tok := ts.srv.URL(), ts.srv.Token()
	wsURL := "ws" + strings.TrimPrefix(url, "http") + "/rpc"
	dialWS := func(u string, h http.Header) (*http.Response, error) {
		c, resp, err := websocket.DefaultDialer.Dial(u, h)
		if err == nil {
			_ = c.Close()
		}
		return resp, err
	}
	body := func(r *http.Response) string {
		b, _ := io.ReadAll(r.Body)
		return string(b)
	}
	const noToken = `{"error":"adi: a token is required; send it as the header 'Authorization: Bearer TOKEN', the query ?token=TOKEN or the adi_token cookie (adi serve prints it)"}`
	const badToken = `{"error":"adi: the token is wrong; use the one adi serve printed"}`
	foreign := fmt.Sprintf(`{"error":"adi: origin http://evil.example may not use this server; only pages served by %s may"}`, url)

	resp, err := dialWS(wsURL, nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.JSONEq(t, noToken, body(resp))
	resp, err = dialWS(wsURL, http.Header{"Authorization": {"Bearer " + strings.Repeat("0", 64)}})
	require.Error(t, err)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.JSONEq(t, badToken, body(resp))
	resp, err = dialWS(wsURL, http.Header{"Authorization": {"Bearer " + tok}, "Origin": {"http://evil.example"}})
	require.Error(t, err)
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.JSONEq(t, foreign, body(resp))

	_, err = dialWS(wsURL, http.Header{"Authorization": {"Bearer " + tok}, "Origin": {url}})
	assert.NoError(t, err, "the server's own origin")
	_, err = dialWS(wsURL, http.Header{"Authorization": {"Bearer " + tok}})
	assert.NoError(t, err, "no origin (a program)")
	_, err = dialWS(wsURL+"?token="+tok, nil)
	assert.NoError(t, err, "the token in the query")
	_, err = dialWS(wsURL, http.Header{"Cookie": {"adi_token=" + tok}, "Origin": {url}})
	assert.NoError(t, err, "the token in the cookie")

	post := func(h http.Header) *http.Response {
		req, err := http.NewRequest("POST", url+"/api/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"session.list"}`))
		require.NoError(t, err)
		for k, v := range h {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	r := post(nil)
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.JSONEq(t, noToken, body(r))
	r = post(http.Header{"Authorization": {"Bearer wrong-token"}})
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.JSONEq(t, badToken, body(r))
	r = post(http.Header{"Authorization": {"Bearer " + tok}, "Origin": {"http://evil.example"}})
	assert.Equal(t, http.StatusForbidden, r.StatusCode)
	assert.JSONEq(t, foreign, body(r))
	r = post(http.Header{"Authorization": {"Bearer " + tok}, "Origin": {url}})
	assert.Equal(t, http.StatusOK, r.StatusCode)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"sessions":[]}}`, body(r))
	r = post(http.Header{"Cookie": {"adi_token=" + tok}})
	assert.Equal(t, http.StatusOK, r.StatusCode)

	g, err := http.Get(url + "/")
	require.NoError(t, err)
	defer g.Body.Close()
	assert.Equal(t, http.StatusNotFound, g.StatusCode)
	assert.JSONEq(t, `{"error":"adi: this server has no viewer; use ws://ADDR/rpc or POST /api/rpc"}`, body(g))
}

// rawConn is a WebSocket with the token, for sending messages the Client would never build.
func rawConn(t *testing.T, ts *testServer) *websocket.Conn {
	t.Helper()
	u := "ws" + strings.TrimPrefix(ts.srv.URL(), "http") + "/rpc"
	c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Authorization": {"Bearer " + ts.srv.Token()}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func roundTrip(t *testing.T, c *websocket.Conn, msg string) string {
	t.Helper()
	require.NoError(t, c.WriteMessage(websocket.TextMessage, []byte(msg)))
	require.NoError(t, c.SetReadDeadline(time.Now().Add(2*time.Minute)))
	_, b, err := c.ReadMessage()
	require.NoError(t, err)
	return string(b)
}

// TestServerBadInput sends every kind of bad message: each gets its JSON-RPC error with the exact
// code and message, and the server goes on serving.
func TestServerBadInput(t *testing.T) {
	ts := startServer(t)
	c := rawConn(t, ts)
	client := ts.dial(t)
	createDemo(t, client, "bad", demoDir(t))

	for _, tc := range []struct{ name, in, out string }{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"the message is not valid JSON; send one JSON-RPC 2.0 request object (or an array of them)","data":{"kind":"parse_error"}}}`},
		{"not JSON-RPC 2.0", `{"jsonrpc":"1.0","id":7,"method":"adi.state"}`,
			`{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"\"jsonrpc\" must be \"2.0\"","data":{"kind":"invalid_request"}}}`},
		{"missing param", `{"jsonrpc":"2.0","id":2,"method":"adi.step_into","params":{"session":"bad"}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"adi.step_into: param \"frame\" is missing; it takes {session, frame, budget?, watch?, loop?, loop_index?, steps?}","data":{"kind":"invalid_params"}}}`},
		{"wrongly typed param", `{"jsonrpc":"2.0","id":3,"method":"adi.call_tree","params":{"session":"bad","depth":true}}`,
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"adi.call_tree: param \"depth\" must be a whole number, got true","data":{"kind":"invalid_params"}}}`},
		{"unknown session", `{"jsonrpc":"2.0","id":4,"method":"adi.state","params":{"session":"nope"}}`,
			`{"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"no session \"nope\"; list them with session.list or create one with session.create","data":{"kind":"session_not_found"}}}`},
		{"unknown function", `{"jsonrpc":"2.0","id":5,"method":"adi.step_into","params":{"session":"bad","frame":"nope#1"}}`,
			`{"jsonrpc":"2.0","id":5,"error":{"code":-32002,"message":"no function \"nope\" in the recording (nothing of it was called, or it is not user code)","data":{"kind":"not_found"}}}`},
		{"bad reference", `{"jsonrpc":"2.0","id":6,"method":"adi.step_into","params":{"session":"bad","frame":"bulk_rate"}}`,
			`{"jsonrpc":"2.0","id":6,"error":{"code":-32003,"message":"adi.step_into: param \"frame\": bulk_rate names a function; add the invocation index, e.g. bulk_rate#1","data":{"kind":"bad_input"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.JSONEq(t, tc.out, roundTrip(t, c, tc.in))
		})
	}

	t.Run("unknown method", func(t *testing.T) {
		var r struct {
			ID    int           `json:"id"`
			Error *server.Error `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(roundTrip(t, c, `{"jsonrpc":"2.0","id":8,"method":"adi.stepinto","params":{}}`)), &r))
		assert.Equal(t, 8, r.ID)
		assert.Equal(t, server.CodeMethodNotFound, r.Error.Code)
		assert.Equal(t, `unknown method "adi.stepinto"; did you mean adi.step_into?`, r.Error.Message)
		assert.Contains(t, r.Error.Data.Valid, "adi.step_into")
	})

	t.Run("number sent as a string", func(t *testing.T) {
		out := roundTrip(t, c, `{"jsonrpc":"2.0","id":9,"method":"adi.call_tree","params":{"session":"bad","depth":"1"}}`)
		assert.Contains(t, out, `"text":"Call tree of orders:<module>#1 (depth 1, width 10):`)
	})

	t.Run("batch with a notification", func(t *testing.T) {
		out := roundTrip(t, c, `[{"jsonrpc":"2.0","id":10,"method":"adi.list","params":{"session":"bad"}},`+
			`{"jsonrpc":"2.0","method":"adi.state","params":{"session":"bad"}},`+
			`{"jsonrpc":"2.0","id":11,"method":"nope"}]`)
		var rs []struct {
			ID    int           `json:"id"`
			Error *server.Error `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &rs))
		require.Len(t, rs, 2, "the notification gets no answer")
		assert.Equal(t, 10, rs[0].ID)
		assert.Nil(t, rs[0].Error)
		assert.Equal(t, 11, rs[1].ID)
		assert.Equal(t, server.CodeMethodNotFound, rs[1].Error.Code)
	})

	t.Run("oversized over HTTP", func(t *testing.T) {
		big := bytes.Repeat([]byte(" "), server.MaxMessage+1)
		req, err := http.NewRequest("POST", ts.srv.URL()+"/api/rpc", bytes.NewReader(big))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+ts.srv.Token())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message too large: the limit is 4194304 bytes (4 MiB); send smaller requests","data":{"kind":"invalid_request"}}}`, string(b))
	})

	t.Run("oversized over WebSocket", func(t *testing.T) {
		big := rawConn(t, ts)
		msg := `{"jsonrpc":"2.0","id":1,"method":"adi.state","params":{"session":"` + strings.Repeat("x", server.MaxMessage) + `"}}`
		go func() { _ = big.WriteMessage(websocket.TextMessage, []byte(msg)) }()
		require.NoError(t, big.SetReadDeadline(time.Now().Add(30*time.Second)))
		_, b, err := big.ReadMessage()
		require.NoError(t, err)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"message too large: the limit is 4194304 bytes (4 MiB); send smaller requests","data":{"kind":"invalid_request"}}}`, string(b))
		_, _, err = big.ReadMessage()
		var ce *websocket.CloseError
		require.True(t, errors.As(err, &ce), "then the server closes: %v", err)
		assert.Equal(t, websocket.CloseMessageTooBig, ce.Code)
	})

	// Nothing else was affected: the session answers as before.
	a := call(t, client, "adi.flt", map[string]any{"session": "bad", "frame": "bulk_rate#3"})
	assert.Equal(t, fltBulkRate3, a.Text)
}

// TestServerSessionsIsolated records two programs at once; each session has its own directory,
// recording and breakpoints.
func TestServerSessionsIsolated(t *testing.T) {
	ts := startServer(t)
	dirA, dirB := demoDir(t), t.TempDir()
	greet, err := os.ReadFile(testdata(t, "greet.py"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dirB, "greet.py"), greet, 0o644))

	var wg sync.WaitGroup
	results := make([]server.CreateResult, 2)
	errs := make([]error, 2)
	for i, p := range []map[string]any{
		{"id": "a", "command": "python orders.py", "dir": dirA},
		{"id": "b", "command": "python greet.py", "dir": dirB},
	} {
		c := ts.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Call(context.Background(), "session.create", p, &results[i])
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, 12, results[0].Session.Frames)
	assert.Equal(t, 0, results[0].Run.ExitCode)
	assert.Equal(t, 3, results[1].Run.ExitCode)
	assert.Equal(t, "hi adahi adahi ada\n", results[1].Run.Stdout)
	assert.Equal(t, dirA, results[0].Session.Dir)
	assert.Equal(t, dirB, results[1].Session.Dir)

	c := ts.dial(t)
	call(t, c, "adi.break", map[string]any{"session": "a", "func": "bulk_rate"})
	b := call(t, c, "adi.list", map[string]any{"session": "b"})
	assert.Equal(t, "Breakpoints: none. Set one with: adi.break func [cond]\n", b.Text, "a breakpoint in a is not in b")
	assert.True(t, b.TargetFailed, "greet.py exits 3: the answer is flagged")
	e := callErr(t, c, "adi.list_frames", map[string]any{"session": "b", "func": "bulk_rate"})
	assert.Equal(t, server.CodeNotFound, e.Code, "b's recording has no bulk_rate")
	a := call(t, c, "adi.call_tree", map[string]any{"session": "b"})
	assert.Contains(t, a.Text, "greet:greet#1(name='ada', times=3) → 'hi adahi adahi ada'")
}

var breakCount = regexp.MustCompile(`(\d+) breakpoint\(s\) in all`)

// TestServerTwoClientsOneSession has two clients add ten conditional breakpoints each to one
// session at once. Each break re-runs the program to evaluate its condition; if two commands
// interleaved, two answers would report the same count of breakpoints. They report 1 to 20,
// each once. (The conditions hold for no call: a break whose condition held would answer with
// the first match's FLT, which does not count the breakpoints.)
func TestServerTwoClientsOneSession(t *testing.T) {
	ts := startServer(t)
	setup := ts.dial(t)
	createDemo(t, setup, "shared", demoDir(t))

	var mu sync.Mutex
	var counts []int
	var wg sync.WaitGroup
	for client := 0; client < 2; client++ {
		c := ts.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				p := map[string]any{"session": "shared", "func": "bulk_rate", "cond": fmt.Sprintf("qty > %d", 100+i)}
				if client == 1 {
					p = map[string]any{"session": "shared", "func": "line_total", "cond": fmt.Sprintf("len(item) > %d", 3+i)}
				}
				var a answer
				if !assert.NoError(t, c.Call(context.Background(), "adi.break", p, &a)) {
					continue
				}
				m := breakCount.FindStringSubmatch(a.Text)
				if !assert.NotNil(t, m, a.Text) {
					continue
				}
				n, _ := strconv.Atoi(m[1])
				mu.Lock()
				counts = append(counts, n)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sort.Ints(counts)
	want := make([]int, 20)
	for i := range want {
		want[i] = i + 1
	}
	assert.Equal(t, want, counts)
	a := call(t, setup, "adi.list", map[string]any{"session": "shared"})
	assert.True(t, strings.HasPrefix(a.Text, "Breakpoints (20):\n"), a.Text)
}

// TestServerDisconnectCancelsItsCommand: a WebSocket client goes away (no close handshake) while
// its exec runs a statement that sleeps ten minutes. The server cancels the command at once, as
// $/cancelRequest would: another client's command on the same session answers (instead of
// waiting for the session's lock until the sleep ends), and no process of the exec's run is left.
func TestServerDisconnectCancelsItsCommand(t *testing.T) {
	ts := startServer(t)
	dir := demoDir(t)
	mark := newMark(t)
	setup := ts.dial(t)
	var created server.CreateResult
	require.NoError(t, setup.Call(testContext(t, 2*time.Minute), "session.create", map[string]any{
		"command": "python orders.py", "dir": dir, "id": "gone", "env": map[string]string{markVar: mark},
		"timeout_ms": 20 * 60 * 1000}, &created)) // a run's time limit (default 60 s) far beyond the test's

	pidFile := filepath.Join(dir, "exec.pid")
	stmt := fmt.Sprintf("import os, time; open(%q, 'w').write(str(os.getpid())); os.rename(%q, %q); time.sleep(600)",
		pidFile+".tmp", pidFile+".tmp", pidFile)
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "adi.execute",
		"params": map[string]any{"session": "gone", "frame": "bulk_rate#3", "stmt": stmt, "timeout": 600}})
	require.NoError(t, err)
	c := rawConn(t, ts)
	require.NoError(t, c.WriteMessage(websocket.TextMessage, req))
	pid := waitPidFile(t, pidFile) // the statement is sleeping in the exec's run
	require.NoError(t, c.Close())  // no close handshake: the client just goes

	// Within a generous limit, far less than the sleep: without the cancel, the session would be
	// busy with the exec for ten minutes.
	other := ts.dial(t)
	var flt answer
	require.NoError(t, other.Call(testContext(t, 90*time.Second), "adi.flt", map[string]any{"session": "gone", "frame": "bulk_rate#3"}, &flt))
	assert.Equal(t, fltBulkRate3, flt.Text)
	assert.True(t, waitProcessGone(pid, 10*time.Second), "the exec's run (pid %d) outlived its cancelled command", pid)
	requireNoMarked(t, mark)
	require.NoError(t, other.Call(testContext(t, time.Minute), "session.close", map[string]any{"session": "gone"}, nil))
	requireNoMarked(t, mark)
}

// TestServeBinarySignal runs the real `adi serve`, starts a recording that would take two minutes,
// sends SIGTERM, and checks that adi exits 0 and the target's process is gone.
func TestServeBinarySignal(t *testing.T) {
	needPython(t)
	bin := adiBinary(t)
	state := t.TempDir()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+state)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(out)
	require.True(t, sc.Scan())
	url, ok := strings.CutPrefix(sc.Text(), "adi listening at ")
	require.True(t, ok, sc.Text())
	assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, url)
	require.True(t, sc.Scan())
	token, ok := strings.CutPrefix(sc.Text(), "adi token ")
	require.True(t, ok, sc.Text())
	assert.Regexp(t, `^[0-9a-f]{64}$`, token)

	c, _, err := server.Dial(context.Background(), url, token, nil)
	require.NoError(t, err)
	defer c.Close()
	go func() {
		_ = c.Call(context.Background(), "session.create", map[string]any{"command": "python " + testdata(t, "sleeper.py")}, nil)
	}()
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); len(kids) == 0; {
		require.True(t, time.Now().Before(deadline), "the target never started")
		kids = children(cmd.Process.Pid)
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = cmd.Wait()
	assert.NoError(t, err, "adi serve exits 0 on SIGTERM; stderr: %s", stderr.String())
	for _, k := range kids {
		assert.True(t, waitProcessGone(k, 10*time.Second), "process %d outlived adi serve", k)
	}
}

// children lists the processes whose parent is pid.
func children(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// TestServerConcurrentOpenSameID has two clients open one target under one id at once (two CLI
// commands started together): it is recorded once and both get it.
func TestServerConcurrentOpenSameID(t *testing.T) {
	ts := startServer(t)
	dir := demoDir(t)
	var wg sync.WaitGroup
	results := make([]server.CreateResult, 2)
	errs := make([]error, 2)
	for i := range results {
		c := ts.dial(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.Call(context.Background(), "session.create",
				map[string]any{"id": "same", "command": "python orders.py", "dir": dir, "reuse": true}, &results[i])
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.ElementsMatch(t, []bool{false, true}, []bool{results[0].Reused, results[1].Reused}, "recorded once, reused once")
}

// TestServeRefusesRemote checks that `adi serve` will not listen beyond loopback unless told to.
func TestServeRefusesRemote(t *testing.T) {
	bin := adiBinary(t)
	cmd := exec.Command(bin, "serve", "--listen", "0.0.0.0:0")
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "adi serve must refuse: %v", err)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Equal(t, "adi: --listen 0.0.0.0:0 is not a loopback address, and whoever reaches it can run code as you; listen on 127.0.0.1, or pass --allow-remote if you mean it\n", stderr.String())
}

// TestServeExitsWhenIdle checks that a server told to stop when idle (the CLI's daemon) does so
// once no session is open, and exits 0 after removing its state file.
func TestServeExitsWhenIdle(t *testing.T) {
	bin := adiBinary(t)
	state := t.TempDir()
	file := filepath.Join(state, "daemon.json")
	cmd := exec.Command(bin, "serve", "--exit-when-idle", "300ms", "--state-file", file)
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+state)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("adi serve --exit-when-idle did not exit")
	}
	_, err := os.Stat(file)
	assert.True(t, os.IsNotExist(err), "the state file is removed on exit")
}
