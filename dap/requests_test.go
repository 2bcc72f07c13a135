package dap

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetBreakpointsSendsEmptyList checks that clearing a file's breakpoints sends
// "breakpoints": [] (go-dap would omit it, and debugpy's pydevd then disconnects).
func TestSetBreakpointsSendsEmptyList(t *testing.T) {
	toAdapter, fromClient := io.Pipe()
	fromAdapter, toClient := io.Pipe()
	c := NewClient(NewConn(fromAdapter, fromClient, multiCloser{fromClient, fromAdapter}), nil)
	defer c.Close()
	adapter := NewConn(toAdapter, toClient, multiCloser{toAdapter, toClient})
	got := make(chan string, 1)
	go func() {
		m, err := adapter.Read()
		if err != nil {
			got <- err.Error()
			return
		}
		got <- string(m.Raw)
		_ = adapter.WriteRaw([]byte(`{"seq":1,"type":"response","request_seq":1,"command":"setBreakpoints","success":true,"body":{"breakpoints":[]}}`))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bps, err := c.SetBreakpoints(ctx, "/t.py", nil)
	require.NoError(t, err)
	assert.Empty(t, bps)
	assert.JSONEq(t, `{"seq":1,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":"/t.py"},"breakpoints":[]}}`, <-got)
}
