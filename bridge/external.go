package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// External is a session whose first run (run 0000, the recording T) is launched by someone else:
// an editor debugging the program through `adi dap`. The bridge prepares the run (the session
// directory, the probe config); the launcher starts the probe with it; the session is in the
// Manager from the start, so every face sees it while it runs. While the run is live, Refresh
// re-reads what the probe has written so far, and Stopped records where the editor stopped; when
// the run ends, Finish takes its final recording and RecordStops records the FLTs of every frame
// the editor stopped in with one plain re-run.
//
// External's methods are safe for concurrent use; they take the session's lock, so they wait for
// a command that is running.
type External struct {
	// ConfigPath is the probe config of the run (the probe's one argument).
	ConfigPath string
	// Script is the probe's entry script: the program the launcher must run.
	Script string
	// ProbeDir is the probe's directory: the launcher hides its frames from the user.
	ProbeDir string
	// RunDir is the run's output directory (runs/0000).
	RunDir string

	s      *Session
	stdout *capture
	stderr *capture
	start  time.Time

	mu       sync.Mutex // serialises Refresh, Stopped and Finish
	grow     growing    // reads calls.bin as it grows: each refresh decodes only what is new
	stops    []int      // T indexes of the frames the editor stopped in, in order of first stop
	finished bool
	done     chan struct{}

	control *probe.Control // the run's control server (editorwatch.go)
	ctlDir  string         // the directory of its socket
}

// ExternalPurpose is the purpose reported in the events of an editor's run.
const ExternalPurpose = "editor run"

// StartExternal registers a new session whose first run someone else launches. id may be "" for
// a fresh one. It checks the target like Create does, creates the session directory and run 0000
// with its probe config, and returns what the launcher needs. T is empty until Refresh or Finish.
func (m *Manager) StartExternal(ctx context.Context, id string, opts Options) (*External, error) {
	var x *External
	_, err := m.add(id, func(id, dir string) (*Session, error) {
		var err error
		x, err = newExternal(ctx, opts, SessionConfig{ID: id, Dir: dir, Log: m.log.Named(id), Events: m.emit})
		if err != nil {
			return nil, err
		}
		return x.s, nil
	})
	if err != nil {
		return nil, err
	}
	x.s.emit(Event{Session: x.s.ID, Kind: "run_started", Run: filepath.Base(x.RunDir), Purpose: ExternalPurpose})
	return x, nil
}

func newExternal(ctx context.Context, opts Options, cfg SessionConfig) (*External, error) {
	s, err := newSessionDir(ctx, opts, cfg)
	if err != nil {
		return nil, err
	}
	prog := s.prog
	ctlDir, ctlSocket, err := newControl()
	if err != nil {
		return nil, err
	}
	probeDir, runDir, cfgPath, err := s.rn.prepare(RunRequest{Control: ctlSocket})
	if err != nil {
		_ = os.RemoveAll(ctlDir)
		return nil, err
	}
	t := &adi.Trace{Root: prog.Root, Partial: true, Live: true}
	t.Index()
	s.trace = t
	s.base = &Run{Dir: runDir, Debug: true, ExitCode: -1, Rec: &probe.Recording{Trace: t, FLTs: map[int]*adi.FLT{}}}
	s.state = adi.NewState(t)
	s.saveState()
	s.refreshInfo()
	x := &External{
		ConfigPath: cfgPath, Script: probe.Script(probeDir), ProbeDir: probeDir, RunDir: runDir,
		s: s, start: time.Now(), done: make(chan struct{}),
		control: probe.NewControl(ctlSocket), ctlDir: ctlDir,
	}
	sink := func(stream string, b []byte) {
		s.emit(Event{Session: s.ID, Kind: "output", Stream: stream, Text: string(b)})
	}
	x.stdout = &capture{category: "stdout", sink: sink}
	x.stderr = &capture{category: "stderr", sink: sink}
	return x, nil
}

// Session returns the session the run belongs to.
func (x *External) Session() *Session { return x.s }

// Done is closed when Finish has taken the run's final recording.
func (x *External) Done() <-chan struct{} { return x.done }

// Output records the target's output ("stdout" or "stderr"), as the launcher reports it; the
// session's listeners receive it as output events.
func (x *External) Output(stream string, text []byte) {
	switch stream {
	case "stdout":
		_, _ = x.stdout.Write(text)
	case "stderr":
		_, _ = x.stderr.Write(text)
	}
}

