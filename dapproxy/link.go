package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
)

// Timing of the proxy's own work.
const (
	// gateLimit bounds how long a resuming request waits for the inspection of a stop.
	gateLimit = 5 * time.Second
	// politeLimit bounds the wait for debugpy's answer to the disconnect the proxy sends when the
	// editor went away without one.
	politeLimit = 3 * time.Second
	// orphanLimit is how long a connection whose adapter died waits for the editor's disconnect.
	orphanLimit = 30 * time.Second
)

// link is one editor connection and the debug adapter it is forwarded to. Its goroutines: the
// editor loop (serve: reads the editor, forwards, answers adi/ requests in goroutines of their
// own), one read loop per backend (readBackend: forwards the adapter's messages), and short-lived
// workers (the inspection of a stop, an adi/ request). Teardown ends both sides together.
type link struct {
	srv    *Server
	id     int64
	log    hclog.Logger
	ctx    context.Context // ends with the link
	cancel context.CancelFunc

	editor *side // the editor's connection: read by the editor loop, written through the side
	econn  io.Closer

	// gate is held from a stop until the proxy knows its frame: resuming requests wait.
	gate *gate
	// settled is held from a stop until the session has taken it in: adi/ requests wait.
	settled *gate

	// The Config.Wiretap of what the proxy reads (nil when none).
	tapFromEditor  func([]byte)
	tapFromAdapter func([]byte)

	mu             sync.Mutex
	be             *backend // the current backend; nil when the adapter could not start
	beErr          error    // why there is no backend
	initArgs       json.RawMessage
	kind           string    // "launch" or "attach" once the editor sent one
	rec            *recorder // the recording of a launch (nil: not recorded)
	parent         *link     // a child session: the link whose debugpyAttach announced it
	disconnectSent bool      // the editor asked to disconnect
	keepDebuggee   bool      // … with terminateDebuggee false: the debuggee outlives the session
	leaving        bool      // teardown has begun: the adapter's end is expected
	adapterGone    bool      // the adapter died and the editor was told
	exitedSent     bool
	terminatedSent bool

	workers sync.WaitGroup
	done    chan struct{} // closed by teardown
	once    sync.Once
}

func (l *link) current() *backend {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.be
}

func (l *link) closing() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// readBackend is a backend's read loop.
func (l *link) readBackend(b *backend) {
	defer close(b.ended)
	defer l.recoverPanic("the adapter's read loop", b)
	for {
		m, err := b.side.conn.Read()
		if err != nil {
			l.backendEnded(b, err)
			return
		}
		if b.side.log.IsTrace() {
			b.side.log.Trace("dap adapter->", "msg", string(m.Raw))
		}
		if l.tapFromAdapter != nil {
			l.tapFromAdapter(m.Raw)
		}
		switch m.Type {
		case "response":
			p, delivered := b.side.resolve(m)
			if delivered {
				continue // the answer to one of the proxy's own requests
			}
			raw := m.Raw
			if p != nil {
				if raw, err = setInt(raw, "request_seq", p.Origin); err != nil {
					l.log.Warn("cannot map a response back to the editor", "error", err)
					continue
				}
				l.responded(p, m)
			} else {
				l.log.Debug("adapter answered no pending request; forwarded as is", "request_seq", m.RequestSeq)
			}
			_ = l.editor.forward(m, raw)
			if p != nil && p.Command == "disconnect" {
				// The session is over: debugpy's adapter would wait to be killed (as editors
				// do to the adapters they start), so the proxy ends both sides now.
				go l.teardown("the editor disconnected")
			}
		case "event":
			if b.quiet.Load() {
				continue
			}
			l.fromAdapterEvent(m)
		default:
			_ = l.editor.forward(m, m.Raw)
		}
	}
}

// responded sees the adapter's answer to an editor request before it is forwarded.
func (l *link) responded(p *dap.Call, m *dap.Message) {
	if p.Command == "launch" && !m.Success {
		l.finishAsync(l.ownRecording()) // no run will come
	}
}

// fromAdapterEvent forwards one event of the adapter, with what the proxy does around it.
func (l *link) fromAdapterEvent(m *dap.Message) {
	raw := m.Raw
	r := l.ownRecording()
	switch m.Event {
	case "stopped":
		if r != nil {
			var b struct {
				ThreadID *int `json:"threadId"`
			}
			if m.Body(&b) == nil && b.ThreadID != nil {
				l.gate.hold() // before the editor can answer the stop with a resume
				l.settled.hold()
				_ = l.editor.forward(m, raw)
				tid := *b.ThreadID
				if !l.spawn(func() { r.inspect(tid) }) {
					l.gate.release()
					l.settled.release()
				}
				return
			}
		}
	case "continued":
		if r != nil {
			r.resumed()
		}
	case "output":
		if r != nil {
			r.output(m)
		}
	case "process":
		if r != nil {
			raw = r.process(m)
		}
	case "module":
		if r != nil && r.probeModule(m) {
			return // dropped: the next message takes its number
		}
	case "debugpyAttach":
		raw = l.routeChild(m)
	case "exited":
		l.mu.Lock()
		l.exitedSent = true
		l.mu.Unlock()
		var b struct {
			ExitCode int `json:"exitCode"`
		}
		if r != nil && m.Body(&b) == nil {
			r.exited(b.ExitCode)
		}
		l.finishAsync(r) // before the editor hears of it: adi/ requests then see T final
		_ = l.editor.forward(m, raw)
		return
	case "terminated":
		l.mu.Lock()
		l.terminatedSent = true
		l.mu.Unlock()
		l.finishAsync(r)
		_ = l.editor.forward(m, raw)
		return
	}
	_ = l.editor.forward(m, raw)
}

