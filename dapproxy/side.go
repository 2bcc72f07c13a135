package dapproxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/dap"
)

// side is one direction of a proxied connection: the peer the proxy writes to (the editor, or the
// debug adapter). It owns the sequence numbers that peer sees and the requests that peer has not
// answered yet.
//
// Every message the proxy writes to a peer gets the next number of that peer's own sequence, so
// each peer sees 1, 2, 3, … however many messages the proxy adds (its own requests) or keeps
// (answers to adi/ requests, responses to its own requests). A request keeps a record of the
// number it had on the other side, so that its response's request_seq (and a cancel's
// requestId) can be translated back.
type side struct {
	name string // "editor" or "adapter", for logs
	conn *dap.Conn
	log  hclog.Logger
	tap  func([]byte) // Config.Wiretap for what is written here (may be nil)

	mu   sync.Mutex // held while a number is taken and its message written
	last int        // the last seq written
	// pending are the requests written here and not answered yet: the editor's (tracked, with
	// their seq on the other side) and the proxy's own (awaited).
	pending *dap.Pending
	// fromOther maps the seq a request had on the other side to its seq here (for cancel).
	fromOther map[int]int
}

// errSideClosed is why a side refuses to write.
var errSideClosed = errors.New("connection closed")

func newSide(name string, conn *dap.Conn, log hclog.Logger, tap func([]byte)) *side {
	return &side{name: name, conn: conn, log: log, tap: tap, pending: dap.NewPending(), fromOther: map[int]int{}}
}

// write gives raw the next seq and writes it; register, when non-nil, registers the request
// under that seq before the message leaves (a fast response cannot miss it).
func (s *side) write(raw []byte, register func(seq int) error) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending.Err() != nil {
		return 0, fmt.Errorf("write to the %s: %w", s.name, errSideClosed)
	}
	seq := s.last + 1
	out, err := setInt(raw, "seq", seq)
	if err != nil {
		return 0, fmt.Errorf("renumber a message for the %s: %w", s.name, err)
	}
	if register != nil {
		if err := register(seq); err != nil {
			return 0, fmt.Errorf("write to the %s: %w", s.name, errSideClosed)
		}
	}
	if s.log.IsTrace() {
		s.log.Trace("dap ->"+s.name, "msg", string(out))
	}
	if s.tap != nil {
		s.tap(out)
	}
	if err := s.conn.WriteRaw(out); err != nil {
		s.pending.Forget(seq)
		return 0, fmt.Errorf("write to the %s: %w", s.name, err)
	}
	s.last = seq
	return seq, nil
}

// forward writes a message that came from the other side: a request is tracked so its response
// can be mapped back, anything else just renumbered.
func (s *side) forward(m *dap.Message, raw []byte) error {
	var register func(int) error
	if m.Type == "request" {
		register = func(seq int) error {
			if err := s.pending.Track(seq, m.Command, m.Seq); err != nil {
				return err
			}
			s.fromOther[m.Seq] = seq
			return nil
		}
	}
	_, err := s.write(raw, register)
	return err
}

// request writes one of the proxy's own requests; its response is delivered to the returned call
// (which fails when the side ends first).
func (s *side) request(command string, args any) (*dap.Call, error) {
	req := map[string]any{"seq": 0, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", command, err)
	}
	var call *dap.Call
	if _, err := s.write(raw, func(seq int) (err error) {
		call, err = s.pending.Await(seq, command)
		return err
	}); err != nil {
		return nil, err
	}
	return call, nil
}

// send writes a message the proxy makes (an event or a response) as JSON.
func (s *side) send(msg any) error {
	raw, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode a message for the %s: %w", s.name, err)
	}
	_, err = s.write(raw, nil)
	return err
}

// resolve takes the request the response m from this side answers: the proxy's own requests get
// their response (delivered true); the editor's are returned to be forwarded; nil when unknown.
func (s *side) resolve(m *dap.Message) (call *dap.Call, delivered bool) {
	return s.pending.Resolve(m)
}

// translate returns the seq here of the request that had seq on the other side.
func (s *side) translate(seq int) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.fromOther[seq]
	return n, ok
}

// close marks the side closed and returns the forwarded requests it never answered, in the
// order they were written; the proxy's own waiters are released.
func (s *side) close() []*dap.Call {
	return s.pending.Close(fmt.Errorf("the %s: %w", s.name, errSideClosed))
}
