package server

import (
	"context"
	"sync"
)

// inflight counts work in progress (calls running now) and lets a caller wait for none to be
// left, or for the next change, instead of polling the count.
type inflight struct {
	mu      sync.Mutex
	n       int64
	changed chan struct{} // closed and replaced at every change of n
}

// Add changes the count by d.
func (w *inflight) Add(d int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += d
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
}

// Load returns the count.
func (w *inflight) Load() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// watch returns the count and a channel closed at its next change.
func (w *inflight) watch() (int64, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.changed == nil {
		w.changed = make(chan struct{})
	}
	return w.n, w.changed
}

// wait returns when the count is zero, or with ctx's error when ctx ends first.
func (w *inflight) wait(ctx context.Context) error {
	for {
		n, changed := w.watch()
		if n == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
