package integration

import (
	"context"
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
		"adi_step_out", "live_clear", "live_close", "live_continue", "live_interact", "live_restart", "live_set_breakpoint",
		"live_stack", "live_start", "live_status", "live_where"}, names)

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
	assert.Contains(t, text, "Matches 3 invocation(s): orders:bulk_rate#1, orders:bulk_rate#2, orders:bulk_rate#3. Next: continue.\n")

	text = callTool("adi_continue", nil)
	lines := strings.Split(text, "\n")
	assert.Equal(t, "continue → orders:bulk_rate#1  (breakpoint orders:bulk_rate; hit 1 of 3)", lines[0])
	assert.Contains(t, lines, "Frame: orders:bulk_rate#1   (caller orders:line_total#1, line 22)")
	assert.Contains(t, lines, "Args: qty = 12, rate = 0.1")
	assert.Contains(t, lines, "  16 | if qty > BULK_QUANTITY:  → True")
	assert.Contains(t, lines, "  17 | return rate")
	assert.Contains(t, lines, "Return: 0.1")

	callTool("adi_continue", nil)
	text = callTool("adi_continue", map[string]any{"budget": 500})
	assert.True(t, strings.HasPrefix(text, "continue → orders:bulk_rate#3  (breakpoint orders:bulk_rate; hit 3 of 3)\n"), text)
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
