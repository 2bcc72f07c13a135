package daptest

import (
	"sync"
	"testing"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// DefaultLimit is how long an expectation waits unless Limit says otherwise.
const DefaultLimit = 30 * time.Second

// inbox keeps every message a peer sent, in order, and lets expectations take them. Each
// message is taken at most once.
type inbox struct {
	mu      sync.Mutex
	msgs    []*dap.Message
	taken   []bool
	err     error         // why reading ended (nil while it goes on)
	changed chan struct{} // closed and replaced when a message comes or reading ends
	ended   chan struct{} // closed when reading ended
}

func newInbox() *inbox {
	return &inbox{changed: make(chan struct{}), ended: make(chan struct{})}
}

// add files m.
func (b *inbox) add(m *dap.Message) {
	b.mu.Lock()
	b.msgs = append(b.msgs, m)
	b.taken = append(b.taken, false)
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// end records why reading ended.
func (b *inbox) end(err error) {
	b.mu.Lock()
	b.err = err
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
	close(b.ended)
}

// expect returns the first message not taken before that matches pred, waiting up to limit.
func (b *inbox) expect(t testing.TB, limit time.Duration, what string, pred func(*dap.Message) bool) *dap.Message {
	t.Helper()
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		b.mu.Lock()
		for i, m := range b.msgs {
			if !b.taken[i] && pred(m) {
				b.taken[i] = true
				b.mu.Unlock()
				return m
			}
		}
		err, changed := b.err, b.changed
		b.mu.Unlock()
		if err != nil {
			t.Fatalf("waiting for %s: the connection ended: %v", what, err)
		}
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("waiting for %s: nothing within %v", what, limit)
		}
	}
}

// all returns every message filed so far.
func (b *inbox) all() []*dap.Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*dap.Message(nil), b.msgs...)
}

// waitEnded waits until reading ended and returns why (io.EOF: the peer closed).
func (b *inbox) waitEnded(limit time.Duration) (bool, error) {
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-b.ended:
		b.mu.Lock()
		defer b.mu.Unlock()
		return true, b.err
	case <-t.C:
		return false, nil
	}
}
