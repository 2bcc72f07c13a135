package integration

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUsagePerFace sends one param error that lists the params a method takes (live.start with
// an empty command) through each face, and checks the list is in that face's words: the
// JSON-RPC params on the WebSocket API, the arguments and flags of `adi live start` on the CLI
// (without those it has no flag for), and live_start's argument names on MCP; and adi_break's,
// whose session is optional there.
func TestUsagePerFace(t *testing.T) {
	needPython(t)
	dir := t.TempDir()

	t.Run("websocket", func(t *testing.T) {
		client := startServer(t).dial(t)
		e := callErr(t, client, "live.start", map[string]any{"command": " "})
		assert.Equal(t, `live.start: param "command" is empty; it takes {command, id?, replace?, dir?, env?, timeout_ms?, python?}`, e.Message)
	})

	t.Run("cli", func(t *testing.T) {
		res := newCLI(t, dir).run("live", "start", " ")
		assert.Equal(t, "adi: adi live start: param \"CMD\" is empty; it takes CMD [--id] [-t SECONDS] [--python]\n", res.stderr)
		assert.NotEqual(t, 0, res.code)
	})

	t.Run("mcp", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.Command(adiBinary(t), "mcp")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "ADI_STATE_DIR="+t.TempDir())
		client := mcp.NewClient(&mcp.Implementation{Name: "adi-test", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err)
		defer cs.Close()
		for _, tc := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"live_start", map[string]any{"command": " "},
				`live_start: param "command" is empty; it takes {command, id?, dir?, env?, timeout_seconds?} (invalid_params)`},
			{"adi_break", map[string]any{"session": "s", "func": " "},
				`adi_break: param "func" is empty; it takes {session?, func, cond?, when?, line?, budget?, watch?, loop?, loop_index?, steps?} (invalid_params)`},
		} {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
			require.NoError(t, err)
			assert.True(t, res.IsError, tc.tool)
			assert.Equal(t, tc.want, mcpText(t, res))
		}
	})
}
