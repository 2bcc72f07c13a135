package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/probe"
)

// Request timeouts. debugpy answers most requests in about a millisecond; these only bound a
// debugger that stopped answering, so no command can hang on it.
const (
	requestTimeout = 10 * time.Second
	// launchTimeout bounds starting the adapter and the debuggee up to debugpy's initialized.
	launchTimeout = 60 * time.Second
)

// stop is one stopped event, with the thread's stack read right after it.
type stop struct {
	Reason      string // breakpoint, exception, pause, ...
	Text        string // the exception's type for reason exception
	Description string // the exception's message
	ThreadID    int
}

// run is one execution of the target under debugpy: a dap.Run (the adapter, and with it the
// launcher and the debuggee; the launch request that waits for configurationDone; the event pump
// that files the output into the session's buffers and scans it for the launcher's markers).
type run struct {
	n    int // 1 for the first run of a session, then one more per restart
	dr   *dap.Run
	pump *dap.Pump
	c    *dap.Client
	dump string // the launcher's faulthandler file
	// attached: adi attached to a program it did not start (attach.go): no launcher, so no exit
	// report, no signals and no sync markers; helpers are the directories interact imports from.
	attached bool
	helpers  []string

	ended <-chan struct{} // closed when the debuggee exited, the session terminated, or the connection broke
	// finished is closed when the launcher reported the program's exit status: the program is
	// done, only the interpreter's teardown under the debugger remains (ended follows).
	finished chan struct{}
	token    string
	scanners [2]*markerScanner // stdout, stderr

	syncMu  sync.Mutex
	syncN   int
	waiters map[string]chan struct{} // sync marker value → closed when it came back

	// probe talks to the run's watch recorder (watch.go).
	probe *probe.Control

	log hclog.Logger

	mu       sync.Mutex
	failed   error // why the event pump gave up (a panic), ending the run
	exitCode int   // the launcher's report of the program's exit status
	reported bool  // the launcher reported it
}

// startRun starts the adapter, launches the program through the launcher, and configures it
// (exception filters, breakpoints) without sending configurationDone: the program waits in
// debugpy, not a line of it run. life bounds the run's processes: when it ends, they end.
func startRun(ctx, life context.Context, n int, prog *bridge.Program, dir string, w watchLaunch, out *outputs, log hclog.Logger,
	configure func(context.Context, *dap.Client) error) (*run, error) {
	if err := bridge.NeedDebugpy(ctx, prog, "live mode"); err != nil {
		return nil, err
	}
	launcher, probeDir, err := installHelpers()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	token := dap.NewRunTag()
	r := &run{n: n, dump: filepath.Join(dir, fmt.Sprintf("stack-%d.txt", n)),
		finished: make(chan struct{}), token: token, exitCode: -1, waiters: map[string]chan struct{}{}, log: log,
		scanners: [2]*markerScanner{newMarkerScanner(token), newMarkerScanner(token)},
		probe:    probe.NewControl(w.Socket)}
	args, err := launchArgs(prog, launcher, probeDir, r.dump, token, w)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, launchTimeout)
	defer cancel()
	r.dr, err = dap.StartRun(ctx, life, dap.RunOptions{
		Adapter:    dap.AdapterOptions{Python: prog.DebugPython(ctx), Env: prog.Env, Dir: prog.Dir, Log: log},
		Launch:     args,
		Exceptions: []string{"uncaught", "userUnhandled"},
		Configure:  configure,
		Hooks:      r.hooks(out),
	})
	if err != nil {
		_ = os.Remove(r.dump)
		return nil, fmt.Errorf("launch the program under debugpy: %w", err)
	}
	r.pump, r.c, r.ended = r.dr.Pump, r.dr.Client, r.dr.Ended()
	return r, nil
}

// configurationDone lets the program start and waits for debugpy's answer to launch.
func (r *run) configurationDone(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	return r.dr.ConfigurationDone(ctx)
}

