package server

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

// BenchmarkNavAnswer times what the daemon does for one navigation command of the CLI, from the
// request's bytes to the answer's: the session.create that reuses the recording (create_reuse: the
// check that its sources are unchanged, sources.go), then adi.continue and adi.prev in turn on the
// session, as the CLI asks (text only) and as the JSON-RPC API asks (the structured result too). It needs a state
// directory holding a session with a breakpoint that has two hits (ADI_BENCH_STATE, copied
// first) and that session's id (ADI_BENCH_SESSION); without them it is skipped.
func BenchmarkNavAnswer(b *testing.B) {
	src, id := os.Getenv("ADI_BENCH_STATE"), os.Getenv("ADI_BENCH_SESSION")
	if src == "" || id == "" {
		b.Skip("set ADI_BENCH_STATE and ADI_BENCH_SESSION to a state directory and a session with a breakpoint")
	}
	dir := b.TempDir()
	if out, err := exec.Command("cp", "-r", src+"/sessions", dir).CombinedOutput(); err != nil {
		b.Fatalf("copy: %v: %s", err, out)
	}
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(mgr.Shutdown)
	h := NewHandler(HandlerConfig{Manager: mgr})
	b.Cleanup(h.Close)
	var opts struct {
		Command string `json:"command"`
		Dir     string `json:"dir"`
	}
	if s, err := mgr.Get(context.Background(), id); err == nil {
		opts.Command, opts.Dir = s.Opts.Command, s.Opts.Dir
	}
	create, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "session.create",
		"params": map[string]any{"id": id, "command": opts.Command, "dir": opts.Dir, "reuse": true}})
	b.Run("create_reuse", func(b *testing.B) {
		for b.Loop() {
			if out := h.serveMessage(context.Background(), create, nil, faces.CLI); !bytes.Contains(out, []byte(`"reused":true`)) {
				b.Fatalf("not reused: %s", out)
			}
		}
	})
	for _, c := range []struct{ name, extra string }{{"full", ""}, {"text_only", `,"text_only":true`}} {
		reqs := [2][]byte{
			[]byte(`{"jsonrpc":"2.0","id":1,"method":"adi.continue","params":{"session":"` + id + `"` + c.extra + `}}`),
			[]byte(`{"jsonrpc":"2.0","id":2,"method":"adi.prev","params":{"session":"` + id + `"` + c.extra + `}}`),
		}
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for i := 0; b.Loop(); i++ {
				n += len(h.serveMessage(context.Background(), reqs[i%2], nil, faces.CLI))
			}
			b.ReportMetric(float64(n)/float64(b.N), "B/answer")
		})
	}
}
