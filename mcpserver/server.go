package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/server"
)

// Config configures a Server.
type Config struct {
	// Manager owns the sessions; required. The server does not shut it down.
	Manager *bridge.Manager
	// Python is the default interpreter choice for adi_open.
	Python  string
	Version string
	Log     hclog.Logger
}

// Server is adi's MCP server: one tool per ADI command, each a call of the JSON-RPC method of
// the same name through server.Handler, in-process.
type Server struct {
	mcp *mcp.Server
	h   *server.Handler
	mgr *bridge.Manager
	log hclog.Logger

	mu       sync.Mutex
	last     string // the session used last: the default for tools given none
	lastLive string // the live session used last: the default for live tools given none
}

// instructions is what the client shows the model about the server as a whole.
const instructions = `adi shows a Python program's run one function invocation at a time. adi_open records a command once;
then navigate the recording: adi_call_tree to see the calls with their arguments and returned values,
adi_break FUNC [cond] and adi_continue to land on a suspicious invocation and read its Frame Lifetime
Trace (each executed line with the variables it changed), adi_step_into a callee, and adi_exec to run a
statement inside a past frame to confirm a value. Frames are written func#N: the N-th call of func.
To change a value at runtime and see what happens next, live_start runs the command under a real
debugger: live_set_breakpoint FILE:LINE, live_continue, live_interact (print or assign), live_continue.`

// New returns a Server over cfg.Manager.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	s := &Server{mgr: cfg.Manager, log: cfg.Log,
		h: server.NewHandler(server.HandlerConfig{Manager: cfg.Manager, Log: cfg.Log.Named("rpc"), Python: cfg.Python})}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "adi", Title: "adi: Frame Lifetime Traces of Python runs", Version: cfg.Version},
		// Capabilities: tools only; the default also advertises logging, and adi sends no log
		// messages.
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	addADITool[openIn](s, "adi_open", s.openParams)
	addADITool[breakIn](s, "adi_break", nil)
	addADITool[navIn](s, "adi_continue", nil)
	addADITool[navIn](s, "adi_prev", nil)
	addADITool[frameIn](s, "adi_step_into", nil)
	addADITool[navIn](s, "adi_step_out", nil)
	addADITool[callTreeIn](s, "adi_call_tree", nil)
	addADITool[listFramesIn](s, "adi_list_frames", nil)
	addADITool[diffIn](s, "adi_diff", nil)
	addADITool[sessionIn](s, "adi_state", nil)
	addADITool[fltIn](s, "adi_flt", nil)
	addADITool[execIn](s, "adi_exec", nil)
	addADITool[clearIn](s, "adi_clear", nil)
	addADITool[sessionIn](s, "adi_list", nil)
	addADITool[noIn](s, "adi_sessions", nil)
	addADITool[closeIn](s, "adi_close", nil)
	s.addLiveTools()
	return s
}

// Run serves one client over t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	defer s.h.Close()
	return s.mcp.Run(ctx, t)
}

// prepare adjusts a tool's params before the call and returns the method to call.
type prepare func(params map[string]any) (method string, err error)

// answer turns a method's result into the tool's text, and notes the session it used.
type answer func(method string, params map[string]any, raw json.RawMessage) string

// addTool registers a tool whose input In is passed on as the params of its method: prep fills
// in defaults and picks the method, answer renders the result. ADI tools (session defaults,
// progress while a run records) and live tools differ only in those two and in progress. The
// result is the text a model reads and, as structuredContent, the method's JSON result (the
// WebSocket API's result and the CLI's --json), described by the tool's outputSchema.
func addTool[In any](s *Server, name string, prep prepare, ans answer, progress bool) {
	t := tools[name]
	mcp.AddTool(s.mcp, &mcp.Tool{Name: t.name, Description: t.desc, InputSchema: inputSchema[In](),
		OutputSchema: outputSchemaOf(t.method), Annotations: annotations(t)},
		func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			params, err := toMap(in)
			if err != nil {
				return nil, nil, err
			}
			method, err := prep(params)
			if err != nil {
				return nil, nil, err
			}
			stop := func() {}
			if progress {
				session, _ := params["session"].(string)
				if id, ok := params["id"].(string); ok {
					session = id
				}
				stop = s.progress(ctx, req, session)
			}
			raw, rerr := s.h.CallJSON(ctx, faces.MCP, method, params)
			stop()
			if rerr != nil {
				return nil, nil, fmt.Errorf("%s (%s)", rerr.Message, rerr.Kind())
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: ans(method, params, raw)}}}, raw, nil
		})
}

