package daptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// Client is a DAP client playing an editor. It keeps every byte it received (Received) and every
// message, and its expectations block until the message they want comes.
type Client struct {
	// Limit is how long an expectation waits (DefaultLimit when zero).
	Limit time.Duration

	t    testing.TB
	conn io.ReadWriteCloser
	in   *inbox

	mu  sync.Mutex
	got bytes.Buffer // every byte read
	seq int          // the last seq sent
	wmu sync.Mutex
}

// Dial connects a Client to a DAP server listening at addr (TCP).
func Dial(t testing.TB, addr string) *Client {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("connect to the DAP server at %s: %v", addr, err)
	}
	return NewClient(t, conn)
}

// NewClient starts a Client on conn; the test's cleanup closes conn.
func NewClient(t testing.TB, conn io.ReadWriteCloser) *Client {
	c := &Client{t: t, conn: conn, in: newInbox()}
	go c.read()
	t.Cleanup(func() { _ = conn.Close() })
	return c
}

// read is the client's read loop.
func (c *Client) read() {
	r := dap.NewConn(teeReader{c}, io.Discard, nil)
	for {
		m, err := r.Read()
		if err != nil {
			c.in.end(err)
			return
		}
		c.in.add(m)
	}
}

// teeReader keeps what the client reads.
type teeReader struct{ c *Client }

func (tr teeReader) Read(p []byte) (int, error) {
	n, err := tr.c.conn.Read(p)
	tr.c.mu.Lock()
	tr.c.got.Write(p[:n])
	tr.c.mu.Unlock()
	return n, err
}

func (c *Client) limit() time.Duration {
	if c.Limit > 0 {
		return c.Limit
	}
	return DefaultLimit
}

// Received returns every byte read so far.
func (c *Client) Received() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]byte(nil), c.got.Bytes()...)
}

// Messages returns every message read so far, taken or not.
func (c *Client) Messages() []*dap.Message { return c.in.all() }

// NextSeq takes the next seq of the client's sequence (for a message the test writes itself).
func (c *Client) NextSeq() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	return c.seq
}

// SetSeq sets the last seq sent: the next request gets seq+1.
func (c *Client) SetSeq(seq int) {
	c.mu.Lock()
	c.seq = seq
	c.mu.Unlock()
}

// Send writes a request and returns its seq.
func (c *Client) Send(command string, args any) int {
	c.t.Helper()
	seq := c.NextSeq()
	req := map[string]any{"seq": seq, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	c.SendJSON(req)
	return seq
}

// Respond answers a reverse request (runInTerminal) with success and body.
func (c *Client) Respond(req *dap.Message, body any) {
	c.t.Helper()
	resp := map[string]any{"seq": c.NextSeq(), "type": "response", "request_seq": req.Seq,
		"command": req.Command, "success": true}
	if body != nil {
		resp["body"] = body
	}
	c.SendJSON(resp)
}

// SendJSON writes msg as one framed message, as it is.
func (c *Client) SendJSON(msg any) {
	c.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		c.t.Fatalf("encode a DAP message: %v", err)
	}
	c.SendRaw([]byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(b), b)))
}

// SendRaw writes bytes as they are (framing included).
func (c *Client) SendRaw(b []byte) {
	c.t.Helper()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.conn.Write(b); err != nil {
		c.t.Fatalf("write to the DAP server: %v", err)
	}
}

// Expect returns the first message not returned before that matches pred, waiting for it up to
// Limit; what names it in the failure.
func (c *Client) Expect(what string, pred func(*dap.Message) bool) *dap.Message {
	c.t.Helper()
	return c.in.expect(c.t, c.limit(), what, pred)
}

// Event waits for the next event called name.
func (c *Client) Event(name string) *dap.Message {
	c.t.Helper()
	return c.Expect("event "+name, func(m *dap.Message) bool { return m.Type == "event" && m.Event == name })
}

// Request waits for a reverse request called command.
func (c *Client) Request(command string) *dap.Message {
	c.t.Helper()
	return c.Expect("request "+command, func(m *dap.Message) bool { return m.Type == "request" && m.Command == command })
}

// Response waits for the response to the request seq.
func (c *Client) Response(seq int) *dap.Message {
	c.t.Helper()
	return c.Expect(fmt.Sprintf("the response to %d", seq), func(m *dap.Message) bool {
		return m.Type == "response" && m.RequestSeq == seq
	})
}

// Call sends a request and returns its response, failing the test unless it succeeded.
func (c *Client) Call(command string, args any) *dap.Message {
	c.t.Helper()
	m := c.Response(c.Send(command, args))
	if !m.Success {
		c.t.Fatalf("%s failed: %s", command, m.Raw)
	}
	return m
}

// WaitClosed waits up to limit until the server closes the connection and returns why the
// reading ended (io.EOF when the server closed it cleanly).
func (c *Client) WaitClosed(limit time.Duration) error {
	ok, err := c.in.waitEnded(limit)
	if !ok {
		return fmt.Errorf("the connection is still open after %v", limit)
	}
	return err
}

// Close closes the client's end of the connection (an editor that goes away).
func (c *Client) Close() error { return c.conn.Close() }

// Body decodes the body (or a request's arguments) of m into a T, failing the test when it
// cannot.
func Body[T any](t testing.TB, m *dap.Message) T {
	t.Helper()
	var v T
	if err := m.Body(&v); err != nil {
		t.Fatalf("decode the body of %s: %v", m.Raw, err)
	}
	return v
}
