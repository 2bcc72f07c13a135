// Package reaper owns the loop that closes idle sessions. bridge.Manager (the one registry of
// recorded and live sessions) runs it in a goroutine of its own, which ends when its done
// channel closes.
package reaper

import (
	"sync"
	"time"
)

// Idler is a session that can say how long it has been unused and whether a command is running.
type Idler interface {
	Idle() (unused time.Duration, busy bool)
}

// Run checks sessions (guarded by mu) a few times per limit and calls closeIdle, without mu
// held, for each one that is not busy and has been unused for longer than limit. It returns when
// done is closed.
func Run[S Idler](done <-chan struct{}, limit time.Duration, mu sync.Locker, sessions map[string]S, closeIdle func(id string)) {
	tick := time.NewTicker(min(max(limit/4, 10*time.Millisecond), time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		mu.Lock()
		var idle []string
		for id, s := range sessions {
			if d, busy := s.Idle(); !busy && d > limit {
				idle = append(idle, id)
			}
		}
		mu.Unlock()
		for _, id := range idle {
			closeIdle(id)
		}
	}
}
