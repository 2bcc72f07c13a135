package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpText returns the text of a tool result.
func mcpText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "the result is text")
	return tc.Text
}

// TestMCPDemo drives `adi mcp` with the go-sdk's own client over stdio: it lists the tools, opens
// the demo program (with progress), and walks it with break and continue.
func TestMCPDemo(t *testing.T) {
	needPython(t)
	bin := adiBinary(t)
	dir := demoDir(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	cmd := exec.Command(bin, "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "adi-test", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer func() {
		assert.NoError(t, cs.Close())
		assert.True(t, waitProcessGone(cmd.Process.Pid, 10*time.Second), "adi mcp ends when its stdin closes")
	}()

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		assert.NotEmpty(t, tool.Description, tool.Name)
		assert.NotNil(t, tool.InputSchema, tool.Name)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"adi_break", "adi_call_tree", "adi_clear", "adi_close", "adi_continue", "adi_diff", "adi_exec",
		"adi_flt", "adi_list", "adi_list_frames", "adi_open", "adi_prev", "adi_sessions", "adi_state", "adi_step_into",
		"adi_step_out", "live_attach", "live_caught", "live_clear", "live_close", "live_continue", "live_flt", "live_interact",
		"live_restart", "live_set_breakpoint", "live_stack", "live_start", "live_status", "live_unwatch", "live_watch", "live_where"}, names)

	callTool := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{"progressToken": name}})
		require.NoError(t, err)
		text := mcpText(t, res)
		require.False(t, res.IsError, "%s failed: %s", name, text)
		return text
	}

	text := callTool("adi_open", map[string]any{"command": "python orders.py"})
	assert.True(t, strings.HasPrefix(text, "Recorded `python orders.py` (session "), text)
	assert.Contains(t, text, "12 call(s)")
	assert.Contains(t, text, "stdout (last lines):\n  total: 29.0\n")
	// The server sends progress before the result; the client may handle it a little later.
	assert.Eventually(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) >= 2 && progress[0] == "running the program: record T" &&
			progress[len(progress)-1] == "run finished (record T): 12 calls"
	}, 10*time.Second, 10*time.Millisecond, "adi_open reports its progress")

	text = callTool("adi_call_tree", map[string]any{"depth": 4})
	assert.Contains(t, text, "        orders:bulk_rate#3(qty=10, rate=0.15) → 0.0\n")

	text = callTool("adi_break", map[string]any{"func": "bulk_rate"})
	assert.Contains(t, text, "Breakpoint set: orders:bulk_rate  (every call)")
	assert.Contains(t, text, "Matches 3 invocation(s): orders:bulk_rate#1, orders:bulk_rate#2, orders:bulk_rate#3. Next: adi_continue.\n")

	text = callTool("adi_continue", nil)
	lines := strings.Split(text, "\n")
	assert.Equal(t, "continue → orders:bulk_rate#1  (hit 1 of 3)", lines[0])
	assert.Contains(t, lines, "Frame: orders:bulk_rate#1   (caller orders:line_total#1, line 22)")
	assert.Contains(t, lines, "Args: qty = 12, rate = 0.1")
	assert.Contains(t, lines, "  16 | if qty > BULK_QUANTITY:  → True")
	assert.Contains(t, lines, "  17 | return rate")
	assert.Contains(t, lines, "Return: 0.1")

	callTool("adi_continue", nil)
	text = callTool("adi_continue", map[string]any{"budget": 500})
	assert.True(t, strings.HasPrefix(text, "continue → orders:bulk_rate#3  (hit 3 of 3)\n"), text)
	assert.Contains(t, text, fltBulkRate3)

	text = callTool("adi_state", nil)
	assert.Contains(t, text, "Inspecting: orders:bulk_rate#3 (T[11]; the recording has 12 call(s))")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "adi_step_into", Arguments: map[string]any{"frame": "nope#1"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	assert.Equal(t, `no function "nope" in the recording (nothing of it was called, or it is not user code) (not_found)`, mcpText(t, res))

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "adi_step_into", Arguments: map[string]any{"frame": 3}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "the schema refuses a number for a frame")

	text = callTool("adi_sessions", nil)
	assert.Contains(t, text, "`python orders.py` in "+dir+": 12 calls, exit status 0, at orders:bulk_rate#3 (open)")
	text = callTool("adi_close", nil)
	assert.Contains(t, text, "Closed session ")
}

