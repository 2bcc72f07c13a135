package dap

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// Pending correlates the requests written to one peer with the responses that come back. A
// request is registered under its seq before it is written, so a fast response cannot miss it.
// It is adi's one correlator: Client uses it for its calls, and the DAP proxy for each side of
// a connection (the requests it forwards, and its own).
//
// A request is either awaited (Await: its response is delivered to the Call) or tracked (Track:
// the owner forwards the response itself, and the Call says where the request came from).
type Pending struct {
	mu    sync.Mutex
	calls map[int]*Call
	err   error // set by Close; nothing is registered after
}

// NewPending returns an empty table.
func NewPending() *Pending { return &Pending{calls: map[int]*Call{}} }

// Call is a request written to a peer and not answered yet.
type Call struct {
	Command string
	Seq     int
	// Origin is, for a tracked request, its seq on the side it came from (the proxy maps the
	// response's request_seq back to it); 0 for an awaited one.
	Origin int

	p    *Pending
	done chan struct{} // nil for a tracked request
	resp *Message
	err  error
}

// Await registers a request whose response the caller waits for with Call.Wait. It fails when
// the table was closed.
func (p *Pending) Await(seq int, command string) (*Call, error) {
	call := &Call{Command: command, Seq: seq, p: p, done: make(chan struct{})}
	return call, p.add(call)
}

// Track registers a request whose response the caller forwards itself; origin is the request's
// seq on the side it came from.
func (p *Pending) Track(seq int, command string, origin int) error {
	return p.add(&Call{Command: command, Seq: seq, Origin: origin, p: p})
}

func (p *Pending) add(call *Call) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return fmt.Errorf("%s: %w", call.Command, p.err)
	}
	p.calls[call.Seq] = call
	return nil
}

// Resolve takes the request the response m answers. An awaited request gets m (a refused one
// also a *ResponseError) and delivered is true; a tracked one is returned for its owner to
// forward. It returns nil for a response to no pending request.
func (p *Pending) Resolve(m *Message) (call *Call, delivered bool) {
	p.mu.Lock()
	call = p.calls[m.RequestSeq]
	delete(p.calls, m.RequestSeq)
	p.mu.Unlock()
	if call == nil || call.done == nil {
		return call, false
	}
	var err error
	if !m.Success {
		err = &ResponseError{Command: m.Command, Message: responseErrorText(m)}
	}
	call.finish(m, err)
	return call, true
}

// Forget drops the request seq (not written after all, or no longer waited for).
func (p *Pending) Forget(seq int) {
	p.mu.Lock()
	delete(p.calls, seq)
	p.mu.Unlock()
}

// Err is why the table was closed (nil while it is open).
func (p *Pending) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Close ends the table: every awaited request fails with why (wrapped, after its command), and
// the tracked ones, which nobody will answer now, are returned in the order they were written.
// Later registrations fail with why. Only the first Close has an effect.
func (p *Pending) Close(why error) []*Call {
	p.mu.Lock()
	if p.err != nil {
		p.mu.Unlock()
		return nil
	}
	p.err = why
	calls := p.calls
	p.calls = map[int]*Call{}
	p.mu.Unlock()
	var left []*Call
	for _, call := range calls {
		if call.done != nil {
			call.finish(nil, fmt.Errorf("%s: %w", call.Command, why))
			continue
		}
		left = append(left, call)
	}
	sort.Slice(left, func(i, j int) bool { return left[i].Seq < left[j].Seq })
	return left
}

func (call *Call) finish(m *Message, err error) {
	call.resp, call.err = m, err
	close(call.done)
}

// Done is closed when the response of an awaited call came, or its table was closed.
func (call *Call) Done() <-chan struct{} { return call.done }

// Wait waits for the response of an awaited call. A refused request returns the response and a
// *ResponseError. When ctx ends first the call is forgotten (a late response is dropped) and the
// context's error is returned, wrapped.
func (call *Call) Wait(ctx context.Context) (*Message, error) {
	select {
	case <-call.done:
		return call.resp, call.err
	case <-ctx.Done():
		call.p.Forget(call.Seq)
		return nil, fmt.Errorf("%s: no response: %w", call.Command, ctx.Err())
	}
}

// Result returns the outcome of a call whose Done channel is closed.
func (call *Call) Result() (*Message, error) {
	<-call.done
	return call.resp, call.err
}
