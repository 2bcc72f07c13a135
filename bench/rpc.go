package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/server"
)

// rpc is a WebSocket client of an in-process adi server, for one session.
type rpc struct {
	c  *server.Client
	id string
}

type answer struct {
	Command string          `json:"command"`
	Text    string          `json:"text"`
	Result  json.RawMessage `json:"result"`
}

// call runs one method and reports its time and whether it started a run (the session's events
// arrive before the answer they led to).
func (r *rpc) call(ctx context.Context, method string, params map[string]any) (*answer, time.Duration, bool, error) {
	p := map[string]any{"session": r.id}
	for k, v := range params {
		p[k] = v
	}
	r.drain()
	var a answer
	start := time.Now()
	err := r.c.Call(ctx, method, p, &a)
	d := time.Since(start)
	if err != nil {
		return nil, 0, false, fmt.Errorf("%s %v: %w", method, params, err)
	}
	return &a, d, r.drain() > 0, nil
}

// drain empties the event channel and counts the runs that started.
func (r *rpc) drain() int {
	runs := 0
	for {
		select {
		case raw := <-r.c.Events():
			var ev bridge.Event
			if json.Unmarshal(raw, &ev) == nil && ev.Kind == "run_started" {
				runs++
			}
		default:
			return runs
		}
	}
}

// Server is an in-process adi server over a fresh state directory.
type Server struct {
	srv *server.Server
	mgr *bridge.Manager
}

// StartServer starts an adi server like `adi serve`, in this process. Close stops it.
func (e *Env) StartServer() (*Server, error) {
	state, err := os.MkdirTemp(e.Work, "state-")
	if err != nil {
		return nil, err
	}
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: state, Log: e.Log})
	if err != nil {
		return nil, err
	}
	srv, err := server.Start(server.Config{Manager: mgr, Python: e.Python.Path, Log: e.Log})
	if err != nil {
		mgr.Shutdown()
		return nil, err
	}
	return &Server{srv: srv, mgr: mgr}, nil
}

// Close stops the server and its sessions.
func (s *Server) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.srv.Close(ctx)
	s.mgr.Shutdown()
}

// open records w in a new session of s and returns a client bound to it.
func (e *Env) open(ctx context.Context, s *Server, w *Workload, id string) (*rpc, time.Duration, int, error) {
	c, _, err := server.Dial(ctx, s.srv.URL(), s.srv.Token(), nil)
	if err != nil {
		return nil, 0, 0, err
	}
	r := &rpc{c: c, id: id}
	if err := c.Call(ctx, "session.subscribe", map[string]any{"session": id}, nil); err != nil {
		c.Close()
		return nil, 0, 0, err
	}
	o := e.Options(w)
	env := map[string]string{}
	for _, kv := range o.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	params := map[string]any{"id": id, "command": o.Command, "dir": o.Dir, "include": o.Include,
		"env": env, "timeout_ms": o.Timeout.Milliseconds()}
	var res server.CreateResult
	start := time.Now()
	err = c.Call(ctx, "session.create", params, &res)
	d := time.Since(start)
	if err != nil {
		c.Close()
		return nil, 0, 0, fmt.Errorf("record %s: %w", w.Command(), err)
	}
	if res.Run.ExitCode != 0 {
		c.Close()
		return nil, 0, 0, fmt.Errorf("record %s: the target exited with %d: %s", w.Command(), res.Run.ExitCode, lastLines(res.Run.Stderr, 5))
	}
	return r, d, res.Session.Frames, nil
}
