package mcpserver

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

func connect(t *testing.T) *mcp.ClientSession {
	t.Helper()
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(mgr.Shutdown)
	s := New(Config{Manager: mgr})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	go func() { _ = s.Run(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// TestToolSchemas checks that every tool has a description and a schema naming its params, with
// the required ones marked.
func TestToolSchemas(t *testing.T) {
	cs := connect(t)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, res.Tools, len(tools))
	byName := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		byName[tool.Name] = tool
		assert.Contains(t, tools, tool.Name)
		assert.NotEmpty(t, tool.Description)
	}
	schema := func(name string) map[string]any {
		m, ok := byName[name].InputSchema.(map[string]any)
		require.True(t, ok, name)
		return m
	}
	assert.Equal(t, []any{"func"}, schema("adi_break")["required"])
	assert.Equal(t, []any{"frame", "stmt"}, schema("adi_exec")["required"])
	assert.Equal(t, []any{"command"}, schema("adi_open")["required"])
	assert.Nil(t, schema("adi_continue")["required"], "the session defaults to the last one")
	props := schema("adi_exec")["properties"].(map[string]any)
	for _, p := range []string{"session", "budget", "frame", "stmt", "line", "visit", "then_continue"} {
		assert.Contains(t, props, p)
	}
}

func TestToolWithoutSession(t *testing.T) {
	cs := connect(t)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "adi_continue"})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, "no session yet: call adi_open with the command to debug first", res.Content[0].(*mcp.TextContent).Text)
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "adi_sessions"})
	require.NoError(t, err)
	assert.False(t, res.IsError)
	assert.Equal(t, "No sessions. Open one with adi_open.\n", res.Content[0].(*mcp.TextContent).Text)
}

// TestSessionsText checks adi_sessions' lines: a recorded session's exit status, a live
// session's state instead of the -1 a live recording has for an exit status, and a session
// without one (a live session on disk) saying so.
func TestSessionsText(t *testing.T) {
	raw := []byte(`{"sessions":[` +
		`{"id":"rec","command":"python t.py","dir":"/p","frames":12,"current":"t:f#1","exit_code":1},` +
		`{"id":"watched","command":"python t.py","dir":"/p","frames":3,"current":"t:f#1","exit_code":-1,"live":{"state":"Done"}},` +
		`{"id":"gone","command":"python t.py","dir":"/p","frames":3,"exit_code":-1,"closed":true}]}`)
	assert.Equal(t, "Sessions (3):\n"+
		"  rec  `python t.py` in /p: 12 calls, exit status 1, at t:f#1 (open)\n"+
		"  watched  `python t.py` in /p: 3 calls, live: Done, at t:f#1 (open)\n"+
		"  gone  `python t.py` in /p: 3 calls, no exit status, at - (closed, on disk)\n", sessionsText(raw))
}