// hooks are what the run's event pump calls: output into out (with the launcher's markers taken
// out and acted on). A panic there (a bug in reading the debuggee's output) ends this run, not
// the process: the pump logs it with its stack, the run's processes are ended, and the session
// says why.
func (r *run) hooks(out *outputs) dap.PumpHooks {
	return dap.PumpHooks{
		Event: func(m *dap.Message) {
			if testHookEvent != nil {
				testHookEvent(m)
			}
		},
		Output: func(category, text string) {
			if i := streamIndex(category); i >= 0 {
				var found []marker
				text, found = r.scanners[i].scan(text)
				for _, mk := range found {
					r.marked(mk)
				}
			}
			out.write(category, text)
		},
		Panicked: func(v any) {
			r.mu.Lock()
			r.failed = fmt.Errorf("adi: internal error while reading debugpy's events: %v; adi ended the program (please report this)", v)
			r.mu.Unlock()
			switch {
			case r.dr != nil && r.attached:
				r.dr.Close()
			case r.dr != nil:
				_ = r.dr.Adapter.Close()
			}
		},
		Log: r.log,
	}
}

// stops delivers the run's stopped events, none dropped.
func (r *run) stops() <-chan godap.StoppedEventBody { return r.pump.Stops() }

// stopOf is the stop a stopped event says.
func stopOf(b godap.StoppedEventBody) stop {
	return stop{Reason: b.Reason, Text: b.Text, Description: b.Description, ThreadID: b.ThreadId}
}

// streamIndex numbers the program's output streams: 0 stdout, 1 stderr, -1 another category.
func streamIndex(category string) int {
	switch category {
	case "stdout":
		return 0
	case "stderr":
		return 1
	}
	return -1
}

// marked acts on a marker found in the output: the launcher's exit report, or a sync coming back.
func (r *run) marked(mk marker) {
	switch mk.kind {
	case "exit":
		status, err := strconv.Atoi(mk.value)
		if err != nil {
			return
		}
		_, byEvent := r.pump.Exit() // the launcher's report, when it came first, is the program's own status
		r.mu.Lock()
		first := !r.reported && !byEvent
		if first {
			r.exitCode, r.reported = status, true
		}
		r.mu.Unlock()
		if first {
			close(r.finished)
		}
	case "sync":
		r.syncMu.Lock()
		if ch, ok := r.waiters[mk.value]; ok {
			close(ch)
			delete(r.waiters, mk.value)
		}
		r.syncMu.Unlock()
	}
}

// testHookEvent, when set (by tests), sees every event the event pump reads, before it is handled.
var testHookEvent func(m *dap.Message)

// failure is why consume ended the run (nil unless it panicked).
func (r *run) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// exit returns the exit code (the launcher's report, else debugpy's exited event), and whether
// one is known.
func (r *run) exit() (int, bool) {
	r.mu.Lock()
	code, reported := r.exitCode, r.reported
	r.mu.Unlock()
	if reported {
		return code, true
	}
	return r.pump.Exit()
}

// fromLauncher reports whether the exit code is the launcher's report (the program's own status)
// rather than debugpy's exited event.
func (r *run) fromLauncher() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reported
}

// debuggeePid returns the debuggee's process id (0 before debugpy announced it).
func (r *run) debuggeePid() int { return r.pump.Pid() }

// isEnded reports whether the run has ended, or the program finished (see finished).
func (r *run) isEnded() bool {
	select {
	case <-r.ended:
		return true
	case <-r.finished:
		return true
	default:
		return false
	}
}

// teardownLimit bounds how long a finished program may take to end under the debugger before adi
// ends it.
const teardownLimit = 10 * time.Second

// closeWhenEnded lets a finished program end by itself (the interpreter's teardown flushes and
// closes its files) and then ends every process of the run; after teardownLimit it ends them
// anyway. It runs one goroutine until then.
func (r *run) closeWhenEnded() {
	select {
	case <-r.ended:
		r.close()
		return
	default:
	}
	go func() {
		t := time.NewTimer(teardownLimit)
		defer t.Stop()
		select {
		case <-r.ended:
		case <-t.C:
		}
		r.close()
	}()
}

// close ends every process of the run and removes its faulthandler file.
func (r *run) close() {
	r.probe.Close()
	r.dr.Close()
	_ = os.Remove(r.dump)
}
