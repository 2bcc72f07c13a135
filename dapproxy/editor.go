package dapproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
)

// resuming lists the requests that let a paused debuggee run again.
var resuming = map[string]bool{
	"continue": true, "next": true, "stepIn": true, "stepOut": true, "stepBack": true,
	"reverseContinue": true, "goto": true, "restartFrame": true,
}

// serve is the editor loop. It returns when the editor closes, sends what cannot be read, or the
// link is torn down.
func (l *link) serve() {
	defer l.teardown("the editor connection ended")
	defer l.recoverPanic("the editor loop", nil)
	for {
		body, err := l.editor.conn.ReadBody()
		if err != nil {
			switch {
			case errors.Is(err, dap.ErrMalformed):
				l.disconnectMalformed(err)
			case errors.Is(err, io.EOF) || l.closing():
				l.log.Debug("editor closed the connection")
			default:
				l.log.Debug("reading from the editor failed", "error", err)
			}
			return
		}
		m, err := dap.DecodeEnvelope(body)
		if err != nil {
			if !l.refuseMalformed(body, err) {
				return
			}
			continue
		}
		if l.log.IsTrace() {
			l.log.Trace("dap editor->", "msg", string(body))
		}
		if l.tapFromEditor != nil {
			l.tapFromEditor(body)
		}
		l.fromEditor(m, body)
	}
}

// refuseMalformed answers a message that is JSON but not a valid DAP message: a request that can
// be identified (it has a seq) gets an error response and the connection goes on; anything else
// ends the connection. It reports whether to go on.
func (l *link) refuseMalformed(body []byte, why error) bool {
	var env struct {
		Seq     *int   `json:"seq"`
		Type    string `json:"type"`
		Command any    `json:"command"`
	}
	if json.Unmarshal(body, &env) == nil && env.Type == "request" && env.Seq != nil {
		cmd, _ := env.Command.(string)
		if cmd == "" {
			cmd = "unknown" // a response must name a command; the editor matches it by request_seq
		}
		text := fmt.Sprintf("the request is not a valid DAP request (%s); fix the client", strings.TrimPrefix(why.Error(), dap.ErrMalformed.Error()+": "))
		_ = l.editor.send(errorResponse(*env.Seq, cmd, errkind.Of(why), text))
		return true
	}
	l.disconnectMalformed(why)
	return false
}

// disconnectMalformed tells the editor why the proxy stops reading it; the caller ends the link.
func (l *link) disconnectMalformed(why error) {
	l.log.Warn("malformed DAP message from the editor; closing the connection", "error", why)
	l.notice(fmt.Sprintf("%v; closing the connection", why))
}

// fromEditor handles one message from the editor.
func (l *link) fromEditor(m *dap.Message, raw []byte) {
	switch m.Type {
	case "request":
		l.editorRequest(m, raw)
	case "response": // to a reverse request (runInTerminal): back to the adapter's numbering
		p, _ := l.editor.resolve(m)
		if p == nil {
			l.log.Debug("editor answered no pending reverse request; dropped", "request_seq", m.RequestSeq)
			return
		}
		out, err := setInt(raw, "request_seq", p.Origin)
		if err != nil {
			l.log.Warn("cannot map a response back to the adapter", "error", err)
			return
		}
		if b := l.current(); b != nil {
			_ = b.side.forward(m, out)
		}
	default:
		if b := l.current(); b != nil {
			_ = b.side.forward(m, raw)
		}
	}
}

func (l *link) editorRequest(m *dap.Message, raw []byte) {
	switch {
	case strings.HasPrefix(m.Command, "adi/"):
		l.spawn(func() { l.answerADI(m) })
		return
	case m.Command == "initialize":
		var env struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		_ = json.Unmarshal(raw, &env)
		l.mu.Lock()
		l.initArgs = env.Arguments
		l.mu.Unlock()
	case m.Command == "launch":
		if text := l.needDebugpy(raw); text != "" {
			_ = l.editor.send(errorResponse(m.Seq, m.Command, errkind.NoDebugpy, text))
			return
		}
		raw = l.launch(m, raw)
	case m.Command == "attach":
		if !l.attach(m, raw) {
			return
		}
	case m.Command == "cancel":
		raw = l.translateCancel(raw)
	case m.Command == "disconnect":
		var args struct {
			Arguments struct {
				TerminateDebuggee *bool `json:"terminateDebuggee"`
			} `json:"arguments"`
		}
		_ = json.Unmarshal(raw, &args)
		l.mu.Lock()
		l.disconnectSent = true
		l.keepDebuggee = args.Arguments.TerminateDebuggee != nil && !*args.Arguments.TerminateDebuggee
		gone := l.adapterGone
		l.mu.Unlock()
		if gone { // nobody is left to answer: the proxy does, and the connection ends
			_ = l.editor.send(response(m.Seq, m.Command, nil))
			go l.teardown("the editor disconnected after the adapter died")
			return
		}
	case resuming[m.Command]:
		if !l.gate.wait(l.done, gateLimit) {
			l.log.Debug("resuming without waiting longer for the inspection of the stop")
		}
		if r := l.ownRecording(); r != nil {
			r.resumed()
		}
	}
	l.toAdapter(m, raw)
}

// toAdapter forwards an editor request; when no adapter can take it, the proxy answers.
func (l *link) toAdapter(m *dap.Message, raw []byte) {
	l.mu.Lock()
	b, gone, beErr := l.be, l.adapterGone, l.beErr
	l.mu.Unlock()
	var err error
	switch {
	case b == nil:
		err = fmt.Errorf("the debugpy adapter could not start: %w; check `adi doctor`", beErr)
	case gone:
		err = errors.New("the debugpy adapter has ended; restart the debug session")
	default:
		if err = b.side.forward(m, raw); err != nil {
			err = fmt.Errorf("the debugpy adapter cannot take the request: %w; restart the debug session", err)
		}
	}
	if err != nil {
		_ = l.editor.send(errorResponse(m.Seq, m.Command, errkind.AdapterGone, err.Error()))
	}
}

// translateCancel rewrites a cancel's requestId into the adapter's numbering.
func (l *link) translateCancel(raw []byte) []byte {
	b := l.current()
	if b == nil {
		return raw
	}
	var env struct {
		Arguments struct {
			RequestID *int `json:"requestId"`
		} `json:"arguments"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Arguments.RequestID == nil {
		return raw
	}
	id, ok := b.side.translate(*env.Arguments.RequestID)
	if !ok {
		id = 0 // a request the adapter never saw (an adi/ request): cancel nothing there
	}
	out, err := setPath(raw, []string{"arguments", "requestId"}, []byte(fmt.Sprint(id)))
	if err != nil {
		return raw
	}
	return out
}
