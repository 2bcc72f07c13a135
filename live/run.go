package live

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
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

// run is one execution of the target under debugpy: the adapter (and with it the launcher and the
// debuggee), the launch request that waits for configurationDone, and the goroutine that consumes
// the session's DAP events.
type run struct {
	n  int // 1 for the first run of a session, then one more per restart
	ad *dap.Adapter
	c  *dap.Client
	// launched receives debugpy's answer to launch, which comes after configurationDone.
	launched chan error
	dump     string // the launcher's faulthandler file
	start    time.Time

	stops chan stop
	ended chan struct{} // closed when the debuggee exited, the session terminated, or the connection broke
	// finished is closed when the launcher reported the program's exit status: the program is
	// done, only the interpreter's teardown under the debugger remains (ended follows).
	finished chan struct{}
	token    string
	scanners [2]*markerScanner // stdout, stderr

	syncMu  sync.Mutex
	syncN   int
	waiters map[string]chan struct{} // sync marker value → closed when it came back

	log hclog.Logger

	mu       sync.Mutex
	failed   error // why consume gave up (a panic), ending the run
	exitCode int
	exited   bool // the exit code is known (exited event, or the launcher's report)
	reported bool // the exit code is the launcher's report (the program's own status)
	pid      int
}

// startRun starts the adapter, launches the program through the launcher, and configures it
// (exception filters, breakpoints) without sending configurationDone: the program waits in
// debugpy, not a line of it run. life bounds the run's processes: when it ends, they end.
func startRun(ctx, life context.Context, n int, prog *bridge.Program, dir string, out *outputs, log hclog.Logger,
	configure func(context.Context, *dap.Client) error) (*run, error) {
	if err := bridge.NeedDebugpy(ctx, prog, "live mode"); err != nil {
		return nil, err
	}
	launcher, err := installLauncher()
	if err != nil {
		return nil, err
	}
	probeDir, err := probe.Install()
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	token := dap.NewRunTag()
	r := &run{n: n, dump: filepath.Join(dir, fmt.Sprintf("stack-%d.txt", n)), start: time.Now(),
		stops: make(chan stop, 16), launched: make(chan error, 1), ended: make(chan struct{}),
		finished: make(chan struct{}), token: token, exitCode: -1, waiters: map[string]chan struct{}{}, log: log,
		scanners: [2]*markerScanner{newMarkerScanner(token), newMarkerScanner(token)}}
	args, err := launchArgs(prog, launcher, probeDir, r.dump, token)
	if err != nil {
		return nil, err
	}
	r.ad, err = dap.StartAdapter(life, dap.AdapterOptions{Python: prog.Debugpy, Env: prog.Env, Dir: prog.Dir, Log: log})
	if err != nil {
		return nil, fmt.Errorf("start debugpy for live mode: %w", err)
	}
	r.c = r.ad.Client
	go r.consume(r.c.Subscribe(), out)
	ctx, cancel := context.WithTimeout(ctx, launchTimeout)
	defer cancel()
	if err := r.launchUntilConfigured(ctx, life, args, configure); err != nil {
		r.close()
		return nil, fmt.Errorf("launch the program under debugpy: %w", err)
	}
	return r, nil
}

// launchUntilConfigured sends initialize and launch, waits for initialized, and configures.
func (r *run) launchUntilConfigured(ctx, life context.Context, args map[string]any, configure func(context.Context, *dap.Client) error) error {
	if _, err := r.c.Initialize(ctx); err != nil {
		return err
	}
	sub := r.c.Subscribe("initialized")
	defer sub.Close()
	call, err := r.c.Start("launch", args)
	if err != nil {
		return err
	}
	// debugpy answers launch only after configurationDone, which continue sends: a goroutine
	// waits for the answer as long as the run lives.
	go func() {
		_, err := r.c.Wait(life, call)
		r.launched <- err
	}()
	initialized := make(chan error, 1)
	go func() {
		_, err := sub.WaitFor(ctx, "initialized")
		initialized <- err
	}()
	select {
	case err := <-initialized:
		if err != nil {
			return err
		}
	case err := <-r.launched:
		// A refused launch is answered before any initialized event.
		if err != nil {
			return err
		}
		r.launched <- nil
		if err := <-initialized; err != nil {
			return err
		}
	}
	if err := r.c.SetExceptionBreakpoints(ctx, []string{"uncaught", "userUnhandled"}); err != nil {
		return err
	}
	return configure(ctx, r.c)
}

