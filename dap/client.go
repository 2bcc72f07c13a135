package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/hashicorp/go-hclog"
)

// ErrClosed is returned by calls on a Client whose connection has ended.
// Its kind is errkind.AdapterGone.
var ErrClosed = errkind.Sentinel(errkind.AdapterGone, "DAP connection closed")

// ResponseError is a response with success=false.
type ResponseError struct {
	Command string
	Message string
}

func (e *ResponseError) Error() string {
	return fmt.Sprintf("debugpy refused %s: %s", e.Command, e.Message)
}

// RequestHandler answers a reverse request (a request sent by the adapter to the client, such as
// runInTerminal). It returns the response body, or an error sent back as a failed response.
type RequestHandler func(req *Message) (body any, err error)

// Client sends requests over a Conn and routes what comes back. It runs two goroutines: the read
// loop and the write loop; both end when the connection ends or Close is called.
type Client struct {
	conn *Conn
	log  hclog.Logger

	seq    atomic.Int64
	out    chan []byte
	closed chan struct{}
	once   sync.Once

	pending *Pending

	mu      sync.Mutex
	subs    map[*Subscription]struct{}
	reverse RequestHandler
	err     error // why the connection ended
	loops   sync.WaitGroup
}

// NewClient starts a client on conn. log may be nil; DAP traffic is logged at trace level.
func NewClient(conn *Conn, log hclog.Logger) *Client {
	if log == nil {
		log = hclog.NewNullLogger()
	}
	c := &Client{
		conn:    conn,
		log:     log,
		out:     make(chan []byte),
		closed:  make(chan struct{}),
		pending: NewPending(),
		subs:    make(map[*Subscription]struct{}),
	}
	c.loops.Add(2)
	go c.readLoop()
	go c.writeLoop()
	return c
}

// OnRequest sets the handler for reverse requests. Without one they are refused.
func (c *Client) OnRequest(h RequestHandler) {
	c.mu.Lock()
	c.reverse = h
	c.mu.Unlock()
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.closed }

// Err says why the connection ended (nil while it is open).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection and waits for both loops to stop. Pending calls fail with ErrClosed.
func (c *Client) Close() error {
	c.shutdown(ErrClosed)
	err := c.conn.Close()
	c.loops.Wait()
	return err
}

func (c *Client) shutdown(why error) {
	c.once.Do(func() {
		c.mu.Lock()
		c.err = why
		// Copy the subscriptions: Subscription.Close deletes from c.subs while they are woken.
		subs := make(map[*Subscription]struct{}, len(c.subs))
		for s := range c.subs {
			subs[s] = struct{}{}
		}
		c.mu.Unlock()
		close(c.closed)
		c.pending.Close(why)
		for s := range subs {
			s.wake()
		}
	})
}

func (c *Client) readLoop() {
	defer c.loops.Done()
	for {
		m, err := c.conn.Read()
		if err != nil {
			if errors.Is(err, ErrMalformed) {
				c.log.Error("unreadable message from debugpy; closing", "error", err)
			}
			if errors.Is(err, os.ErrClosed) {
				// the adapter exited and its pipe was closed under this read (exec.Cmd.Wait
				// closes it as the process ends): to the client that is the end of the stream,
				// as when the read saw the EOF first
				err = io.EOF
			}
			c.shutdown(fmt.Errorf("%w: %v", ErrClosed, err))
			_ = c.conn.Close()
			return
		}
		if c.log.IsTrace() {
			c.log.Trace("dap <-", "msg", string(m.Raw))
		}
		switch m.Type {
		case "response":
			if call, _ := c.pending.Resolve(m); call == nil {
				c.log.Debug("response to no pending request", "request_seq", m.RequestSeq, "command", m.Command)
			}
		case "event":
			c.mu.Lock()
			for s := range c.subs {
				s.offer(m)
			}
			c.mu.Unlock()
		case "request":
			c.answer(m)
		}
	}
}

func (c *Client) writeLoop() {
	defer c.loops.Done()
	for {
		select {
		case <-c.closed:
			return
		case b := <-c.out:
			if c.log.IsTrace() {
				c.log.Trace("dap ->", "msg", string(b))
			}
			if err := c.conn.WriteRaw(b); err != nil {
				c.shutdown(fmt.Errorf("%w: write: %v", ErrClosed, err))
				_ = c.conn.Close()
				return
			}
		}
	}
}