// addADITool registers an ADI tool: the last session is the default, adi_open's own params.
func addADITool[In any](s *Server, name string, prep prepare) {
	if prep == nil {
		t := tools[name]
		prep = func(params map[string]any) (string, error) { return s.sessionParams(t, params) }
	}
	addTool[In](s, name, prep, s.adiAnswer, true)
}

// adiAnswer renders an ADI tool's result and remembers its session as the default.
func (s *Server) adiAnswer(method string, params map[string]any, raw json.RawMessage) string {
	text, used := answerText(method, params, raw)
	if used != "" {
		s.setLast(used)
	}
	return text
}

// sessionParams fills in the default session and picks the method (adi_close may delete).
func (s *Server) sessionParams(t tool, params map[string]any) (string, error) {
	method := t.method
	if t.method == "session.list" {
		return method, nil
	}
	if params["session"] == nil || params["session"] == "" {
		s.mu.Lock()
		last := s.last
		s.mu.Unlock()
		if last == "" {
			return "", errors.New("no session yet: call adi_open with the command to debug first")
		}
		params["session"] = last
	}
	if t.name == "adi_close" {
		if del, _ := params["delete"].(bool); del {
			method = "session.delete"
		}
		delete(params, "delete")
	}
	return method, nil
}

// openParams turns adi_open's input into session.create's params.
func (s *Server) openParams(params map[string]any) (string, error) {
	secondsToMS(params)
	if id, ok := params["session"].(string); ok && id != "" {
		params["id"], params["reuse"] = id, true
	} else {
		params["id"] = bridge.NewID()
	}
	delete(params, "session")
	return "session.create", nil
}

func (s *Server) setLast(id string) {
	s.mu.Lock()
	s.last = id
	s.mu.Unlock()
}