// Refresh reads what the probe has written so far into T, and the FLTs the run recorded (its
// watches': editorwatch.go). The probe writes in batches: ask it
// to flush first (adi_probe.editor.flush, while the debuggee is paused) to see every call. Only
// what was written since the last refresh is decoded (a probe.Tail), so that refreshing at every
// stop of a long debugging session is not quadratic. Frames
// keep their indexes as T grows; condition results are dropped when it grew, so that the next
// command that needs them evaluates them on the longer T. After Finish it does nothing.
func (x *External) Refresh() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.finished {
		return nil
	}
	rec, err := x.grow.snapshot(x.RunDir)
	if err != nil {
		return fmt.Errorf("cannot read the editor run's recording so far: %w", err)
	}
	releaseSoon() // the garbage of decoding the recording

	// the run is live: its tail is still to come, and an unfinished frame is one still running
	rec.Trace.Partial, rec.Trace.Live = true, true
	x.adoptRecording(rec, x.s.Base().ExitCode, nil)
	return nil
}

// Decoded counts the bytes of the run's calls.bin its refreshes have decoded: each byte once, so
// a refresh after the run wrote nothing new decodes nothing. 0 after Finish.
func (x *External) Decoded() int64 {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.grow.decoded()
}

// adoptRecording makes rec the session's T (and base, when run is non-nil); the caller holds x.mu.
func (x *External) adoptRecording(rec *probe.Recording, exitCode int, run *Run) {
	s := x.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if run == nil {
		if rec.Trace.Len() < s.trace.Len() {
			return // a reader raced a truncated read; keep the longer T
		}
		run = &Run{Dir: x.RunDir, Debug: true, ExitCode: exitCode}
	}
	// with the FLTs the run recorded itself (its editor's watches; so far for invocations still
	// running): they answer without a re-run, and later reads replace them with what follows
	s.takeRecording(rec, run, true)
	s.saveState()
}

// Stopped records that the editor stopped in frame j of T (an index the probe reported; call
// Refresh first so that T has it) and makes it the frame under inspection, so that flt and
// call-tree without a frame answer about where the editor is. It reports whether T has frame j.
func (x *External) Stopped(j int) bool {
	x.mu.Lock()
	defer x.mu.Unlock()
	s := x.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.trace.Frame(j) == nil {
		return false
	}
	found := false
	for _, k := range x.stops {
		found = found || k == j
	}
	if !found {
		x.stops = append(x.stops, j)
	}
	s.state.Cur = j
	s.saveState()
	s.refreshInfo()
	return true
}

// Stops returns the T indexes of the frames the editor stopped in, in order of first stop.
func (x *External) Stops() []int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]int(nil), x.stops...)
}

// Finish ends the run: it keeps the output and exit code (-1 when unknown: the probe's result
// then gives it) and takes the probe's final recording as T. It is safe to call more than once;
// only the first call counts.
func (x *External) Finish(exitCode int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.finished {
		return nil
	}
	x.finished = true
	defer close(x.done)
	x.closeControl()
	run := &Run{Dir: x.RunDir, Debug: true, ExitCode: exitCode, Elapsed: time.Since(x.start)}
	run.Stdout, run.Stderr = x.stdout.bytes(), x.stderr.bytes()
	rec, err := x.grow.finish(x.RunDir) // the rest of what the run wrote, after what the refreshes decoded
	if err != nil {
		return fmt.Errorf("cannot read the editor run's recording: %w", err)
	}
	releaseSoon() // the garbage of decoding the recording
	if run.ExitCode == -1 && rec.Result != nil {
		run.ExitCode = rec.Result.Exit.Code
	}
	if err := saveOutput(run); err != nil {
		return err
	}
	flts := len(rec.FLTs) // (the session takes them, packed)
	x.adoptRecording(rec, run.ExitCode, run)
	x.s.emit(Event{Session: x.s.ID, Kind: "run_finished", Run: filepath.Base(x.RunDir), Purpose: ExternalPurpose,
		Frames: rec.Trace.Len(), FLTs: flts})
	return nil
}

// RecordStops records, with one plain re-run of the program, the FLT of every frame the editor
// stopped in that is not cached yet. The re-run is checked against T like every re-run of a
// session. It does nothing when every stop has its FLT.
func (x *External) RecordStops(ctx context.Context) error {
	return x.s.recordFLTs(ctx, x.Stops(), "record FLTs of the editor's stops")
}
