package dapproxy

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/daptest"
)

// These tests run the proxy's link loops in-process between a daptest.Client (the editor) and a
// daptest.Adapter (debugpy), over net.Pipe: no process is started, each runs in milliseconds.
// The same paths against the real debugpy are in integration/dapproxy_test.go.

// rig is a Server whose connections go to fake adapters.
type rig struct {
	t   *testing.T
	srv *Server

	mu       sync.Mutex
	adapters []*daptest.Adapter
}

func newRig(t *testing.T, cfg Config) *rig {
	t.Helper()
	cfg.Python = &dap.Python{Path: "python3"}
	if cfg.Log == nil {
		cfg.Log = hclog.New(&hclog.LoggerOptions{Output: io.Discard})
	}
	srv, err := NewServer(cfg)
	require.NoError(t, err)
	r := &rig{t: t, srv: srv}
	srv.newBackend = func(log hclog.Logger, tap func([]byte)) (*backend, error) {
		a, conn := daptest.NewAdapter(t)
		a.Limit = 5 * time.Second
		r.mu.Lock()
		r.adapters = append(r.adapters, a)
		r.mu.Unlock()
		return connBackend(conn, log, tap), nil
	}
	t.Cleanup(func() { srv.Close(5 * time.Second) })
	return r
}

// connect opens an editor connection; it returns the editor, its fake adapter, its link, and a
// channel closed when ServeConn returned.
func (r *rig) connect() (*daptest.Client, *daptest.Adapter, *link, <-chan struct{}) {
	r.t.Helper()
	mine, theirs := net.Pipe()
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = r.srv.ServeConn(context.Background(), theirs, theirs, theirs)
	}()
	e := daptest.NewClient(r.t, mine)
	e.Limit = 5 * time.Second
	e.Call("initialize", map[string]any{"adapterID": "fake"}) // answered: the link is registered
	var l *link
	r.srv.mu.Lock()
	for k := range r.srv.links {
		if l == nil || k.id > l.id {
			l = k
		}
	}
	r.srv.mu.Unlock()
	r.mu.Lock()
	a := r.adapters[len(r.adapters)-1]
	r.mu.Unlock()
	a.ExpectRequest("initialize")
	return e, a, l, served
}

func waitServed(t *testing.T, served <-chan struct{}) {
	t.Helper()
	select {
	case <-served:
	case <-time.After(5 * time.Second):
		t.Fatal("the connection was not torn down")
	}
}

// Each peer sees its own gap-free sequence: the editor's adi/ request never reaches the adapter,
// the adapter's events and responses are renumbered for the editor, and every response goes back
// under the number its request had.
func TestLinkRenumbersBothWays(t *testing.T) {
	r := newRig(t, Config{})
	e, a, _, _ := r.connect()
	a.Handle("threads", func(a *daptest.Adapter, req *dap.Message) {
		a.Event("output", map[string]any{"category": "console", "output": "x"})
		a.Respond(req, map[string]any{"threads": []any{}})
	})

	adi := e.Response(e.Send("adi/session", nil)) // editor seq 2: answered by the proxy
	assert.False(t, adi.Success)
	assert.Contains(t, adi.ErrMessage, "nothing is recorded yet")
	threads := e.Send("threads", nil) // editor seq 3: the adapter's 2
	req := a.ExpectRequest("threads")
	assert.Equal(t, 2, req.Seq)
	resp := e.Response(threads)
	assert.True(t, resp.Success)
	e.Event("output")

	var seqs []int
	for _, m := range e.Messages() {
		seqs = append(seqs, m.Seq)
	}
	assert.Equal(t, []int{1, 2, 3, 4}, seqs, "initialize's response, adi/session's, the output event, threads'")
	assert.Equal(t, []string{"initialize", "threads"}, a.Requests())
}

// When the adapter dies, the requests it never answered fail, the editor hears the session end
// (an output line, exited, terminated), later requests are refused, and disconnect ends the
// connection.
func TestLinkAdapterDies(t *testing.T) {
	r := newRig(t, Config{})
	e, a, _, served := r.connect()
	e.Call("launch", map[string]any{"program": "x.py"})
	a.Handle("pause", daptest.Ignore)
	pause := e.Send("pause", map[string]any{"threadId": 1})
	a.ExpectRequest("pause")
	a.Die()

	resp := e.Response(pause)
	assert.False(t, resp.Success)
	assert.Equal(t, "adi: the debugpy adapter ended before it answered; restart the debug session", resp.ErrMessage)
	out := daptest.Body[map[string]any](t, e.Event("output"))
	assert.Contains(t, out["output"], "adi: the debugpy adapter ended unexpectedly")
	assert.Equal(t, float64(killedExitCode), daptest.Body[map[string]any](t, e.Event("exited"))["exitCode"])
	e.Event("terminated")

	refused := e.Response(e.Send("threads", nil))
	assert.False(t, refused.Success)
	assert.Equal(t, "adi: the debugpy adapter has ended; restart the debug session", refused.ErrMessage)
	assert.True(t, e.Call("disconnect", nil).Success)
	assert.ErrorIs(t, e.WaitClosed(5*time.Second), io.EOF)
	waitServed(t, served)
}

