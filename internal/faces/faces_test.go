package faces

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestRender checks that each face renders the markers of a message in its own names.
func TestRender(t *testing.T) {
	msg := "It is removed once hit (pass " + Param("live.set_breakpoint", "keep") + " to keep it); " + Cmd("live.restart") + " sets it again."
	assert.Equal(t, "It is removed once hit (pass --keep to keep it); adi live restart sets it again.", CLI.Render(msg))
	assert.Equal(t, "It is removed once hit (pass keep to keep it); live_restart sets it again.", MCP.Render(msg))
	assert.Equal(t, "It is removed once hit (pass keep to keep it); live.restart sets it again.", WebSocket.Render(msg))

	msg = "raise the limit: " + Param("session.create", "timeout_ms") + "; " + Cmd("live.list")
	assert.Equal(t, "raise the limit: --timeout SECONDS; adi live list", CLI.Render(msg))
	assert.Equal(t, "raise the limit: timeout_seconds; live.list", MCP.Render(msg), "a command MCP has no tool for keeps its method name")
	assert.Equal(t, "raise the limit: timeout_ms; live.list", WebSocket.Render(msg))
	assert.Equal(t, "plain ⟦text⟧", CLI.Render("plain ⟦text⟧"), "text that is no marker stays")
}

// TestRenderJSON checks that names are escaped for the JSON strings they are put in.
func TestRenderJSON(t *testing.T) {
	b := []byte(`{"text":"no session; list them with ` + Cmd("session.list") + ` or create one with ` + Cmd("session.create") + `"}`)
	assert.Equal(t, `{"text":"no session; list them with adi sessions or create one with a command given the target, e.g. adi call-tree \"python t.py\""}`, string(CLI.RenderJSON(b)))
	assert.Equal(t, `{"text":"no session; list them with adi_sessions or create one with adi_open"}`, string(MCP.RenderJSON(b)))
	assert.Equal(t, `{"text":"no session; list them with session.list or create one with session.create"}`, string(WebSocket.RenderJSON(b)))
}
