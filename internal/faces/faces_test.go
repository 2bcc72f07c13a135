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

// TestUsage checks that a method's usage is rendered as each face's list of what it takes.
func TestUsage(t *testing.T) {
	msg := "it takes " + Usage("adi.break", "{session, func, cond?, when?, line?, budget?, watch?}")
	assert.Equal(t, "it takes {session, func, cond?, when?, line?, budget?, watch?}", WebSocket.Render(msg))
	assert.Equal(t, "it takes {session?, func, cond?, when?, line?, budget?, watch?}", MCP.Render(msg))
	assert.Equal(t, "it takes FUNC [--cond EXPR] [--on-entry|--on-return] [--if-eval-lineno L] [--budget] [--full-watch]", CLI.Render(msg))
	msg = "it takes " + Usage("live.start", "{command, id?, replace?, dir?, env?, timeout_ms?, python?}")
	assert.Equal(t, "it takes CMD [--id] [-t SECONDS] [--python]", CLI.Render(msg))
	assert.Equal(t, "it takes {command, id?, dir?, env?, timeout_seconds?}", MCP.Render(msg))
	assert.Equal(t, "it takes no arguments", CLI.Render("it takes "+Usage("adi.state", "{session}")))
	assert.Equal(t, `{"m":"it takes {session?, frame}"}`, string(MCP.RenderJSON([]byte(`{"m":"it takes `+Usage("adi.flt", "{session, frame}")+`"}`))))
}
