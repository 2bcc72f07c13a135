package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPTypeScriptSDK runs the MCP TypeScript SDK suite (integration/mcpts): the SDK's own
// Client over StdioClientTransport drives `adi mcp`, lists the tools (names, readOnlyHint,
// outputSchema, which the SDK validates), records a program and reads adi_state and
// adi_call_tree (structuredContent against the text), and cancels a long adi_exec with an
// AbortSignal, after which the next adi_exec answers.
func TestMCPTypeScriptSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the MCP TypeScript SDK suite (integration/mcpts) needs Node.js 20; run scripts/deps.sh")
	}
	dir, err := filepath.Abs("mcpts")
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatal("the MCP suite's npm packages are not installed (integration/mcpts/node_modules): run scripts/deps.sh")
	}
	py := needPython(t)
	cmd := exec.Command(node, "--test", "--test-concurrency=1", "--test-reporter=tap", "test/mcp.test.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ADI_BIN="+adiBinary(t), "ADI_PYTHON="+py.Path, "ADI_STATE_DIR="+t.TempDir(), "WORK_DIR="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	results := tapResults(out.String())
	require.NoError(t, err, "the MCP TypeScript SDK suite failed:\n%s", out.String())
	assert.Equal(t, map[string]string{
		"lists the tools with annotations and output schemas":                               "pass",
		"records a program and answers adi_state and adi_call_tree with structured results": "pass",
		"an adi_exec cancelled by AbortSignal ends at once and the next adi_exec works":     "pass",
	}, results, out.String())
}
