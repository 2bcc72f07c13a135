package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/server"
)

// Every adi/ name (DAP's camelCase and the CLI's spellings) is a method of the server's table.
func TestADIRequestsNameTheMethods(t *testing.T) {
	for command, method := range map[string]string{
		"adi/break": "adi.break", "adi/clear": "adi.clear", "adi/continue": "adi.continue", "adi/prev": "adi.prev",
		"adi/stepInto": "adi.step_into", "adi/step-into": "adi.step_into", "adi/step-in": "adi.step_into",
		"adi/stepIn": "adi.step_into", "adi/stepOut": "adi.step_out", "adi/step-out": "adi.step_out",
		"adi/callTree": "adi.call_tree", "adi/call-tree": "adi.call_tree", "adi/listFrames": "adi.list_frames",
		"adi/list-frames": "adi.list_frames", "adi/diff": "adi.diff", "adi/state": "adi.state", "adi/list": "adi.list",
		"adi/flt": "adi.flt", "adi/exec": "adi.execute", "adi/execute": "adi.execute", "adi/run": "adi.run",
	} {
		got, ok := adiMethod(command)
		assert.True(t, ok, command)
		assert.Equal(t, method, got, command)
	}
	for _, command := range []string{"adi/nope", "adi/session.create", "adi/", "adi/stepinto"} {
		_, ok := adiMethod(command)
		assert.False(t, ok, command)
	}
}

// adiCall sends the adi/ request command with args through callADI to h, in session.
func adiCall(t *testing.T, h *server.Handler, command, args, session string) (json.RawMessage, error) {
	t.Helper()
	raw := fmt.Sprintf(`{"seq":4,"type":"request","command":%q,"arguments":%s}`, command, args)
	return callADI(context.Background(), h, msg(t, raw), session)
}

// An adi/ request that the method refuses gets the method's own error: the same message and
// kind as the JSON-RPC call with the same params (unknown params included, which the proxy's
// former copy of the builders ignored), whatever the session.
func TestADIRequestErrorsAreTheMethods(t *testing.T) {
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: t.TempDir()})
	require.NoError(t, err)
	defer mgr.Shutdown()
	h := server.NewHandler(server.HandlerConfig{Manager: mgr})
	defer h.Close()
	for _, tc := range []struct{ command, method, args string }{
		{"adi/flt", "adi.flt", `{"frame": "add"}`},
		{"adi/break", "adi.break", `{}`},
		{"adi/diff", "adi.diff", `{"a": "f#1"}`},
		{"adi/clear", "adi.clear", `{"cond": "x"}`},
		{"adi/run", "adi.run", `{"line": 3}`},
		{"adi/flt", "adi.flt", `{"frame": 3}`},
		{"adi/stepInto", "adi.step_into", `{"fram": "f#1"}`},
		{"adi/exec", "adi.execute", `{"frame": "f#1", "stmt": "x", "then_continue": true, "colour": 1}`},
		{"adi/exec", "adi.execute", `{"frame": "f#1", "stmt": "x", "then_continue": true}`},
		{"adi/state", "adi.state", `null`},
	} {
		_, err := adiCall(t, h, tc.command, tc.args, "cli-000000000000")
		require.Error(t, err, tc.command+" "+tc.args)
		var params map[string]any
		if tc.args != "null" {
			require.NoError(t, json.Unmarshal([]byte(tc.args), &params))
		} else {
			params = map[string]any{}
		}
		params["session"] = "cli-000000000000"
		_, want := h.CallJSON(context.Background(), faces.WebSocket.ForMethod(tc.method), tc.method, params)
		require.NotNil(t, want, tc.method)
		assert.Equal(t, want.Message, err.Error(), tc.command+" "+tc.args)
		assert.Equal(t, errkind.ByRPC(want.Code), kindOf(err), tc.command+" "+tc.args)
	}
	_, err = adiCall(t, h, "adi/stepInto", `{"fram": "f#1"}`, "cli-000000000000")
	assert.Equal(t, `adi.step_into: unknown param "fram"; it takes {session, frame, budget?, watch?, loop?, loop_index?, steps?}`, err.Error())
	assert.Equal(t, 3103, kindOf(err).DAP())
	_, err = adiCall(t, h, "adi/exec", `{"frame": "f#1", "stmt": "x", "then_continue": true}`, "cli-000000000000")
	assert.Equal(t, errkind.SessionNotFound, kindOf(err), "then_continue is a param of adi/exec: only the session is missing")
}

// An unknown adi/ name is refused by the proxy, with the list of the names there are.
func TestADIRequestUnknown(t *testing.T) {
	r := newRig(t, Config{})
	e, _, _, _ := r.connect()
	resp := e.Response(e.Send("adi/nope", nil))
	assert.False(t, resp.Success)
	assert.Equal(t, `adi: unknown request "adi/nope"; use one of adi/break, adi/callTree, adi/caught, adi/clear, adi/continue, adi/diff, adi/exec, adi/flt, adi/list, adi/listFrames, adi/prev, adi/run, adi/state, adi/stepInto, adi/stepOut, adi/unwatch, adi/watch, adi/session`, resp.ErrMessage)
	assert.Contains(t, string(resp.Raw), `"id":3102`)
}
