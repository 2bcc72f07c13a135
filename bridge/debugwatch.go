package bridge

import (
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// exitGrace is how long a debug run whose debuggee has exited still waits for debugpy to say so
// (its exited event, and the output events before it).
const exitGrace = time.Second

// targetWatch polls the debuggee's process (its pid comes with debugpy's process event) and
// closes gone when it has exited. debugpy reports the exit only once the debuggee's output pipes
// close, and children the target left behind can hold them open until the run's timeout; the
// run then ends as soon as the target has. Its one goroutine ends with the run (stop).
type targetWatch struct {
	pid       atomic.Int64 // the debuggee's, once known
	gone      chan struct{}
	quit      chan struct{}
	startOnce sync.Once
	stopOnce  sync.Once
}

func newTargetWatch() targetWatch {
	return targetWatch{gone: make(chan struct{}), quit: make(chan struct{})}
}

// watch starts polling pid (only the first call counts).
func (w *targetWatch) watch(pid int) {
	w.startOnce.Do(func() {
		w.pid.Store(int64(pid))
		go w.poll(pid)
	})
}

// askStop asks the debuggee to stop (SIGTERM every stopRepeat, which the probe handles by writing
// what it recorded and exiting) and waits up to stopGrace for its process to exit (debugpy may say it
// ended before the probe is done), then up to exitGrace for ended (debugpy's word). It does
// nothing when the debuggee's pid is not known.
func (w *targetWatch) askStop(ended <-chan struct{}) {
	pid := int(w.pid.Load())
	if pid <= 0 || syscall.Kill(pid, 0) != nil { // not known, or gone already
		return
	}
	stopAsking := askToStop(pid)
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case <-w.gone:
		stopAsking()
		w.grace(ended)
	case <-grace.C:
		stopAsking()
	}
}

func (w *targetWatch) poll(pid int) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-w.quit:
			return
		case <-tick.C:
		}
		if dap.ProcessEnded(pid) {
			close(w.gone)
			return
		}
	}
}

// grace waits up to exitGrace for ended (debugpy's own word that the debuggee exited).
func (w *targetWatch) grace(ended <-chan struct{}) {
	select {
	case <-ended:
	case <-time.After(exitGrace):
	}
}

// stop ends the polling goroutine.
func (w *targetWatch) stop() { w.stopOnce.Do(func() { close(w.quit) }) }
