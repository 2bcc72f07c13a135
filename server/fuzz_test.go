package server

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

// rpcSeeds are well-formed and broken JSON-RPC messages for the fuzz targets' corpus.
var rpcSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"session.list"}`,
	`{"jsonrpc":"2.0","id":"a","method":"adi.state","params":{"session":"s"}}`,
	`{"jsonrpc":"2.0","method":"adi.break","params":{"session":"s","func":"f#2","cond":"x > 1"}}`,
	`{"jsonrpc":"2.0","id":2,"method":"adi.call_tree","params":{"session":"s","depth":"4","width":1e3}}`,
	`{"jsonrpc":"2.0","id":3,"method":"adi.execute","params":{"session":"s","frame":"t.py:f#1","stmt":"x","line":-1,"then_continue":"true"}}`,
	`{"jsonrpc":"2.0","id":4,"method":"trace.frames","params":{"session":"s","offset":0,"limit":5000,"query":"x"}}`,
	`{"jsonrpc":"2.0","id":5,"method":"session.get","params":["s"]}`,
	`{"jsonrpc":"2.0","id":6,"method":"adi.diff","params":{"session":"s","a":"f#1","b":"/abs/t.py:12#2"}}`,
	`[{"jsonrpc":"2.0","id":1,"method":"adi.break","params":{"session":"s","func":"f"}},{"jsonrpc":"2.0","id":2,"method":"adi.continue","params":{"session":"s"}}]`,
	`[{"jsonrpc":"2.0","id":1,"method":"a"}, 5, {"jsonrpc":"2.0","method":"b"}]`,
	`{"jsonrpc":"2.0","id":{},"method":"x"}`,
	`{"jsonrpc":"1.0","id":1,"method":"x"}`,
	`{"jsonrpc":"2.0","id":null,"method":"server.info"}`,
	`{"jsonrpc":"2.0","id":7,"method":"session.close","params":{"session":"../../etc"}}`,
	`{"jsonrpc":"2.0","id":8,"method":"adi.run","params":{"session":"s","line":"break t:f x > 3"}}`,
	`[]`, `[[]]`, `{"jsonrpc":`, `null`, `42`, `"x"`, "\xff\xfe", ``,
}

// FuzzDecodeMessage feeds arbitrary bytes to the JSON-RPC decoder: it never panics, gives one
// error (or one request) per batch element, and every error message is one line.
func FuzzDecodeMessage(f *testing.F) {
	for _, s := range rpcSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, errs, batch, perr := decodeMessage(data)
		if perr != nil {
			if reqs != nil || errs != nil {
				t.Fatalf("a whole-message error came with requests: %v", perr)
			}
			checkError(t, perr)
			return
		}
		if len(reqs) == 0 || len(reqs) != len(errs) {
			t.Fatalf("%d requests, %d errors", len(reqs), len(errs))
		}
		if batch != (bytes.TrimSpace(data)[0] == '[') {
			t.Fatalf("batch=%v for %q", batch, data)
		}
		for i, r := range reqs {
			if r == nil {
				t.Fatalf("element %d has no request", i)
			}
			if errs[i] != nil {
				checkError(t, errs[i])
				if r.ID == nil {
					t.Fatalf("element %d: an invalid request must be answered (id null at least)", i)
				}
				continue
			}
			if r.Method == "" {
				t.Fatalf("element %d: a valid request without a method", i)
			}
			if r.ID != nil && !json.Valid(r.ID) {
				t.Fatalf("element %d: id %q is not JSON", i, r.ID)
			}
		}
	})
}

// fuzzSafe lists the methods FuzzServeMessage lets run: none of them starts a program (with no
// session on disk, every session method fails on the lookup), so the fuzzer cannot run code.
var fuzzSafe = map[string]bool{
	"server.info": true, "server.methods": true, "server.shutdown": true,
	"session.list": true, "session.get": true, "session.close": true, "session.delete": true,
	"session.subscribe": true, "session.unsubscribe": true,
	"trace.frames": true, "trace.children": true, "trace.source": true,
}

func fuzzRuns(method string) bool {
	return fuzzSafe[method] || strings.HasPrefix(method, "adi.") || methods[method] == nil
}

// FuzzServeMessage answers arbitrary messages with a Handler over an empty state directory: it
// never panics, never answers with an internal error (a recovered panic), and every answer is
// valid JSON-RPC 2.0 with one-line error messages, one answer per request that has an id.
func FuzzServeMessage(f *testing.F) {
	for _, s := range rpcSeeds {
		f.Add([]byte(s))
	}
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	defer mgr.Shutdown()
	h := NewHandler(HandlerConfig{Manager: mgr})
	defer h.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, errs, batch, perr := decodeMessage(data)
		want := 0
		if perr == nil {
			for i, r := range reqs {
				if errs[i] == nil && !fuzzRuns(r.Method) {
					t.Skip("a method that could start a program")
				}
				if errs[i] != nil || !r.notification() {
					want++
				}
			}
		} else {
			want = 1
		}
		out := h.serveMessage(context.Background(), data, nil, faces.WebSocket)
		if want == 0 {
			if out != nil {
				t.Fatalf("notifications only, yet an answer: %s", out)
			}
			return
		}
		var answers []json.RawMessage
		if batch && perr == nil {
			if err := json.Unmarshal(out, &answers); err != nil {
				t.Fatalf("a batch answer is not a JSON array: %s", out)
			}
		} else {
			answers = []json.RawMessage{out}
		}
		if len(answers) != want {
			t.Fatalf("%d answers, want %d: %s", len(answers), want, out)
		}
		for _, a := range answers {
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *Error          `json:"error"`
			}
			if err := json.Unmarshal(a, &resp); err != nil {
				t.Fatalf("an answer is not a JSON object: %s", a)
			}
			if resp.JSONRPC != "2.0" || resp.ID == nil {
				t.Fatalf("not a JSON-RPC 2.0 answer: %s", a)
			}
			if (resp.Error == nil) == (resp.Result == nil) {
				t.Fatalf("an answer needs exactly one of result and error: %s", a)
			}
			if resp.Error != nil {
				checkError(t, resp.Error)
			}
		}
	})
}

// checkError fails on an internal error (a panic was recovered) or a message that is not one
// line of text naming its kind.
func checkError(t *testing.T, e *Error) {
	t.Helper()
	if e.Code == CodeInternal {
		t.Fatalf("internal error: %s", e.Message)
	}
	if e.Message == "" || strings.ContainsAny(e.Message, "\n\r") {
		t.Fatalf("error message is not one line: %q", e.Message)
	}
	if e.Data == nil || e.Data.Kind != codeKinds[e.Code] {
		t.Fatalf("error %d without its kind: %+v", e.Code, e.Data)
	}
}
