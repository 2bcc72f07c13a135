package bridge

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// A daemon keeps its sessions' recordings in memory for hours, and most of that time it waits for
// the agent's next command. Go's collector lets the heap grow to twice what is live before it
// collects (reading a recording leaves garbage of a few times its size on disk, and every answer
// leaves some), and keeps the freed memory mapped: left alone, the daemon's RSS would stay near
// its peak. So the bridge returns the garbage to the OS once it is idle: releaseIdle seconds after
// a recording was read, a command answered or a session closed (its recording is then garbage),
// or at most releaseMaxWait after the first of a busy stretch of commands.
const (
	releaseIdle    = time.Second
	releaseMaxWait = 10 * time.Second
	// releaseSlack is how much the heap must hold beyond what was live after the last release
	// for a release to be worth its full collection.
	releaseSlack = 1 << 20
)

var release struct {
	sync.Mutex
	timer   *time.Timer
	pending time.Time // when the release now waiting was first asked for (zero: none waits)
	live    uint64    // heap bytes live after the last release
}

// releaseSoon asks for the memory freed since the last release to be returned to the OS once the
// daemon is idle (see releaseIdle).
func releaseSoon() {
	release.Lock()
	defer release.Unlock()
	now := time.Now()
	if release.pending.IsZero() {
		release.pending = now
	} else if now.Sub(release.pending) > releaseMaxWait {
		return // busy for a while: the release waiting fires anyway
	}
	if release.timer == nil {
		release.timer = time.AfterFunc(releaseIdle, releaseNow)
	} else {
		release.timer.Reset(releaseIdle)
	}
}

// releaseNow returns the heap's free memory to the OS (after a full collection) when the heap
// holds more than releaseSlack beyond what was live after the last release.
func releaseNow() {
	release.Lock()
	release.pending = time.Time{}
	live := release.live
	release.Unlock()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if held := m.HeapInuse + m.HeapIdle - m.HeapReleased; held < live+releaseSlack {
		return
	}
	debug.FreeOSMemory()
	runtime.ReadMemStats(&m)
	release.Lock()
	release.live = m.HeapAlloc
	release.Unlock()
}
