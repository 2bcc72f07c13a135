package dapproxy

import (
	"sync"
	"time"
)

// gate holds the editor's resuming requests (continue, next, …) while the proxy inspects a stop:
// its own requests must reach the debuggee while the thread is still paused. It is armed before
// the stopped event reaches the editor, so no resume can overtake the inspection.
type gate struct {
	mu   sync.Mutex
	n    int
	free chan struct{} // closed while n == 0
}

func newGate() *gate {
	g := &gate{free: make(chan struct{})}
	close(g.free)
	return g
}

// hold arms the gate once more; every hold needs one release.
func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		g.free = make(chan struct{})
	}
	g.n++
}

// release undoes one hold.
func (g *gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n == 0 {
		return
	}
	g.n--
	if g.n == 0 {
		close(g.free)
	}
}

// wait blocks until no hold is left, done is closed, or limit has passed; it reports whether the
// gate opened.
func (g *gate) wait(done <-chan struct{}, limit time.Duration) bool {
	g.mu.Lock()
	free := g.free
	g.mu.Unlock()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-free:
		return true
	case <-done:
	case <-t.C:
	}
	return false
}
