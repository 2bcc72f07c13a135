package integration

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/examples"
)

// postRPC sends one JSON-RPC message to the server's HTTP endpoint with the given Authorization
// header and returns the status and the body.
func postRPC(t *testing.T, ts *testServer, auth, msg string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", ts.srv.URL()+"/api/rpc", strings.NewReader(msg))
	require.NoError(t, err)
	req.Header.Set("Authorization", auth)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b)
}

// rpcResult decodes the result of a JSON-RPC answer into its members, failing on an error answer.
func rpcResult(t *testing.T, body string) map[string]json.RawMessage {
	t.Helper()
	var a struct {
		Result map[string]json.RawMessage `json:"result"`
		Error  json.RawMessage            `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &a), body)
	require.Nil(t, a.Error, body)
	return a.Result
}

// TestServerAgreesWithAPIDocs checks the WebSocket/HTTP API against what docs/api.md says of it:
// target_failed is in every ADI answer, false included; the documented unknown-param example
// answers as documented; adi.run takes a break condition after --cond, as the CLI does; the
// Bearer scheme's name is case-insensitive; trace.source takes a path relative to the session's
// directory.
func TestServerAgreesWithAPIDocs(t *testing.T) {
	ts := startServer(t)
	dir := demoDir(t)
	bearer := "Bearer " + ts.srv.Token()
	status, body := postRPC(t, ts, bearer,
		`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"command":"python orders.py","id":"demo","dir":`+string(jsonString(dir))+`}}`)
	require.Equal(t, http.StatusOK, status, body)
	rpcResult(t, body)

	t.Run("target_failed is present when false", func(t *testing.T) {
		status, body := postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":2,"method":"adi.list","params":{"session":"demo"}}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"command":"list","text":"Breakpoints: none. Set one with: adi.break func [cond]\n","result":{"breakpoints":[]},"target_failed":false}}`, body)
	})

	t.Run("text_only answers the same text without the result", func(t *testing.T) {
		status, full := postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":10,"method":"adi.flt","params":{"session":"demo","frame":"bulk_rate#3"}}`)
		require.Equal(t, http.StatusOK, status, full)
		res := rpcResult(t, full)
		require.Contains(t, res, "result", "without text_only the structured result is there")
		var text string
		require.NoError(t, json.Unmarshal(res["text"], &text))
		assert.Equal(t, fltBulkRate3, text)
		status, body := postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":11,"method":"adi.flt","params":{"session":"demo","frame":"bulk_rate#3","text_only":true}}`)
		require.Equal(t, http.StatusOK, status, body)
		want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 11, "result": map[string]any{"command": "flt", "text": fltBulkRate3, "target_failed": false}})
		require.NoError(t, err)
		assert.JSONEq(t, string(want), body)
		status, body = postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":12,"method":"adi.list","params":{"session":"demo","text_only":true}}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":12,"result":{"command":"list","text":"Breakpoints: none. Set one with: adi.break func [cond]\n","target_failed":false}}`, body)
		status, body = postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":13,"method":"session.get","params":{"session":"demo","text_only":true}}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.Contains(t, body, `"message":"session.get: unknown param \"text_only\"`, "only the ADI methods take it")
	})

	t.Run("the documented unknown-param example", func(t *testing.T) {
		const message = `adi.step_into: unknown param "fram"; it takes {session, frame, budget?, watch?, loop?, loop_index?, steps?}`
		status, body := postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":3,"method":"adi.step_into","params":{"session":"demo","fram":"bulk_rate#3"}}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":`+string(jsonString(message))+`,"data":{"kind":"invalid_params","valid":["session","frame","budget","watch","loop","loop_index","steps"]}}}`, body)
		doc, err := os.ReadFile(filepath.Join("..", "docs", "api.md"))
		require.NoError(t, err)
		assert.Contains(t, string(doc), "`"+message+"`", "docs/api.md shows this answer")
	})

	t.Run("adi.run takes --cond", func(t *testing.T) {
		status, body := postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":4,"method":"adi.run","params":{"session":"demo","line":"break bulk_rate --cond \"rate > 0\""}}`)
		require.Equal(t, http.StatusOK, status, body)
		res := rpcResult(t, body)
		var text string
		require.NoError(t, json.Unmarshal(res["text"], &text))
		assert.Equal(t, "break → orders:bulk_rate#1  (the first of 2 invocations where the condition held; continue moves to the next)\n\n"+
			"Frame: orders:bulk_rate#1   (caller orders:line_total#1, line 22)\nArgs: qty = 12, rate = 0.1\n\n"+
			"  16 | if qty > BULK_QUANTITY:  → True\n  17 | return rate\n\nReturn: 0.1\n", text)
		assert.Equal(t, "false", string(res["target_failed"]))
		status, body = postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":5,"method":"adi.run","params":{"session":"demo","line":"break bulk_rate -c 'qty == 3'"}}`)
		require.Equal(t, http.StatusOK, status, body)
		require.NoError(t, json.Unmarshal(rpcResult(t, body)["text"], &text))
		assert.Equal(t, "break → orders:bulk_rate#2  (the only invocation where the condition held)\n\n"+
			"Frame: orders:bulk_rate#2   (caller orders:line_total#2, line 22)\nArgs: qty = 3, rate = 0.0\n\n"+
			"  16 | if qty > BULK_QUANTITY:  → False\n  18 | return 0.0\n\nReturn: 0.0\n", text)
		status, body = postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":6,"method":"adi.run","params":{"session":"demo","line":"break bulk_rate --cond"}}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":6,"error":{"code":-32003,"message":"adi.run: break: --cond needs a condition, e.g. --cond 'x > 3'; usage: break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]","data":{"kind":"bad_input"}}}`, body)
	})

	t.Run("the Bearer scheme is case-insensitive", func(t *testing.T) {
		const list = `{"jsonrpc":"2.0","id":7,"method":"server.info","params":{}}`
		for _, scheme := range []string{"Bearer", "bearer", "BEARER", "bEaReR"} {
			status, body := postRPC(t, ts, scheme+" "+ts.srv.Token(), list)
			assert.Equal(t, http.StatusOK, status, "%s: %s", scheme, body)
		}
		status, body := postRPC(t, ts, "bearer wrong-token", list)
		assert.Equal(t, http.StatusUnauthorized, status)
		assert.JSONEq(t, `{"error":"adi: the token is wrong; use the one adi serve printed"}`, body)
		status, body = postRPC(t, ts, "Basic "+ts.srv.Token(), list)
		assert.Equal(t, http.StatusUnauthorized, status)
		assert.JSONEq(t, `{"error":"adi: a token is required; send it as the header 'Authorization: Bearer TOKEN', the query ?token=TOKEN or the adi_token cookie (adi serve prints it)"}`, body)

		u := "ws" + strings.TrimPrefix(ts.srv.URL(), "http") + "/rpc"
		c, _, err := websocket.DefaultDialer.Dial(u, http.Header{"Authorization": {"bearer " + ts.srv.Token()}})
		require.NoError(t, err, "a WebSocket handshake with the scheme in lower case")
		_ = c.Close()
	})

	t.Run("trace.source takes a path relative to the session directory", func(t *testing.T) {
		status, body := postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":8,"method":"trace.source","params":{"session":"demo","file":"orders.py"}}`)
		require.Equal(t, http.StatusOK, status, body)
		lines := strings.Split(strings.TrimSuffix(string(examples.Orders), "\n"), "\n")
		want, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 8, "result": map[string]any{"file": filepath.Join(dir, "orders.py"), "lines": lines}})
		require.NoError(t, err)
		assert.JSONEq(t, string(want), body)
		status, body = postRPC(t, ts, bearer, `{"jsonrpc":"2.0","id":9,"method":"trace.source","params":{"session":"demo","file":"../orders.py"}}`)
		require.Equal(t, http.StatusOK, status, body)
		assert.JSONEq(t, `{"jsonrpc":"2.0","id":9,"error":{"code":-32002,"message":"trace.source: `+filepath.Join(filepath.Dir(dir), "orders.py")+` is not a file of this recording; only files that appear in T can be read","data":{"kind":"not_found"}}}`, body)
	})
}
