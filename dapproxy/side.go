package dapproxy

import (
	"encoding/json"
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

	mu      sync.Mutex // held while a number is taken and its message written
	last    int        // the last seq written
	pending map[int]*pendingReq
	// fromOther maps the seq a request had on the other side to its seq here (for cancel).
	fromOther map[int]int
	closed    bool
}

// pendingReq is a request written to a side and not answered yet.
type pendingReq struct {
	command string
	// origSeq is the request's seq on the side it came from (0 for the proxy's own requests).
	origSeq int
	// own is set for the proxy's own requests: the response is delivered there, never forwarded.
	own chan *dap.Message
}

func newSide(name string, conn *dap.Conn, log hclog.Logger, tap func([]byte)) *side {
	return &side{name: name, conn: conn, log: log, tap: tap, pending: map[int]*pendingReq{}, fromOther: map[int]int{}}
}

// write gives raw the next seq and writes it; track, when non-nil, is registered under that seq
// before the message leaves (a fast response cannot miss it).
func (s *side) write(raw []byte, track *pendingReq) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return 0, fmt.Errorf("write to the %s: connection closed", s.name)
	}
	seq := s.last + 1
	out, err := setInt(raw, "seq", seq)
	if err != nil {
		return 0, fmt.Errorf("renumber a message for the %s: %w", s.name, err)
	}
	if track != nil {
		s.pending[seq] = track
		if track.origSeq > 0 {
			s.fromOther[track.origSeq] = seq
		}
	}
	if s.log.IsTrace() {
		s.log.Trace("dap ->"+s.name, "msg", string(out))
	}
	if s.tap != nil {
		s.tap(out)
	}
	if err := s.conn.WriteRaw(out); err != nil {
		delete(s.pending, seq)
		return 0, fmt.Errorf("write to the %s: %w", s.name, err)
	}
	s.last = seq
	return seq, nil
}

// forward writes a message that came from the other side: a request is tracked so its response
// can be mapped back, anything else just renumbered.
func (s *side) forward(m *dap.Message, raw []byte) error {
	var track *pendingReq
	if m.Type == "request" {
		track = &pendingReq{command: m.Command, origSeq: m.Seq}
	}
	_, err := s.write(raw, track)
	return err
}

// request writes one of the proxy's own requests; its response arrives on the returned channel
// (closed without a message when the side ends first).
func (s *side) request(command string, args any) (<-chan *dap.Message, error) {
	req := map[string]any{"seq": 0, "type": "request", "command": command}
	if args != nil {
		req["arguments"] = args
	}
	raw, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("encode %s request: %w", command, err)
	}
	ch := make(chan *dap.Message, 1)
	if _, err := s.write(raw, &pendingReq{command: command, own: ch}); err != nil {
		return nil, err
	}
	return ch, nil
}

// send writes a message the proxy makes (an event or a response) as JSON.
func (s *side) send(msg map[string]any) error {
	msg["seq"] = 0
	raw, err := json.Marshal(msg)
	if err != nil {
		return fmt.Errorf("encode a message for the %s: %w", s.name, err)
	}
	_, err = s.write(raw, nil)
	return err
}

// resolve takes the request a response from this side answers (nil when unknown).
func (s *side) resolve(requestSeq int) *pendingReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pending[requestSeq]
	delete(s.pending, requestSeq)
	return p
}

// translate returns the seq here of the request that had seq on the other side.
func (s *side) translate(seq int) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.fromOther[seq]
	return n, ok
}

// close marks the side closed and returns the requests it never answered; the proxy's own
// waiters are released.
func (s *side) close() []*pendingReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var left []*pendingReq
	for seq, p := range s.pending {
		delete(s.pending, seq)
		if p.own != nil {
			close(p.own)
			continue
		}
		left = append(left, p)
	}
	return left
}