// configurationDone lets the program start and waits for debugpy's answer to launch.
func (r *run) configurationDone(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if err := r.c.ConfigurationDone(ctx); err != nil {
		return err
	}
	select {
	case err := <-r.launched:
		return err
	case <-ctx.Done():
		return fmt.Errorf("debugpy did not answer launch after configurationDone: %w", ctx.Err())
	}
}

// consume files the run's events: output into out, stops into r.stops, the exit code; ended is
// closed when the debuggee exited, the session terminated, or the connection broke.
//
// A panic here (a bug in reading the debuggee's output) ends this run, not the process: it is
// logged with its stack, the run's processes are ended, and the session says why.
func (r *run) consume(events *dap.Subscription, out *outputs) {
	defer close(r.ended)
	defer events.Close()
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("reading debugpy's events panicked; ending the run", "panic", v, "stack", string(debug.Stack()))
			r.mu.Lock()
			r.failed = fmt.Errorf("adi: internal error while reading debugpy's events: %v; adi ended the program (please report this)", v)
			r.mu.Unlock()
			if r.ad != nil {
				r.ad.Close()
			}
		}
	}()
	for {
		m, err := events.Next(context.Background())
		if err != nil {
			return
		}
		if testHookEvent != nil {
			testHookEvent(m)
		}
		switch m.Event {
		case "output":
			var b godap.OutputEventBody
			if m.Body(&b) != nil {
				continue
			}
			if i := streamIndex(b.Category); i >= 0 {
				var found []marker
				b.Output, found = r.scanners[i].scan(b.Output)
				for _, mk := range found {
					r.marked(mk)
				}
			}
			out.write(b.Category, b.Output)
		case "process":
			var b godap.ProcessEventBody
			if m.Body(&b) == nil {
				r.mu.Lock()
				r.pid = b.SystemProcessId
				r.mu.Unlock()
			}
		case "stopped":
			var b godap.StoppedEventBody
			if m.Body(&b) == nil {
				select {
				case r.stops <- stop{Reason: b.Reason, Text: b.Text, Description: b.Description, ThreadID: b.ThreadId}:
				default: // more stops than anyone waits for: only a broken debugger sends them
				}
			}
		case "exited":
			var b godap.ExitedEventBody
			if m.Body(&b) == nil {
				r.mu.Lock()
				if !r.exited { // the launcher's report, when it came, is the program's own status
					r.exitCode, r.exited = b.ExitCode, true
				}
				r.mu.Unlock()
			}
			return
		case "terminated":
			return
		}
	}
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
		r.mu.Lock()
		first := !r.exited
		if first {
			r.exitCode, r.exited, r.reported = status, true, true
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

// exit returns the exit code, and whether the exited event said it.
// testHookEvent, when set (by tests), sees every event consume reads, before it is handled.
var testHookEvent func(m *dap.Message)

// failure is why consume ended the run (nil unless it panicked).
func (r *run) failure() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *run) exit() (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.exitCode, r.exited
}

// fromLauncher reports whether the exit code is the launcher's report (the program's own status)
// rather than debugpy's exited event.
func (r *run) fromLauncher() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reported
}

// debuggeePid returns the debuggee's process id (0 before debugpy announced it).
func (r *run) debuggeePid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pid
}

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
	r.ad.Close()
	_ = os.Remove(r.dump)
}
