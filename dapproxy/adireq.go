package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"unicode"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/server"
)

// ADI requests: a DAP request whose command is "adi/<name>" is answered by the proxy, never sent
// to debugpy. The proxy hands it to the server's method table (server.Handler, the one that
// serves WebSocket, HTTP and MCP), as gopls' forwarder hands the requests it intercepts to the
// shared handler: the name maps to a method (adi/stepInto and adi/step-into to adi.step_into),
// the arguments are the method's params, and the session is the one recording the link's run.
// The response body is {text, result} of the method's answer.

// adiAliases are the spellings of adi/ requests that the method names do not give.
var adiAliases = map[string]string{"step-in": "step_into", "stepIn": "step_into", "exec": "execute"}

// adiMethod returns the method an adi/<name> request calls, and whether there is one.
func adiMethod(command string) (string, bool) {
	name := strings.TrimPrefix(command, "adi/")
	if alias, ok := adiAliases[name]; ok {
		name = alias
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r == '-':
			b.WriteRune('_')
		case unicode.IsUpper(r):
			b.WriteRune('_')
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	method := "adi." + b.String()
	for _, m := range server.Methods() {
		if m.Name == method {
			return method, true
		}
	}
	return "", false
}

// adiNames lists the adi/ requests, for error messages: each adi.* method in DAP's camelCase
// (adi.execute as adi/exec), the running program's (watch.go), and adi/session.
func adiNames() string {
	var names []string
	for _, m := range server.Methods() {
		name, ok := strings.CutPrefix(m.Name, "adi.")
		if !ok {
			continue
		}
		if name == "execute" {
			name = "exec"
		}
		parts := strings.Split(name, "_")
		for i := 1; i < len(parts); i++ {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
		names = append(names, "adi/"+strings.Join(parts, ""))
	}
	for name := range runRequests {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(append(names, "adi/session"), ", ")
}

// callADI runs the method of the adi/ request m on session, through h, and returns the body of
// the DAP response. The messages (the answer's and an error's) name commands in the JSON-RPC
// API's words (package faces), and adi/run's in the command language it takes, as the server's
// do.
func callADI(ctx context.Context, h *server.Handler, m *dap.Message, session string) (json.RawMessage, error) {
	method, ok := adiMethod(m.Command)
	if !ok {
		return nil, adi.Errorf(errkind.MethodNotFound, "unknown request %q; use one of %s", m.Command, adiNames())
	}
	params := map[string]json.RawMessage{}
	var env struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return nil, adi.Errorf(errkind.InvalidParams, "the arguments of %s cannot be read: %w", m.Command, err)
	}
	if a := strings.TrimSpace(string(env.Arguments)); a != "" && a != "null" {
		if err := json.Unmarshal(env.Arguments, &params); err != nil {
			return nil, adi.Errorf(errkind.InvalidParams, "the arguments of %s must be an object of the params of %s", m.Command, method)
		}
	}
	sid, err := json.Marshal(session)
	if err != nil {
		return nil, adi.Errorf(errkind.Internal, "cannot encode the session id: %w", err)
	}
	params["session"] = sid
	res, rerr := h.CallJSON(ctx, faces.WebSocket, method, params)
	if rerr != nil {
		return nil, rerr
	}
	var ans struct {
		Text   json.RawMessage `json:"text"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(res, &ans); err != nil {
		return nil, adi.Errorf(errkind.Internal, "cannot read the answer of %s: %w", method, err)
	}
	b, err := json.Marshal(map[string]json.RawMessage{"text": ans.Text, "result": ans.Result})
	if err != nil {
		return nil, adi.Errorf(errkind.Internal, "cannot encode the answer: %w", err)
	}
	return b, nil
}

// kindOf returns the kind of an error of an adi/ request: a server error's by its code, any
// other's by the kind it wraps.
func kindOf(err error) *errkind.Kind {
	if e, ok := err.(*server.Error); ok {
		return errkind.ByRPC(e.Code)
	}
	return errkind.Of(err)
}

// answerADI answers an adi/ request (a worker of its own).
func (l *link) answerADI(m *dap.Message) {
	defer func() {
		if v := recover(); v != nil {
			l.log.Error("adi request panicked", "command", m.Command, "panic", v, "stack", string(debug.Stack()))
			_ = l.editor.send(errorResponse(m.Seq, m.Command, errkind.Internal,
				fmt.Sprintf("internal error in %s: %v (the connection is still usable; please report this)", m.Command, v)))
		}
	}()
	body, err := l.adi(m)
	if err != nil {
		_ = l.editor.send(errorResponse(m.Seq, m.Command, kindOf(err), faces.WebSocket.Render(err.Error())))
		return
	}
	_ = l.editor.send(response(m.Seq, m.Command, body))
}

// adi answers an adi/ request: adi/session itself, the others through the server's method table
// (callADI) in the session recording the link's run.
func (l *link) adi(m *dap.Message) (any, error) {
	r := l.recording()
	if m.Command == "adi/session" {
		if r == nil {
			return nil, l.notRecording()
		}
		return r.info(), nil
	}
	if body, ok, err := l.answerRun(m, r); ok { // the running program's watches (watch.go)
		return body, err
	}
	if _, ok := adiMethod(m.Command); !ok || r == nil {
		if !ok {
			return nil, adi.Errorf(errkind.MethodNotFound, "unknown request %q; use one of %s", m.Command, adiNames())
		}
		return nil, l.notRecording()
	}
	if !l.settled.wait(l.done, gateLimit) {
		l.log.Debug("answering before the last stop was taken in")
	}
	r.flushForQuery(l.ctx)
	return callADI(l.ctx, l.srv.handler, m, r.x.Session().ID)
}

// notRecording says why adi/ requests cannot be answered on this connection.
func (l *link) notRecording() error {
	l.mu.Lock()
	kind := l.kind
	l.mu.Unlock()
	switch kind {
	case "":
		return adi.Errorf(errkind.NotRecording, "nothing is recorded yet: adi records the run of a launch request; send adi/ requests after launch")
	case "attach":
		return adi.Errorf(errkind.NotRecording, "this session attached to a running program, which adi does not record; launch the program through adi dap to record it")
	}
	return adi.Errorf(errkind.NotRecording, "this launch is not recorded (see the debug console for why); adi/ requests need a recorded launch")
}

// recording returns the recording adi/ requests on this connection use: its own, or for a child
// session its parent's.
func (l *link) recording() *recorder {
	l.mu.Lock()
	r, parent := l.rec, l.parent
	l.mu.Unlock()
	if r == nil && parent != nil {
		return parent.ownRecording()
	}
	return r
}
