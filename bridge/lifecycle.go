package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/target"
	"github.com/hashicorp/go-hclog"
)

// NewSession checks the target, then records it once (T). A target that fails still gives a
// session: its recording and output are what an agent needs to see.
func NewSession(ctx context.Context, opts Options, cfg SessionConfig) (*Session, error) {
	s, err := newSessionDir(ctx, opts, cfg)
	if err != nil {
		return nil, err
	}
	prog := s.prog
	run, err := s.record(ctx, "record T", RunRequest{TraceAll: opts.eagerSteps(), Trace: focusSelectors(prog, s.target, opts.Focus),
		TraceTests: s.target.RunsTests(), Bare: true})
	if err != nil {
		return nil, err
	}
	s.flts.take(run.Rec) // eager and focus FLTs: the recording itself, nothing to replay
	s.base = run
	s.trace = run.Rec.Trace
	s.trace.Root = prog.Root
	s.state = adi.NewState(s.trace)
	s.saveState()
	s.refreshInfo()
	s.rn.idleNow() // a run kept ready for its first re-run (ready.go)
	return s, nil
}

// newSessionDir checks the target and creates the session's directory with its session.json:
// a session with no run yet, which NewSession records and an editor's session (StartExternal)
// lets the editor run.
func newSessionDir(ctx context.Context, opts Options, cfg SessionConfig) (*Session, error) {
	var (
		prog *Program
		tg   target.Target
		err  error
	)
	if cfg.Program != nil { // a program someone else started (a live session attached to it)
		prog = cfg.Program
	} else if prog, tg, err = NewProgram(ctx, opts); err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	if cfg.Events == nil {
		cfg.Events = func(Event) {}
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "runs"), 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the session directory %s (is the disk full?): %w", cfg.Dir, err)
	}
	s := &Session{
		ID: cfg.ID, Dir: cfg.Dir, Opts: opts, log: cfg.Log, prog: prog, target: tg, emit: cfg.Events,
		hits: adi.Hits{}, condErr: map[adi.Breakpoint]string{},
		created: time.Now(), isLive: cfg.Live,
	}
	s.rn = &runner{prog: prog, dir: filepath.Join(cfg.Dir, "runs"), log: cfg.Log}
	if err := writeJSON(filepath.Join(cfg.Dir, "session.json"), s.meta()); err != nil {
		return nil, err
	}
	return s, nil
}

// LoadSession reopens a session from its directory (after a bridge restart): T from its first
// run, Σ and the condition results from state.json, and the FLTs of every later run that replayed
// the recording. Nothing is re-run.
func LoadSession(ctx context.Context, dir string, log hclog.Logger, events func(Event)) (*Session, error) {
	var meta sessionMeta
	b, err := os.ReadFile(filepath.Join(dir, "session.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a session directory: %w", dir, err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("%s/session.json is corrupt: %w", dir, err)
	}
	prog, tg, err := NewProgram(ctx, meta.Options)
	if err != nil {
		return nil, fmt.Errorf("cannot reopen session %s: %w", meta.ID, err)
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if events == nil {
		events = func(Event) {}
	}
	s := &Session{
		ID: meta.ID, Dir: dir, Opts: meta.Options, log: log, prog: prog, target: tg, emit: events,
		hits: adi.Hits{}, condErr: map[adi.Breakpoint]string{},
		created: meta.Created, isLive: meta.Live,
	}
	runsDir := filepath.Join(dir, "runs")
	runs, err := listRuns(runsDir)
	if err != nil || len(runs) == 0 {
		return nil, fmt.Errorf("session %s has no recording on disk", meta.ID)
	}
	s.rn = &runner{prog: prog, dir: runsDir, log: log, next: runs[len(runs)-1] + 1}
	if fifos, err := filepath.Glob(filepath.Join(dir, "*.fifo")); err == nil {
		for _, f := range fifos { // of runs kept ready by a daemon that ended without closing it
			_ = os.Remove(f)
		}
	}
	if s.isLive {
		// each run of a live session is one process's watches: the last one is the recording
		runs = runs[len(runs)-1:]
	}
	base, err := loadRun(filepath.Join(runsDir, fmt.Sprintf("%04d", runs[0])))
	if err != nil {
		return nil, err
	}
	if s.isLive {
		// what a live process's watches caught, as when the session was open: no exit status of a
		// run adi made, so no failed target, and a recording that ends where the watches stopped
		base.Live = true
		base.Rec.Trace.Partial, base.Rec.Trace.Live = true, true
	}
	s.base = base
	s.trace = base.Rec.Trace
	s.trace.Root = prog.Root
	s.state = adi.NewState(s.trace)
	s.flts.take(base.Rec)
	for _, n := range runs[1:] {
		dir := filepath.Join(runsDir, fmt.Sprintf("%04d", n))
		kept, values, ok, err := loadKept(dir)
		if !ok && err == nil { // a run of an older adi, or one cut before it was adopted
			var r *Run
			if r, err = loadRun(dir); err == nil {
				kept = s.replayOf(r).flts
			}
		}
		if err != nil {
			log.Warn("skipping unreadable run", "run", n, "error", err)
			continue
		}
		for k, flt := range kept {
			if s.trace.Frame(k) != nil {
				s.flts.put(k, flt)
			}
		}
		for k, v := range values {
			if s.trace.Frame(k) != nil {
				s.fill(k, v)
			}
		}
	}
	var st stateFile
	if b, err := os.ReadFile(filepath.Join(dir, "state.json")); err == nil && json.Unmarshal(b, &st) == nil {
		s.state.Breakpoints = st.Breakpoints
		if s.trace.Frame(st.Current) != nil {
			s.state.Cur = st.Current
		}
		for _, h := range st.Hits {
			s.hits[h.Breakpoint] = h.Frames
			at := map[int][2]int{}
			for _, a := range h.At {
				at[a[0]] = [2]int{a[1], a[2]}
			}
			s.setHitAt(h.Breakpoint, at)
		}
	}
	s.refreshInfo()
	return s, nil
}

// Close marks the session closed and ends its processes: the run of a command in flight is
// cancelled, and the runs kept ready for the next exec (standby.go) and re-run (ready.go) are
// ended. Its data stays on disk.
func (s *Session) Close() {
	if s.live != nil {
		s.live.Close()
	}
	s.stopMu.Lock()
	if s.stop != nil {
		s.stop()
	}
	s.stopMu.Unlock()
	s.sbMu.Lock()
	s.sbClosed = true
	s.sbMu.Unlock()
	s.DropStandby()
	s.mu.Lock()
	if s.liveRec != nil {
		s.closeLiveRecording()
	}
	s.closed = true
	s.refreshInfo()
	s.mu.Unlock()
	if s.rn != nil {
		s.rn.close() // the run kept ready (ready.go); the processes of runs answered before they ended (ending.go)
	}
	s.emit(Event{Session: s.ID, Kind: "closed"})
}

// ErrClosed is returned by commands on a closed session. It is the kind errkind.SessionClosed.
var ErrClosed error = errkind.SessionClosed
