package server

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

const (
	// pingPeriod is how often the server pings a client; pongWait how long it waits for any
	// message or pong before it gives the client up.
	pingPeriod = 30 * time.Second
	pongWait   = 75 * time.Second
	writeWait  = 10 * time.Second
	// maxInFlight bounds the calls one connection runs at once; its read pump waits beyond.
	maxInFlight = 32
	// eventQueue bounds the notifications waiting for a slow client; the oldest are dropped.
	eventQueue = 256
	// drainLimit bounds what is read and discarded of an oversized message before closing.
	drainLimit = 64 << 20
)

// wsConn is one WebSocket client. Its read pump (the HTTP handler's goroutine) reads messages and
// starts one goroutine per message to answer it; its write pump is the only writer of data
// frames. Answers and session events go out in the order they happened. Answers are never
// dropped; at most eventQueue events wait, and when a client reads too slowly the oldest waiting
// event is dropped, and the next event delivered says how many were.
type wsConn struct {
	ws  *websocket.Conn
	h   *Handler
	log hclog.Logger
	sub *Subscription
	sem chan struct{}
	// ctx ends when the read pump does (the client went away, or the server closed the
	// connection): the calls the connection started and still runs are cancelled then.
	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	queue     []outgoing // in the order they happened
	events    int        // events in queue
	dropped   int        // events dropped since the last one written
	closing   bool       // a close frame is to be sent after the queued answers
	closeCode int
	closeText string

	wake       chan struct{} // cap 1: the write pump has something to do
	done       chan struct{} // closed when the read pump has ended
	writerDone chan struct{} // closed when the write pump has ended
}

func newConn(ws *websocket.Conn, h *Handler, log hclog.Logger) *wsConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &wsConn{ws: ws, h: h, log: log, sem: make(chan struct{}, maxInFlight), ctx: ctx, cancel: cancel,
		wake: make(chan struct{}, 1), done: make(chan struct{}), writerDone: make(chan struct{})}
	c.sub = NewSubscription(c.queueEvent)
	return c
}

// Events returns the connection's subscription (Peer).
func (c *wsConn) Events() *Subscription { return c.sub }

// serve runs the connection until the client goes or the server closes it. Once nothing more
// can be read, the calls still running for it are cancelled: their answers could not reach the
// client, and a command left running would keep its session busy for the next client.
func (c *wsConn) serve() {
	c.h.attach(c.sub)
	defer c.h.detach(c.sub)
	go c.writePump()
	c.readPump()
	c.cancel()
	close(c.done)
	select {
	case <-c.writerDone:
	case <-time.After(writeWait):
	}
	_ = c.ws.Close()
}

func (c *wsConn) readPump() {
	_ = c.ws.SetReadDeadline(time.Now().Add(pongWait))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		_, r, err := c.ws.NextReader()
		if err != nil {
			if !websocket.IsCloseError(err, websocket.CloseNormalClosure, websocket.CloseGoingAway, websocket.CloseNoStatusReceived) &&
				!errors.Is(err, io.EOF) {
				c.log.Debug("websocket read ended", "error", err)
			}
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(pongWait))
		data, err := io.ReadAll(io.LimitReader(r, MaxMessage+1))
		if err != nil {
			return
		}
		if len(data) > MaxMessage {
			c.tooLarge(r)
			return
		}
		c.sem <- struct{}{}
		go func() {
			defer func() { <-c.sem }()
			if out := c.h.serveMessage(c.ctx, data, c, faces.WebSocket); out != nil {
				c.queueAnswer(out)
			}
			c.h.afterAnswer()
		}()
	}
}

// tooLarge answers an oversized message with an error, closes with 1009, and reads a bounded
// amount of what the client still sends so that the error and the close frame reach it.
func (c *wsConn) tooLarge(r io.Reader) {
	e := tooLarge()
	c.queueAnswer(encode(&response{JSONRPC: "2.0", ID: nullID, Error: e}))
	c.closeWith(websocket.CloseMessageTooBig, e.Message)
	_ = c.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.Copy(io.Discard, io.LimitReader(r, drainLimit))
	for {
		if _, r, err := c.ws.NextReader(); err != nil {
			return
		} else if _, err := io.Copy(io.Discard, io.LimitReader(r, drainLimit)); err != nil {
			return
		}
	}
}

// outgoing is a queued message: an answer (encoded) or a session event.
type outgoing struct {
	answer []byte
	event  *bridge.Event
}

// queueAnswer queues an answer; answers are never dropped while the client is connected.
func (c *wsConn) queueAnswer(b []byte) {
	c.mu.Lock()
	c.queue = append(c.queue, outgoing{answer: b})
	c.mu.Unlock()
	c.poke()
}

// queueEvent queues a session event without blocking, dropping the oldest waiting event when
// eventQueue are waiting.
func (c *wsConn) queueEvent(ev bridge.Event) {
	c.mu.Lock()
	if c.events >= eventQueue {
		for i, o := range c.queue {
			if o.event != nil {
				c.queue = append(c.queue[:i], c.queue[i+1:]...)
				c.events--
				c.dropped++
				break
			}
		}
	}
	c.queue = append(c.queue, outgoing{event: &ev})
	c.events++
	c.mu.Unlock()
	c.poke()
}

// closeWith makes the write pump send a close frame after the answers queued so far.
func (c *wsConn) closeWith(code int, text string) {
	c.mu.Lock()
	if !c.closing {
		c.closing, c.closeCode, c.closeText = true, code, text
	}
	c.mu.Unlock()
	c.poke()
}

func (c *wsConn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// eventParams is a session.event notification's params: the event, and how many events were
// dropped before it because the client read too slowly.
type eventParams struct {
	bridge.Event
	Dropped int `json:"dropped,omitempty"`
}

// next takes the next message to write. closing is set when the queue is empty and a close
// frame is due; events still waiting then are not sent.
func (c *wsConn) next() (msg []byte, closing bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.queue) > 0 {
		o := c.queue[0]
		c.queue = c.queue[1:]
		if o.answer != nil {
			return o.answer, false
		}
		c.events--
		if c.closing {
			continue
		}
		p := eventParams{Event: *o.event, Dropped: c.dropped}
		c.dropped = 0
		b, err := marshal(Notification{JSONRPC: "2.0", Method: "session.event", Params: p})
		if err != nil {
			continue
		}
		return b, false
	}
	return nil, c.closing
}

func (c *wsConn) writePump() {
	defer close(c.writerDone)
	ping := time.NewTicker(pingPeriod)
	defer ping.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-ping.C:
			if err := c.ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(writeWait)); err != nil {
				_ = c.ws.NetConn().Close()
				return
			}
			continue
		case <-c.wake:
		}
		for {
			msg, closing := c.next()
			if closing {
				c.mu.Lock()
				code, text := c.closeCode, c.closeText
				c.mu.Unlock()
				_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, truncate(text, 120)), time.Now().Add(writeWait))
				return
			}
			if msg == nil {
				break
			}
			_ = c.ws.SetWriteDeadline(time.Now().Add(writeWait))
			if err := c.ws.WriteMessage(websocket.TextMessage, msg); err != nil {
				c.log.Debug("websocket write failed", "error", err)
				_ = c.ws.NetConn().Close() // ends the read pump too
				return
			}
		}
	}
}

// truncate cuts s to n bytes (a close frame's reason is limited to 123 bytes).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
