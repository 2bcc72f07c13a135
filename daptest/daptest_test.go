package daptest

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
)

// The client and the fake adapter talk to each other: requests are answered by handlers (or
// with an empty success), events arrive in order, and each side sees the other close.
func TestClientAndAdapter(t *testing.T) {
	a, conn := NewAdapter(t)
	a.Handle("threads", func(a *Adapter, req *dap.Message) {
		a.Event("output", map[string]any{"output": "before"})
		a.Respond(req, map[string]any{"threads": []any{map[string]any{"id": 1, "name": "main"}}})
	})
	a.Handle("evaluate", func(a *Adapter, req *dap.Message) { a.Fail(req, "no frame") })
	a.Handle("pause", Ignore)
	c := NewClient(t, conn)
	c.Limit = 5 * time.Second

	c.Call("initialize", nil)
	threads := c.Call("threads", nil)
	assert.Equal(t, 1, len(Body[struct {
		Threads []any `json:"threads"`
	}](t, threads).Threads))
	assert.Equal(t, "before", Body[map[string]any](t, c.Event("output"))["output"])
	r := c.Response(c.Send("evaluate", map[string]any{"expression": "x"}))
	assert.False(t, r.Success)
	assert.Equal(t, "no frame", r.ErrMessage)
	c.Send("pause", nil)
	assert.Equal(t, "pause", a.ExpectRequest("pause").Command)
	assert.Equal(t, []string{"initialize", "threads", "evaluate", "pause"}, a.Requests())

	a.Die()
	assert.ErrorIs(t, c.WaitClosed(5*time.Second), io.EOF)
	require.NoError(t, a.WaitClosed(5*time.Second))
}