// TestMCPStructured drives `adi mcp` with the go-sdk's client over stdio: the capabilities (no
// logging), the read-only annotations and output schemas, structuredContent equal to the
// JSON-RPC result, one progress notification per output line, an exec run without a call count,
// an integer sent as a string, and a closed session listed with its directory and frame.
func TestMCPStructured(t *testing.T) {
	needPython(t)
	dir := t.TempDir()
	writeProgram(t, dir, "ticks.py", "def tick(i):\n    print(\"tick\", i)\n    return i\n\n\nfor i in range(4):\n    tick(i)\n")
	ctx := testContext(t, 3*time.Minute)
	cmd := exec.Command(adiBinary(t), "mcp")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "adi-test", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
		},
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer func() { assert.NoError(t, cs.Close()) }()

	caps := cs.InitializeResult().Capabilities
	assert.Nil(t, caps.Logging, "adi sends no log messages")
	assert.NotNil(t, caps.Tools)

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var readOnly []string
	for _, tool := range tools.Tools {
		assert.NotNil(t, tool.OutputSchema, tool.Name)
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			readOnly = append(readOnly, tool.Name)
		}
	}
	sort.Strings(readOnly)
	assert.Equal(t, []string{"adi_call_tree", "adi_diff", "adi_flt", "adi_list", "adi_list_frames", "adi_sessions", "adi_state",
		"live_stack", "live_status", "live_where"}, readOnly)

	// waitProgress waits for a call's notifications (sent before its result, handled a little later).
	waitProgress := func(want []string) {
		t.Helper()
		assert.Eventually(t, func() bool {
			mu.Lock()
			defer mu.Unlock()
			return len(progress) >= len(want)
		}, 10*time.Second, 10*time.Millisecond)
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, want, progress)
		progress = nil
	}
	callTool := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{"progressToken": name}})
		require.NoError(t, err)
		require.False(t, res.IsError, "%s failed: %s", name, mcpText(t, res))
		return res
	}
	structured := func(res *mcp.CallToolResult) map[string]any {
		t.Helper()
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		var m map[string]any
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}

	res := callTool("adi_open", map[string]any{"command": "python ticks.py", "session": "ticks"})
	waitProgress([]string{"running the program: record T", "stdout: tick 0", "stdout: tick 1", "stdout: tick 2", "stdout: tick 3",
		"run finished (record T): 5 calls"})
	open := structured(res)
	assert.Equal(t, mcpText(t, res), open["text"].(string)+"Session id: ticks (the default for the next tools).\n")
	assert.Equal(t, false, open["reused"])
	assert.Equal(t, "ticks", open["session"].(map[string]any)["id"])

	res = callTool("adi_state", nil)
	assert.Equal(t, map[string]any{"command": "state",
		"result":        map[string]any{"breakpoints": []any{}, "current": "ticks:<module>#1", "current_frame": float64(0), "frames": float64(5), "recording": map[string]any{}},
		"target_failed": false,
		"text":          "Breakpoints: none. Set one with: adi_break func [cond]\nInspecting: ticks:<module>#1 (T[0]; the recording has 5 call(s))\n"},
		structured(res))
	assert.Equal(t, mcpText(t, res), structured(res)["text"])

	res = callTool("adi_exec", map[string]any{"frame": "tick#3", "stmt": "i * 10"})
	waitProgress([]string{"running the program: exec in ticks:tick#3", "stdout: tick 0", "stdout: tick 1", "stdout: tick 2",
		"run finished (exec in ticks:tick#3)"})
	assert.Contains(t, mcpText(t, res), "20")

	// An integer argument may come as a string, as the JSON-RPC API takes it; anything else is
	// refused with the API's message.
	asNumber := mcpText(t, callTool("adi_call_tree", map[string]any{"depth": 1}))
	assert.Equal(t, asNumber, mcpText(t, callTool("adi_call_tree", map[string]any{"depth": "1"})))
	bad, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "adi_call_tree", Arguments: map[string]any{"depth": "deep"}})
	require.NoError(t, err)
	assert.True(t, bad.IsError)
	assert.Equal(t, `adi_call_tree: param "depth" must be a whole number, got "deep" (invalid_params)`, mcpText(t, bad))

	callTool("adi_step_into", map[string]any{"frame": "tick#2"})
	assert.Equal(t, map[string]any{"closed": true}, structured(callTool("adi_close", nil)))
	res = callTool("adi_sessions", nil)
	assert.Equal(t, "Sessions (1):\n  ticks  `python ticks.py` in "+dir+": 5 calls, exit status 0, at ticks:tick#2 (closed, on disk)\n", mcpText(t, res))
	sessions := structured(res)["sessions"].([]any)
	require.Len(t, sessions, 1)
	s := sessions[0].(map[string]any)
	assert.Equal(t, []any{"ticks", dir, "ticks:tick#2", true}, []any{s["id"], s["dir"], s["current"], s["closed"]})
}