// finishAsync ends the recording r (if any) without holding up the adapter's stream; adi/
// requests wait for it. When the link is ending, teardown finishes it instead.
func (l *link) finishAsync(r *recorder) {
	if r == nil {
		return
	}
	l.settled.hold()
	if !l.spawn(func() {
		defer l.settled.release()
		r.finish()
	}) {
		l.settled.release()
	}
}

// spawn runs fn as a worker of the link unless the link is ending (then it reports false). A
// worker is added before teardown begins, so ServeConn's wait for the workers sees every one.
func (l *link) spawn(fn func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.leaving {
		return false
	}
	l.workers.Add(1)
	go func() {
		defer l.workers.Done()
		defer l.recoverPanic("a worker of the connection", nil)
		fn()
	}()
	return true
}

// recoverPanic, deferred at the top of each of the link's goroutines, turns a panic there into
// the end of this connection, not of the process: the panic is logged with its stack, the editor
// reads one line saying what happened in its debug console, and the link is torn down (b, when
// the panic was in b's read loop, is closed first: nobody reads it any more).
func (l *link) recoverPanic(where string, b *backend) {
	v := recover()
	if v == nil {
		return
	}
	l.log.Error("panic; closing the connection", "in", where, "panic", v, "stack", string(debug.Stack()))
	if b != nil {
		b.side.close()
		b.close()
	}
	l.notice(fmt.Sprintf("internal error in %s: %v; the debug session is over (please report this)", where, v))
	go l.teardown("internal error in " + where)
}

// backendEnded handles the end of a backend's stream.
func (l *link) backendEnded(b *backend, err error) {
	l.mu.Lock()
	current := l.be == b
	expected := l.disconnectSent
	leaving := l.leaving
	l.mu.Unlock()
	if !current || leaving || l.closing() {
		b.side.close()
		return
	}
	if expected {
		l.log.Debug("the adapter ended after the editor's disconnect", "error", err)
		b.side.close()
		go l.teardown("the adapter ended after disconnect")
		return
	}
	l.adapterDied(b, err)
}

// adapterDied tells the editor that debugpy is gone: its unanswered requests fail, and it gets
// exited (for a launch, unless debugpy sent it) and terminated, as when a debuggee ends.
func (l *link) adapterDied(b *backend, why error) {
	l.log.Warn("the debugpy adapter ended unexpectedly", "error", why)
	left := b.side.close()
	sort.Slice(left, func(i, j int) bool { return left[i].Origin < left[j].Origin })
	l.mu.Lock()
	l.adapterGone = true
	sendExited := l.kind == "launch" && !l.exitedSent
	sendTerminated := !l.terminatedSent
	l.exitedSent, l.terminatedSent = true, true
	l.mu.Unlock()
	for _, p := range left {
		_ = l.editor.send(errorResponse(p.Origin, p.Command, errkind.AdapterGone,
			"the debugpy adapter ended before it answered; restart the debug session"))
	}
	b.close() // the debuggee goes with it
	l.notice(fmt.Sprintf("the debugpy adapter ended unexpectedly (%v); the debug session is over", why))
	code := -1
	if r := l.ownRecording(); r != nil {
		r.finish()
		code = r.exitCode()
	}
	if sendExited {
		if code == -1 {
			code = killedExitCode
		}
		_ = l.editor.send(exitedEvent(code))
	}
	if sendTerminated {
		_ = l.editor.send(terminatedEvent())
	}
	go func() {
		t := time.NewTimer(orphanLimit)
		defer t.Stop()
		select {
		case <-t.C:
			l.teardown("the editor did not disconnect after the adapter died")
		case <-l.done:
		}
	}()
}

// killedExitCode is reported when the debuggee was killed with its adapter (128 + SIGKILL).
const killedExitCode = 137

// teardown ends the link: the editor's connection, the adapter and every process of its run. An
// editor that left without disconnect gets DAP's default: debugpy is asked to disconnect (a
// launched debuggee ends, an attached one is left running) before its processes are ended.
func (l *link) teardown(why string) {
	l.once.Do(func() {
		l.log.Debug("closing the connection", "why", why)
		l.mu.Lock()
		b, polite, keep := l.be, !l.disconnectSent && !l.adapterGone, l.keepDebuggee
		l.leaving = true
		l.mu.Unlock()
		if b != nil && polite {
			select {
			case <-b.ended:
			default:
				ctx, cancel := context.WithTimeout(context.Background(), politeLimit)
				_, err := b.call(ctx, "disconnect", map[string]any{"restart": false})
				cancel()
				if err != nil {
					l.log.Debug("disconnect on the editor's behalf", "error", err)
				}
			}
		}
		close(l.done)
		l.cancel()
		l.editor.close()
		_ = l.econn.Close()
		switch {
		case b == nil:
		case keep:
			b.detach()
		default:
			b.close()
		}
		if r := l.ownRecording(); r != nil {
			r.finish()
		}
		l.srv.forget(l)
	})
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

// ownRecording returns the recording of this connection's own launch.
func (l *link) ownRecording() *recorder {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec
}

// notice tells the editor something about adi in its debug console, as one line beginning with
// "adi: ".
func (l *link) notice(text string) {
	_ = l.editor.send(consoleOutput(errkind.Prefixed(text) + "\n"))
}
