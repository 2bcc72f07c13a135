package daptest

import (
	"encoding/json"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// Handler answers one request the Adapter read. It runs in the adapter's read loop, so messages
// it sends come before anything the adapter reads next. Without a handler a request gets an
// empty successful response.
type Handler func(a *Adapter, req *dap.Message)

// Ignore is a Handler that never answers.
func Ignore(*Adapter, *dap.Message) {}

// Adapter is a fake debug adapter on one end of a net.Pipe: it reads requests, answers them with
// the handlers the test set, and sends what the test tells it to. Every request it read can be
// expected (ExpectRequest) or listed (Requests) in order.
type Adapter struct {
	// Limit is how long an expectation waits (DefaultLimit when zero).
	Limit time.Duration

	t    testing.TB
	conn *dap.Conn
	raw  net.Conn
	in   *inbox

	mu       sync.Mutex
	handlers map[string]Handler

	wmu sync.Mutex // held while a seq is taken and its message written
	seq int
}

// NewAdapter starts a fake adapter and returns it with the other end of its connection, for the
// code under test. The test's cleanup closes both ends.
func NewAdapter(t testing.TB) (*Adapter, net.Conn) {
	mine, theirs := net.Pipe()
	a := &Adapter{t: t, conn: dap.NewConn(mine, mine, mine), raw: mine, in: newInbox(), handlers: map[string]Handler{}}
	go a.read()
	t.Cleanup(func() {
		_ = mine.Close()
		_ = theirs.Close()
	})
	return a, theirs
}

// NewAdapterClient starts a fake adapter and a dap.Client connected to it, as adi's own runs talk
// to debugpy's adapter. The test's cleanup closes both.
func NewAdapterClient(t testing.TB) (*Adapter, *dap.Client) {
	a, conn := NewAdapter(t)
	c := dap.NewClient(dap.NewConn(conn, conn, conn), nil)
	t.Cleanup(func() { _ = c.Close() })
	return a, c
}

// Handle sets the handler of command.
func (a *Adapter) Handle(command string, h Handler) {
	a.mu.Lock()
	a.handlers[command] = h
	a.mu.Unlock()
}

// read is the adapter's read loop.
func (a *Adapter) read() {
	for {
		m, err := a.conn.Read()
		if err != nil {
			a.in.end(err)
			return
		}
		a.in.add(m)
		if m.Type != "request" {
			continue
		}
		a.mu.Lock()
		h := a.handlers[m.Command]
		a.mu.Unlock()
		if h == nil {
			a.Respond(m, nil)
			continue
		}
		h(a, m)
	}
}

func (a *Adapter) limit() time.Duration {
	if a.Limit > 0 {
		return a.Limit
	}
	return DefaultLimit
}

// Send writes msg with the adapter's next seq. A write to a closed connection is ignored: the
// peer may have gone, which is what some tests are about.
func (a *Adapter) Send(msg map[string]any) {
	a.wmu.Lock()
	defer a.wmu.Unlock()
	a.seq++
	msg["seq"] = a.seq
	b, err := json.Marshal(msg)
	if err != nil {
		a.t.Errorf("encode a DAP message: %v", err)
		return
	}
	_ = a.conn.WriteRaw(b)
}

// Respond answers req with success and body (may be nil).
func (a *Adapter) Respond(req *dap.Message, body any) {
	resp := map[string]any{"type": "response", "request_seq": req.Seq, "command": req.Command, "success": true}
	if body != nil {
		resp["body"] = body
	}
	a.Send(resp)
}

// Fail answers req with a failed response saying text.
func (a *Adapter) Fail(req *dap.Message, text string) {
	a.Send(map[string]any{"type": "response", "request_seq": req.Seq, "command": req.Command,
		"success": false, "message": text, "body": map[string]any{"error": map[string]any{"id": 1, "format": text}}})
}

// Event sends an event.
func (a *Adapter) Event(name string, body any) {
	ev := map[string]any{"type": "event", "event": name}
	if body != nil {
		ev["body"] = body
	}
	a.Send(ev)
}

// ExpectRequest waits for the next request called command that was not expected before.
func (a *Adapter) ExpectRequest(command string) *dap.Message {
	a.t.Helper()
	return a.in.expect(a.t, a.limit(), "request "+command, func(m *dap.Message) bool {
		return m.Type == "request" && m.Command == command
	})
}

// Requests returns the commands of every request read so far, in order.
func (a *Adapter) Requests() []string {
	var out []string
	for _, m := range a.in.all() {
		if m.Type == "request" {
			out = append(out, m.Command)
		}
	}
	return out
}

// Messages returns every message read so far.
func (a *Adapter) Messages() []*dap.Message { return a.in.all() }

// Die closes the adapter's end of the connection, as a crashed adapter's would be.
func (a *Adapter) Die() { _ = a.raw.Close() }

// WaitClosed waits up to limit until the peer closed the connection.
func (a *Adapter) WaitClosed(limit time.Duration) error {
	if ok, _ := a.in.waitEnded(limit); !ok {
		return fmt.Errorf("the connection to the fake adapter is still open after %v", limit)
	}
	return nil
}
