package dapproxy

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
)

// The debuggee-side helpers (probe/python/adi_probe/editor.py), evaluated in a paused thread.
const (
	stopExpr  = "__import__('adi_probe.editor').editor.stop()"
	flushExpr = "__import__('adi_probe.editor').editor.flush()"
)

// testHookInspect, when set (by tests), is called at the start of each inspection of a stop.
var testHookInspect func(threadID int)

// inspectLimit bounds the proxy's own requests at a stop.
const inspectLimit = 5 * time.Second

// recorder is the recording of one editor launch: it feeds the session (bridge.External) with
// what the DAP stream says (output, stops, the exit) and asks the probe, through injected
// requests, which frame each stop is in.
type recorder struct {
	l   *link
	x   *bridge.External
	log interface {
		Debug(string, ...any)
		Warn(string, ...any)
	}

	// processName is the name debugpy gives the process of the launch the editor sent.
	processName string

	mu     sync.Mutex
	paused map[int]int // thread id → id of its top frame, while the thread is paused
	code   int         // the exit code debugpy reported (-1 before)
	pid    int         // the debuggee's process id (0 before the process event)
	once   sync.Once
}

func newRecorder(l *link, x *bridge.External, processName string) *recorder {
	return &recorder{l: l, x: x, log: l.log, processName: processName, paused: map[int]int{}, code: -1}
}

// inspect learns which invocation a stopped thread is in, then lets the editor's resuming
// requests through (the gate was armed by the caller) and updates the session: T as the probe
// has it now, and the stop.
func (r *recorder) inspect(threadID int) {
	defer r.l.settled.release()
	var once sync.Once
	release := func() { once.Do(r.l.gate.release) }
	defer release()
	if testHookInspect != nil {
		testHookInspect(threadID)
	}
	b := r.l.current()
	if b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(r.l.ctx, inspectLimit)
	defer cancel()
	st, err := b.call(ctx, "stackTrace", map[string]any{"threadId": threadID, "startFrame": 0, "levels": 1})
	if err != nil {
		r.log.Debug("no stack for the stopped thread", "thread", threadID, "error", err)
		return
	}
	var stack struct {
		StackFrames []struct {
			ID int `json:"id"`
		} `json:"stackFrames"`
	}
	if err := st.Body(&stack); err != nil || len(stack.StackFrames) == 0 {
		return
	}
	frameID := stack.StackFrames[0].ID
	idx, err := r.evalInt(ctx, b, frameID, stopExpr)
	if err != nil {
		r.log.Debug("the probe did not say where the thread stopped", "error", err)
		return
	}
	r.mu.Lock()
	r.paused[threadID] = frameID
	r.mu.Unlock()
	release()
	if err := r.x.Refresh(); err != nil {
		r.log.Warn("cannot refresh the recording", "error", err)
	}
	if idx >= 0 && !r.x.Stopped(idx) {
		r.log.Debug("the stop's frame is not in the recording", "index", idx)
	}
}

// evalInt evaluates expr in a frame and reads its value as an integer.
func (r *recorder) evalInt(ctx context.Context, b *backend, frameID int, expr string) (int, error) {
	m, err := b.call(ctx, "evaluate", map[string]any{"expression": expr, "frameId": frameID, "context": "repl"})
	if err != nil {
		return 0, err
	}
	var ev struct {
		Result string `json:"result"`
	}
	if err := m.Body(&ev); err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(ev.Result))
}

// resumed forgets the paused frames (their ids are no longer valid).
func (r *recorder) resumed() {
	r.mu.Lock()
	clear(r.paused)
	r.mu.Unlock()
}

// flushForQuery brings T up to date before an adi/ request is answered: while a thread is
// paused, the probe writes what it has queued; then the recording is re-read.
func (r *recorder) flushForQuery(ctx context.Context) {
	r.mu.Lock()
	frameID, paused := 0, false
	for _, f := range r.paused {
		frameID, paused = f, true
		break
	}
	r.mu.Unlock()
	if b := r.l.current(); paused && b != nil && b.ad != nil {
		ctx, cancel := context.WithTimeout(ctx, inspectLimit)
		if _, err := r.evalInt(ctx, b, frameID, flushExpr); err != nil {
			r.log.Debug("the probe did not flush", "error", err)
		}
		cancel()
	} else if !paused {
		// running: its control server writes what it recorded so far (its watches' FLTs)
		ctx, cancel := context.WithTimeout(ctx, inspectLimit)
		r.x.FlushRunning(ctx)
		cancel()
	}
	if err := r.x.Refresh(); err != nil {
		r.log.Warn("cannot refresh the recording", "error", err)
	}
}

