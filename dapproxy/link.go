package dapproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/internal/errkind"
)

// Timing of the proxy's own work.
const (
	// gateLimit bounds how long a resuming request waits for the inspection of a stop.
	gateLimit = 5 * time.Second
	// politeLimit bounds the wait for debugpy's answer to the disconnect the proxy sends when the
	// editor went away without one.
	politeLimit = 3 * time.Second
	// orphanLimit is how long a connection whose adapter died waits for the editor's disconnect.
	orphanLimit = 30 * time.Second
)

// link is one editor connection and the debug adapter it is forwarded to. Its goroutines: the
// editor loop (serve: reads the editor, forwards, answers adi/ requests in goroutines of their
// own), one read loop per backend (readBackend: forwards the adapter's messages), and short-lived
// workers (the inspection of a stop, an adi/ request). Teardown ends both sides together.
type link struct {
	srv    *Server
	id     int64
	log    hclog.Logger
	ctx    context.Context // ends with the link
	cancel context.CancelFunc

	editor *side // the editor's connection: read by the editor loop, written through the side
	econn  io.Closer

	// gate is held from a stop until the proxy knows its frame: resuming requests wait.
	gate *gate
	// settled is held from a stop until the session has taken it in: adi/ requests wait.
	settled *gate

	// The Config.Wiretap of what the proxy reads (nil when none).
	tapFromEditor  func([]byte)
	tapFromAdapter func([]byte)

	mu             sync.Mutex
	be             *backend // the current backend; nil when the adapter could not start
	beErr          error    // why there is no backend
	initArgs       json.RawMessage
	kind           string    // "launch" or "attach" once the editor sent one
	rec            *recorder // the recording of a launch (nil: not recorded)
	parent         *link     // a child session: the link whose debugpyAttach announced it
	disconnectSent bool      // the editor asked to disconnect
	keepDebuggee   bool      // … with terminateDebuggee false: the debuggee outlives the session
	leaving        bool      // teardown has begun: the adapter's end is expected
	adapterGone    bool      // the adapter died and the editor was told
	exitedSent     bool
	terminatedSent bool

	workers sync.WaitGroup
	done    chan struct{} // closed by teardown
	once    sync.Once
}

func (l *link) current() *backend {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.be
}

func (l *link) closing() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// spawn runs fn as a worker of the link unless the link is ending (then it reports false). A
// worker is added before teardown begins, so ServeConn's wait for the workers sees every one.
func (l *link) spawn(fn func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.leaving {
		return false
	}
	l.workers.Add(1)
	go func() {
		defer l.workers.Done()
		defer l.recoverPanic("a worker of the connection", nil)
		fn()
	}()
	return true
}

// recoverPanic, deferred at the top of each of the link's goroutines, turns a panic there into
// the end of this connection, not of the process: the panic is logged with its stack, the editor
// reads one line saying what happened in its debug console, and the link is torn down (b, when
// the panic was in b's read loop, is closed first: nobody reads it any more).
func (l *link) recoverPanic(where string, b *backend) {
	v := recover()
	if v == nil {
		return
	}
	l.log.Error("panic; closing the connection", "in", where, "panic", v, "stack", string(debug.Stack()))
	if b != nil {
		b.side.close()
		b.close()
	}
	l.notice(fmt.Sprintf("internal error in %s: %v; the debug session is over (please report this)", where, v))
	go l.teardown("internal error in " + where)
}

// notice tells the editor something about adi in its debug console, as one line beginning with
// "adi: ".
func (l *link) notice(text string) {
	_ = l.editor.send(consoleOutput(errkind.Prefixed(text) + "\n"))
}
