package bridge

import (
	"sync"
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
	w.startOnce.Do(func() { go w.poll(pid) })
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