// toMap turns a tool input into params (the JSON of the input, as an object).
func toMap(in any) (map[string]any, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// answerText is the text a model reads for a method's result, and the session it used.
func answerText(method string, params map[string]any, raw json.RawMessage) (text, session string) {
	session, _ = params["session"].(string)
	switch method {
	case "session.create":
		var r server.CreateResult
		_ = json.Unmarshal(raw, &r)
		return r.Text + "Session id: " + r.Session.ID + " (the default for the next tools).\n", r.Session.ID
	case "session.list":
		return sessionsText(raw), ""
	case "session.close":
		return fmt.Sprintf("Closed session %s; its processes have ended and its recording stays on disk.\n", session), ""
	case "session.delete":
		return fmt.Sprintf("Deleted session %s and its recording.\n", session), ""
	}
	var ans struct {
		Text         string `json:"text"`
		TargetFailed bool   `json:"target_failed"`
	}
	_ = json.Unmarshal(raw, &ans)
	if ans.TargetFailed {
		ans.Text += "(Note: the program itself exited with an error; the answer is still valid.)\n"
	}
	return ans.Text, session
}

func sessionsText(raw json.RawMessage) string {
	var list struct {
		Sessions []bridge.Info `json:"sessions"`
	}
	_ = json.Unmarshal(raw, &list)
	if len(list.Sessions) == 0 {
		return "No sessions. Open one with adi_open.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Sessions (%d):\n", len(list.Sessions))
	for _, in := range list.Sessions {
		state := "open"
		if in.Closed {
			state = "closed, on disk"
		}
		// a live session's program runs (or ran) under the debugger: its state, not an exit status
		ended := fmt.Sprintf("exit status %d", in.ExitCode)
		if lv, ok := in.Live.(map[string]any); ok {
			ended = fmt.Sprintf("live: %v", lv["state"])
		} else if in.ExitCode < 0 {
			ended = "no exit status"
		}
		fmt.Fprintf(&b, "  %s  `%s` in %s: %d calls, %s, at %s (%s)\n",
			in.ID, in.Command, in.Dir, in.Frames, ended, orDash(in.Current), state)
	}
	return b.String()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// progress forwards a session's events as MCP progress notifications while a tool call runs,
// when the client asked for progress. The returned stop waits until every event received so far
// has been sent, so the notifications come before the result.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, session string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || session == "" {
		return func() {}
	}
	events := make(chan bridge.Event, 128)
	cancel := s.mgr.Subscribe(func(ev bridge.Event) {
		if ev.Session == session {
			select {
			case events <- ev:
			default: // a slow client loses progress lines, never the session's time
			}
		}
	})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		n := 0
		send := func(msg string) {
			n++
			nctx, ncancel := context.WithTimeout(ctx, 5*time.Second)
			defer ncancel()
			_ = req.Session.NotifyProgress(nctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: float64(n), Message: msg})
		}
		var lines outputLines
		handle := func(ev bridge.Event) {
			if ev.Kind != "output" {
				for _, l := range lines.flush() {
					send(l)
				}
				send(describeEvent(ev))
				return
			}
			for _, l := range lines.add(ev.Stream, ev.Text) {
				send(l)
			}
		}
		for {
			select {
			case ev := <-events:
				handle(ev)
			case <-done:
				for {
					select {
					case ev := <-events:
						handle(ev)
					default:
						for _, l := range lines.flush() {
							send(l)
						}
						return
					}
				}
			}
		}
	}()
	return func() {
		cancel()
		close(done)
		wg.Wait()
	}
}

// outputLines cuts a run's output into the lines of its progress notifications: one per line a
// stream printed (a line arrives in pieces: print writes its text, then the newline), none for
// an empty line.
type outputLines struct {
	partial map[string]string // stream → the start of its unfinished line
	order   []string          // the streams with a partial line, in the order they began
}

// add takes a piece of a stream's output and returns the messages of the lines it completes.
func (o *outputLines) add(stream, text string) []string {
	if o.partial == nil {
		o.partial = map[string]string{}
	}
	if _, ok := o.partial[stream]; !ok {
		o.order = append(o.order, stream)
	}
	text = o.partial[stream] + text
	var out []string
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			break
		}
		out = appendLine(out, stream, text[:i])
		text = text[i+1:]
	}
	o.partial[stream] = text
	return out
}

// flush returns the messages of the unfinished lines (a run ended, or another event came).
func (o *outputLines) flush() []string {
	var out []string
	for _, stream := range o.order {
		out = appendLine(out, stream, o.partial[stream])
	}
	o.partial, o.order = nil, nil
	return out
}

// appendLine adds the message of one output line, unless it is blank.
func appendLine(out []string, stream, line string) []string {
	line = strings.TrimSpace(line)
	if line == "" {
		return out
	}
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return append(out, stream+": "+line)
}

// describeEvent is a progress message.
func describeEvent(ev bridge.Event) string {
	switch ev.Kind {
	case "run_started":
		return "running the program: " + ev.Purpose
	case "run_finished":
		if strings.HasPrefix(ev.Purpose, "exec ") {
			return fmt.Sprintf("run finished (%s)", ev.Purpose) // an exec run records no calls
		}
		return fmt.Sprintf("run finished (%s): %d calls", ev.Purpose, ev.Frames)
	case "flt_ready":
		return fmt.Sprintf("%d frame trace(s) recorded", ev.FLTs)
	}
	return ev.Kind
}