// An editor that leaves without disconnect gets DAP's default: the proxy asks the adapter to
// disconnect on its behalf, then closes it.
func TestLinkTeardownDisconnectsForTheEditor(t *testing.T) {
	r := newRig(t, Config{})
	e, a, _, served := r.connect()
	require.NoError(t, e.Close())
	d := a.ExpectRequest("disconnect")
	assert.JSONEq(t, `{"restart": false}`, string(mustMember(t, d.Raw, "arguments")))
	require.NoError(t, a.WaitClosed(5*time.Second))
	waitServed(t, served)
}

// An editor's disconnect is forwarded; the adapter's answer ends both sides.
func TestLinkDisconnectEndsTheConnection(t *testing.T) {
	r := newRig(t, Config{})
	e, a, _, served := r.connect()
	e.Call("disconnect", map[string]any{"terminateDebuggee": true})
	a.ExpectRequest("disconnect")
	assert.ErrorIs(t, e.WaitClosed(5*time.Second), io.EOF)
	require.NoError(t, a.WaitClosed(5*time.Second))
	waitServed(t, served)
	assert.Equal(t, []string{"initialize", "disconnect"}, a.Requests(), "no second disconnect")
}

// recordedLink gives l a recording of a program that never runs (the tests play its adapter).
func recordedLink(t *testing.T, l *link) {
	t.Helper()
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	// The link ends (and its recorder writes the run's last files) before the manager shuts down
	// and the state directory is removed: cleanups run last registered first.
	t.Cleanup(func() { l.srv.Close(5 * time.Second) })
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.py"), []byte("print(1)\n"), 0o644))
	x, err := mgr.StartExternal(context.Background(), "", bridge.Options{Command: "python app.py", Dir: dir, Python: "/usr/bin/python3"})
	require.NoError(t, err)
	l.mu.Lock()
	l.kind, l.rec = "launch", newRecorder(l, x, "")
	l.mu.Unlock()
}

// At a stop the proxy asks the adapter where the thread is before the editor's resume reaches it:
// the gate, armed before the editor hears of the stop, holds continue until the inspection ends.
func TestLinkGateHoldsResumeUntilInspected(t *testing.T) {
	r := newRig(t, Config{})
	e, a, l, _ := r.connect()
	recordedLink(t, l)
	a.Handle("stackTrace", daptest.Ignore)
	a.Handle("evaluate", daptest.Ignore)

	a.Event("stopped", map[string]any{"reason": "breakpoint", "threadId": 1})
	e.Event("stopped")
	cont := e.Send("continue", map[string]any{"threadId": 1})
	st := a.ExpectRequest("stackTrace")
	a.Respond(st, map[string]any{"stackFrames": []any{map[string]any{"id": 7, "name": "f", "line": 1, "column": 1}}})
	ev := a.ExpectRequest("evaluate")
	assert.Contains(t, string(ev.Raw), "adi_probe.editor")
	assert.NotContains(t, a.Requests(), "continue", "the resume waits for the inspection")
	a.Respond(ev, map[string]any{"result": "-1", "variablesReference": 0})
	a.ExpectRequest("continue")
	assert.True(t, e.Response(cont).Success)
	assert.Equal(t, []string{"initialize", "stackTrace", "evaluate", "continue"}, a.Requests())
}

// A panic in the inspection of a stop (a worker of the connection) ends that connection with one
// line in the editor's console; the process and the server's other connections go on.
func TestLinkPanicInInspectionEndsOnlyItsConnection(t *testing.T) {
	testHookInspect = func(int) { panic("boom") }
	t.Cleanup(func() { testHookInspect = nil })
	r := newRig(t, Config{})
	e, a, l, served := r.connect()
	recordedLink(t, l)

	a.Event("stopped", map[string]any{"reason": "breakpoint", "threadId": 1})
	e.Event("stopped")
	out := daptest.Body[map[string]any](t, e.Event("output"))
	assert.Equal(t, "adi: internal error in a worker of the connection: boom; the debug session is over (please report this)\n", out["output"])
	a.ExpectRequest("disconnect") // the teardown's, on the editor's behalf
	assert.ErrorIs(t, e.WaitClosed(5*time.Second), io.EOF)
	waitServed(t, served)

	testHookInspect = nil
	e2, a2, _, _ := r.connect()
	e2.Call("threads", nil)
	a2.ExpectRequest("threads")
}

func mustMember(t *testing.T, raw []byte, key string) []byte {
	t.Helper()
	v, err := getMember(raw, key)
	require.NoError(t, err)
	return v
}