// output takes the debuggee's output from an output event.
func (r *recorder) output(m *dap.Message) {
	var b struct {
		Category string `json:"category"`
		Output   string `json:"output"`
	}
	if m.Body(&b) == nil && (b.Category == "stdout" || b.Category == "stderr") {
		r.x.Output(b.Category, []byte(b.Output))
	}
}

// process remembers the debuggee's process id, and returns the event with the name debugpy
// would have given the process (not the probe's script).
func (r *recorder) process(m *dap.Message) []byte {
	var b struct {
		SystemProcessID int    `json:"systemProcessId"`
		Name            string `json:"name"`
	}
	if m.Body(&b) != nil {
		return m.Raw
	}
	r.mu.Lock()
	r.pid = b.SystemProcessID
	r.mu.Unlock()
	if b.Name != r.x.Script || r.processName == "" {
		return m.Raw
	}
	name, _ := json.Marshal(r.processName)
	if raw, err := setPath(m.Raw, []string{"body", "name"}, name); err == nil {
		return raw
	}
	return m.Raw
}

// probeModule reports whether a module event names a module of the probe: those stay as
// invisible to the editor as the probe's frames.
func (r *recorder) probeModule(m *dap.Message) bool {
	var b struct {
		Module struct {
			Path string `json:"path"`
		} `json:"module"`
	}
	return m.Body(&b) == nil && b.Module.Path != "" && under(b.Module.Path, r.x.ProbeDir)
}

func (r *recorder) exitCode() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.code
}

// exited remembers the exit code debugpy reported.
func (r *recorder) exited(code int) {
	r.mu.Lock()
	r.code = code
	r.mu.Unlock()
}

// finish ends the recording once: the session takes the final recording with the exit code
// debugpy reported (or, without one, the probe's), and the FLTs of the frames the editor stopped
// in are recorded in the background with one re-run.
func (r *recorder) finish() {
	r.once.Do(func() {
		if err := r.x.Finish(r.exitCode()); err != nil {
			r.log.Warn("cannot finish the recording", "error", err)
		}
		if len(r.x.Stops()) == 0 {
			return
		}
		r.l.srv.background(func(ctx context.Context) {
			if err := r.x.RecordStops(ctx); err != nil {
				r.log.Warn("cannot record the FLTs of the editor's stops", "error", err)
			}
		})
	})
}

// recordingInfo is the answer of adi/session.
type recordingInfo struct {
	Session bridge.Info `json:"session"`
	Dir     string      `json:"dir"`
	Run     string      `json:"run"`
	Pid     int         `json:"pid,omitempty"`
	Stops   []string    `json:"stops"`
	Live    bool        `json:"live"`
}

func (r *recorder) info() recordingInfo {
	s := r.x.Session()
	t := s.Trace()
	stops := []string{}
	for _, j := range r.x.Stops() {
		if f := t.Frame(j); f != nil {
			stops = append(stops, f.FID().String())
		}
	}
	live := true
	select {
	case <-r.x.Done():
		live = false
	default:
	}
	r.mu.Lock()
	pid := r.pid
	r.mu.Unlock()
	return recordingInfo{Session: s.Info(), Dir: s.Dir, Run: r.x.RunDir, Pid: pid, Stops: stops, Live: live}
}

// responded sees the adapter's answer to an editor request before it is forwarded.
func (l *link) responded(p *dap.Call, m *dap.Message) {
	if p.Command == "launch" && !m.Success {
		l.finishAsync(l.ownRecording()) // no run will come
	}
}

// finishAsync ends the recording r (if any) without holding up the adapter's stream; adi/
// requests wait for it. When the link is ending, teardown finishes it instead.
func (l *link) finishAsync(r *recorder) {
	if r == nil {
		return
	}
	l.settled.hold()
	if !l.spawn(func() {
		defer l.settled.release()
		r.finish()
	}) {
		l.settled.release()
	}
}

// ownRecording returns the recording of this connection's own launch.
func (l *link) ownRecording() *recorder {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.rec
}
