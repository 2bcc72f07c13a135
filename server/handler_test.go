package server

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

// reply is one answer of a batch, as a test reads it.
type reply struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

func newTestHandler(t *testing.T) *Handler {
	t.Helper()
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	h := NewHandler(HandlerConfig{Manager: mgr})
	t.Cleanup(h.Close)
	return h
}

// TestPanicBecomesInternalError registers a method that panics: the call answers -32603 and the
// handler keeps answering.
func TestPanicBecomesInternalError(t *testing.T) {
	register(&method{name: "test.panic", usage: "{}", call: func(*call) (any, error) { panic("boom") }})
	defer delete(methods, "test.panic")
	h := newTestHandler(t)
	out := h.serveMessage(context.Background(), []byte(`[{"jsonrpc":"2.0","id":1,"method":"test.panic"},{"jsonrpc":"2.0","id":2,"method":"session.list"}]`), nil, faces.WebSocket)
	var resps []reply
	require.NoError(t, json.Unmarshal(out, &resps))
	require.Len(t, resps, 2)
	require.NotNil(t, resps[0].Error)
	assert.Equal(t, CodeInternal, resps[0].Error.Code)
	assert.Equal(t, "internal error in test.panic: boom (the server is still up; please report this)", resps[0].Error.Message)
	assert.Nil(t, resps[1].Error)
	assert.JSONEq(t, `{"sessions":[]}`, string(resps[1].Result))
}

func TestStreamMethodsNeedAWebSocket(t *testing.T) {
	h := newTestHandler(t)
	_, err := h.Call("session.subscribe", nil, nil)
	require.NotNil(t, err)
	assert.Equal(t, CodeInvalidRequest, err.Code)
	assert.Equal(t, "session.subscribe needs a WebSocket connection (ws://ADDR/rpc); this endpoint cannot send notifications", err.Message)
}

func TestNotificationsGetNoAnswer(t *testing.T) {
	h := newTestHandler(t)
	assert.Nil(t, h.serveMessage(context.Background(), []byte(`{"jsonrpc":"2.0","method":"session.list"}`), nil, faces.WebSocket))
	assert.Nil(t, h.serveMessage(context.Background(), []byte(`[{"jsonrpc":"2.0","method":"session.list"}]`), nil, faces.WebSocket))
}

// TestEventQueueDropsOldest fills a connection's event queue past its bound: the oldest events
// go, the next event written says how many, and the answer queued after them keeps its place.
func TestEventQueueDropsOldest(t *testing.T) {
	c := newConn(nil, nil, nil)
	for i := 0; i < eventQueue+5; i++ {
		c.queueEvent(bridge.Event{Session: "s", Kind: "output", Text: string(rune('a' + i%26))})
	}
	c.queueAnswer([]byte(`{"answer":1}`))
	msg, closing := c.next()
	assert.False(t, closing)
	var n struct {
		Method string `json:"method"`
		Params struct {
			Text    string `json:"text"`
			Dropped int    `json:"dropped"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(msg, &n))
	assert.Equal(t, "session.event", n.Method)
	assert.Equal(t, 5, n.Params.Dropped)
	assert.Equal(t, string(rune('a'+5)), n.Params.Text, "the five oldest were dropped")
	msg, _ = c.next()
	n.Params.Dropped = -1
	require.NoError(t, json.Unmarshal(msg, &n))
	assert.Equal(t, -1, n.Params.Dropped, "dropped is omitted once reported")
	for i := 0; i < eventQueue-2; i++ {
		msg, _ = c.next()
		assert.Contains(t, string(msg), "session.event")
	}
	msg, _ = c.next()
	assert.Equal(t, `{"answer":1}`, string(msg), "the answer comes in its place, after the events before it")
	msg, closing = c.next()
	assert.Nil(t, msg)
	assert.False(t, closing)
}

// TestBatchSkipsCallsAfterAFailedCreate: a batch [session.create, X] means X on that session, so
// when the create fails, the later elements naming its session are not run (the CLI sends a
// command this way); the others run as ever.
func TestBatchSkipsCallsAfterAFailedCreate(t *testing.T) {
	h := newTestHandler(t)
	out := h.serveMessage(context.Background(), []byte(`[{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"id":"s1","command":"python3 /nonexistent/dir/t.py"}},`+
		`{"jsonrpc":"2.0","id":2,"method":"adi.flt","params":{"session":"s1"}},`+
		`{"jsonrpc":"2.0","id":3,"method":"adi.flt","params":{"session":"s2"}},`+
		`{"jsonrpc":"2.0","id":4,"method":"session.list"}]`), nil, faces.WebSocket)
	var resps []reply
	require.NoError(t, json.Unmarshal(out, &resps))
	require.Len(t, resps, 4)
	require.NotNil(t, resps[0].Error, "the create fails")
	assert.Equal(t, "cannot run /nonexistent/dir/t.py: no such file", resps[0].Error.Message)
	require.NotNil(t, resps[1].Error)
	assert.Equal(t, CodeRefused, resps[1].Error.Code)
	assert.Equal(t, "not run: the session.create of s1 before it in this batch failed; see that error", resps[1].Error.Message)
	require.NotNil(t, resps[2].Error, "another session's call runs: s2 does not exist")
	assert.Equal(t, CodeSessionNotFound, resps[2].Error.Code)
	assert.Nil(t, resps[3].Error)
	assert.JSONEq(t, `{"sessions":[]}`, string(resps[3].Result))

	// outside a batch nothing is skipped (the CLI tests send batches whose create succeeds)
	single := h.serveMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":5,"method":"adi.flt","params":{"session":"s1"}}`), nil, faces.WebSocket)
	assert.Contains(t, string(single), fmt.Sprintf(`"code":%d`, CodeSessionNotFound), "s1 does not exist: its own error")
}
