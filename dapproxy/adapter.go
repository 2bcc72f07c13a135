package dapproxy

import (
	"fmt"
	"sort"
	"time"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
)

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
