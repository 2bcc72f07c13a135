package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTextOnlyWithAnOlderDaemon runs a command against a fake daemon that, like one from before
// text_only, refuses that param: the CLI asks again without it and prints the text as before.
// A daemon that takes it is asked once, with text_only set.
func TestTextOnlyWithAnOlderDaemon(t *testing.T) {
	const text = "Breakpoints (1):\n  1. orders:bulk_rate  (every call)\n"
	for _, older := range []bool{true, false} {
		var calls []map[string]any
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			var req struct {
				ID     json.RawMessage `json:"id"`
				Params map[string]any  `json:"params"`
			}
			require.NoError(t, json.Unmarshal(b, &req))
			calls = append(calls, req.Params)
			res := `{"command":"list","text":` + string(must(json.Marshal(text))) + `,"result":{"breakpoints":[]},"target_failed":false}`
			if _, ok := req.Params["text_only"]; ok {
				if older {
					_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":{"code":-32602,"message":"adi list: unknown param \"text_only\"; it takes [--budget]","data":{"kind":"invalid_params","valid":["session","budget"]}}}`))
					return
				}
				res = `{"command":"list","text":` + string(must(json.Marshal(text))) + `,"target_failed":false}`
			}
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":` + res + `}`))
		}))
		state := t.TempDir()
		require.NoError(t, WriteDaemonInfo(daemonPath(&Env{StateDir: state}), DaemonInfo{URL: srv.URL, Token: "tok", PID: 1}))
		var out, errb bytes.Buffer
		env := &Env{StateDir: state, Dir: state, Stdout: &out, Stderr: &errb}
		code := Run(context.Background(), env, Invocation{Name: "list", Session: "s1", Calls: []Call{{Method: "adi.list", Params: map[string]any{}}}})
		srv.Close()
		assert.Equal(t, ExitOK, code, errb.String())
		assert.Equal(t, text, out.String())
		assert.Empty(t, errb.String())
		if older {
			require.Len(t, calls, 2, "asked again without text_only")
			assert.Equal(t, map[string]any{"session": "s1", "text_only": true}, calls[0])
			assert.Equal(t, map[string]any{"session": "s1"}, calls[1])
		} else {
			require.Len(t, calls, 1)
			assert.Equal(t, map[string]any{"session": "s1", "text_only": true}, calls[0])
		}
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