// send hands b to the write loop.
func (c *Client) send(b []byte) error {
	select {
	case c.out <- b:
		return nil
	case <-c.closed:
		return c.Err()
	}
}

// answer replies to a reverse request through the handler (outside the read loop's lock).
func (c *Client) answer(req *Message) {
	c.mu.Lock()
	h := c.reverse
	c.mu.Unlock()
	var body any
	err := fmt.Errorf("adi does not support the %q request", req.Command)
	if h != nil {
		body, err = h(req)
	}
	resp := map[string]any{
		"seq": int(c.seq.Add(1)), "type": "response", "request_seq": req.Seq,
		"command": req.Command, "success": err == nil,
	}
	if err != nil {
		resp["message"] = err.Error()
	} else if body != nil {
		resp["body"] = body
	}
	b, _ := json.Marshal(resp)
	go func() { _ = c.send(b) }() // never block the read loop on the write loop
}

// Start sends a request and returns without waiting for its response. The call is registered
// before the request is written, so a fast response cannot be missed.
func (c *Client) Start(command string, args any) (*Call, error) {
	seq := int(c.seq.Add(1))
	req := map[string]any{"seq": seq, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", command, err)
	}
	call, err := c.pending.Await(seq, command)
	if err != nil {
		return nil, err
	}
	if err := c.send(b); err != nil {
		c.pending.Forget(seq)
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	return call, nil
}

// Wait waits for the response of call (see Call.Wait).
func (c *Client) Wait(ctx context.Context, call *Call) (*Message, error) { return call.Wait(ctx) }

// Do sends a request, waits for its response and decodes the response body into body (may be nil).
func (c *Client) Do(ctx context.Context, command string, args, body any) error {
	call, err := c.Start(command, args)
	if err != nil {
		return err
	}
	m, err := c.Wait(ctx, call)
	if err != nil {
		return err
	}
	if body != nil {
		return m.Body(body)
	}
	return nil
}

func responseErrorText(m *Message) string {
	var b struct {
		Error *struct {
			Format string `json:"format"`
		} `json:"error"`
	}
	if err := m.Body(&b); err == nil && b.Error != nil && b.Error.Format != "" {
		return b.Error.Format
	}
	if m.ErrMessage != "" {
		return m.ErrMessage
	}
	return "request failed"
}

// Subscription receives a copy of every event (or of the named events) that arrives after it was
// created, in order, without ever blocking the read loop.
type Subscription struct {
	c      *Client
	names  map[string]bool
	mu     sync.Mutex
	queue  []*Message
	signal chan struct{}
}

// Subscribe returns a subscription to the named events, or to all events when none are named.
func (c *Client) Subscribe(events ...string) *Subscription {
	s := &Subscription{c: c, signal: make(chan struct{}, 1)}
	if len(events) > 0 {
		s.names = make(map[string]bool, len(events))
		for _, e := range events {
			s.names[e] = true
		}
	}
	c.mu.Lock()
	c.subs[s] = struct{}{}
	c.mu.Unlock()
	return s
}

func (s *Subscription) offer(m *Message) {
	if s.names != nil && !s.names[m.Event] {
		return
	}
	s.mu.Lock()
	s.queue = append(s.queue, m)
	s.mu.Unlock()
	s.wake()
}

func (s *Subscription) wake() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// Next returns the next event. It fails when ctx ends, or when the connection has ended and no
// event is left.
func (s *Subscription) Next(ctx context.Context) (*Message, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			m := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return m, nil
		}
		s.mu.Unlock()
		select {
		case <-s.signal:
		case <-s.c.closed:
			s.mu.Lock()
			empty := len(s.queue) == 0
			s.mu.Unlock()
			if empty {
				return nil, s.c.Err()
			}
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a debugpy event: %w", ctx.Err())
		}
	}
}

// WaitFor returns the next event named name, discarding others.
func (s *Subscription) WaitFor(ctx context.Context, name string) (*Message, error) {
	for {
		m, err := s.Next(ctx)
		if err != nil {
			return nil, err
		}
		if m.Event == name {
			return m, nil
		}
	}
}

// Close stops the subscription.
func (s *Subscription) Close() {
	s.c.mu.Lock()
	delete(s.c.subs, s)
	s.c.mu.Unlock()
}
