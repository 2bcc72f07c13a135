// Package dap speaks the Debug Adapter Protocol to debugpy and manages debugpy processes. It knows
// nothing of ADI.
//
// It owns these things:
//   - Conn: DAP framing over a byte stream (framing.go, adi's one framer: headers and bodies
//     bounded, exact errors), envelope-only decoding and the raw JSON kept, so any message
//     (debugpy's custom events, unknown fields) passes intact. The DAP proxy reads and writes
//     editors with it too.
//   - Pending: the one correlator of requests and responses (pending.go), registered before a
//     request is written; Client and the DAP proxy's sides both use it.
//   - Client: requests and responses over a Conn. Each Client runs exactly two goroutines, a read
//     loop (dispatches responses to pending calls, events to subscriptions, reverse requests to a
//     handler) and a write loop (the only writer of the connection).
//   - the debugpy launcher: finding a Python that imports debugpy, starting `python -m
//     debugpy.adapter` in its own process group with TCP_NODELAY forced (see docs/design.md), and
//     ending every process of the run when it closes. An Adapter runs one goroutine, waiting for
//     its process (and one ending it when its context ends).
//   - Run: one program under debugpy (run.go), the only place a launch is built: the adapter,
//     initialize, launch up to the end of the configuration phase, ConfigurationDone (which
//     waits for launch's answer), and a Pump. While a Run starts, one goroutine waits for the
//     initialized event. exec runs, the kept-ready run, live mode, the benchmark and the Pinger
//     all use it. AttachRun (attach.go) is a Run on a program adi did not start, over TCP to
//     `python -m debugpy --listen`: no Adapter, and Close detaches instead of ending processes.
//   - Pump: the one reader of a run's events. It runs two goroutines: the pump (output, the
//     debuggee's pid and the exit to hooks and fields; it ends at exited, terminated or the end
//     of the connection) and the stop hand-over, which delivers every stop in order, none dropped,
//     until the Pump is closed.
package dap

import (
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/adi-bridge/adi/internal/errkind"
)

// Message is one DAP message: the envelope fields decoded, and the message exactly as it was read
// (or is to be written) in Raw.
type Message struct {
	Seq        int    `json:"seq"`
	Type       string `json:"type"` // "request", "response" or "event"
	Command    string `json:"command,omitempty"`
	Event      string `json:"event,omitempty"`
	RequestSeq int    `json:"request_seq,omitempty"`
	Success    bool   `json:"success,omitempty"`
	// ErrMessage is the short error text of a failed response ("message" on the wire).
	ErrMessage string `json:"message,omitempty"`

	Raw json.RawMessage `json:"-"`
}

// ErrMalformed is wrapped by every error about bytes that are not a DAP message.
// Its kind is errkind.InvalidRequest.
var ErrMalformed = errkind.Sentinel(errkind.InvalidRequest, "malformed DAP message")

// DecodeEnvelope decodes the envelope of one DAP message body and keeps raw as the message.
func DecodeEnvelope(raw []byte) (*Message, error) {
	var m Message
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	switch m.Type {
	case "request":
		if m.Command == "" {
			return nil, fmt.Errorf("%w: request without a command", ErrMalformed)
		}
	case "response":
		if m.Command == "" {
			return nil, fmt.Errorf("%w: response without a command", ErrMalformed)
		}
	case "event":
		if m.Event == "" {
			return nil, fmt.Errorf("%w: event without an event name", ErrMalformed)
		}
	default:
		return nil, fmt.Errorf("%w: unknown message type %q", ErrMalformed, m.Type)
	}
	m.Raw = raw
	return &m, nil
}

// Body decodes the "body" (events, responses) or "arguments" (requests) of m into v.
func (m *Message) Body(v any) error {
	var env struct {
		Body      json.RawMessage `json:"body"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(m.Raw, &env); err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	part := env.Body
	if m.Type == "request" {
		part = env.Arguments
	}
	if len(part) == 0 {
		part = []byte("{}")
	}
	if err := json.Unmarshal(part, v); err != nil {
		return fmt.Errorf("decode %s%s body: %w", m.Command, m.Event, err)
	}
	return nil
}

// Conn reads and writes DAP messages on a byte stream with adi's framer (framing.go). Reads must
// come from one goroutine; writes are serialised by a mutex, and each message leaves in a single
// write (header and body together) so no Nagle delay can split it.
type Conn struct {
	fr *frameReader

	wmu  sync.Mutex
	w    io.Writer
	wbuf []byte

	closer io.Closer
}

// NewConn returns a Conn reading from r and writing to w, with the limits of a trusted peer (the
// debugpy adapter adi started); Close closes c (may be nil).
func NewConn(r io.Reader, w io.Writer, c io.Closer) *Conn {
	return NewLimitedConn(r, w, c, Limits{})
}

// NewLimitedConn is NewConn with the reads bounded by lim (an editor's connection).
func NewLimitedConn(r io.Reader, w io.Writer, c io.Closer, lim Limits) *Conn {
	return &Conn{fr: newFrameReader(r, c, lim), w: w, closer: c}
}

// Read reads one message. Framing and envelope errors wrap ErrMalformed; io.EOF means the peer
// closed the stream between messages.
func (c *Conn) Read() (*Message, error) {
	raw, err := c.fr.read()
	if err != nil {
		return nil, err
	}
	return DecodeEnvelope(raw)
}

// ReadBody reads one message's body as the peer sent it, without decoding it, for callers that
// answer a body that is not a valid message themselves. Errors are those of Read.
func (c *Conn) ReadBody() ([]byte, error) { return c.fr.read() }

// WriteRaw writes one message body with its header, in one write.
func (c *Conn) WriteRaw(body []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf = appendFrame(c.wbuf[:0], body)
	_, err := c.w.Write(c.wbuf)
	if cap(c.wbuf) > 1<<20 {
		c.wbuf = nil // do not keep a large message's buffer
	}
	return err
}

// Close closes the underlying stream.
func (c *Conn) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer.Close()
}
