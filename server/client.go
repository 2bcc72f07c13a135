package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gorilla/websocket"
)

// Client is a WebSocket JSON-RPC client of the API, for Go programs and tests. Calls may run
// concurrently; each waits for its own answer (matched by id). A reader goroutine delivers
// answers and session events until the connection ends.
type Client struct {
	ws  *websocket.Conn
	wmu sync.Mutex // one writer at a time

	mu      sync.Mutex
	next    int64
	pending map[string]chan clientReply
	err     error // why the connection ended
	events  chan json.RawMessage
	done    chan struct{}
}

type clientReply struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// ErrClientClosed is returned by calls on a client whose connection has ended.
var ErrClientClosed = errors.New("adi: the connection to the server has ended")

// Dial connects to ws://ADDR/rpc of the server at base (http://ADDR) with the token. header may
// add headers (e.g. Origin). On a refused handshake the HTTP response is returned with the error.
func Dial(ctx context.Context, base, token string, header http.Header) (*Client, *http.Response, error) {
	u := "ws" + strings.TrimPrefix(base, "http") + "/rpc"
	h := http.Header{}
	for k, v := range header {
		h[k] = v
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	d := websocket.Dialer{ReadBufferSize: 32 << 10, WriteBufferSize: 32 << 10}
	ws, resp, err := d.DialContext(ctx, u, h)
	if err != nil {
		return nil, resp, fmt.Errorf("adi: cannot connect to %s: %w", u, err)
	}
	ws.SetReadLimit(64 << 20)
	c := &Client{ws: ws, pending: map[string]chan clientReply{}, events: make(chan json.RawMessage, 4096),
		done: make(chan struct{})}
	go c.read()
	return c, resp, nil
}

// Events delivers the params of the session.event notifications this client subscribed to
// (session.subscribe). When nobody reads, events beyond the buffer are dropped.
func (c *Client) Events() <-chan json.RawMessage { return c.events }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

func (c *Client) read() {
	defer close(c.done)
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			c.fail(err)
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			clientReply
		}
		if json.Unmarshal(data, &msg) != nil {
			continue
		}
		if msg.Method != "" {
			select {
			case c.events <- msg.Params:
			default:
			}
			continue
		}
		c.mu.Lock()
		ch, ok := c.pending[string(msg.ID)]
		delete(c.pending, string(msg.ID))
		c.mu.Unlock()
		if ok {
			ch <- msg.clientReply
		}
	}
}

func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = fmt.Errorf("%w: %v", ErrClientClosed, err)
	}
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
}

// Err returns why the connection ended (nil while it is up).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Call calls method with params and decodes the result into result (may be nil). A JSON-RPC
// error is returned as *Error. Cancelling ctx stops waiting, not the call on the server.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.next++
	id := strconv.FormatInt(c.next, 10)
	ch := make(chan clientReply, 1)
	c.pending[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	if err != nil {
		c.forget(id)
		return fmt.Errorf("adi: cannot encode the params of %s: %w", method, err)
	}
	if err := c.Send(msg); err != nil {
		c.forget(id)
		return err
	}
	select {
	case rep, ok := <-ch:
		if !ok {
			return c.Err()
		}
		if rep.Error != nil {
			return rep.Error
		}
		if result != nil {
			return json.Unmarshal(rep.Result, result)
		}
		return nil
	case <-ctx.Done():
		c.forget(id)
		return ctx.Err()
	}
}

func (c *Client) forget(id string) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Send writes one raw message (for requests the client builds itself).
func (c *Client) Send(msg []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
		return fmt.Errorf("adi: cannot send to the server: %w", err)
	}
	return nil
}

// Close closes the connection politely.
func (c *Client) Close() error {
	c.wmu.Lock()
	_ = c.ws.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""))
	c.wmu.Unlock()
	return c.ws.Close()
}
