package bridge

import (
	"context"
	"fmt"
	"github.com/hashicorp/go-hclog"
	"path/filepath"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/sessionid"
	"github.com/adi-bridge/adi/probe"
)

// Live is the live part of a session: a process running under a debugger, driven command by
// command (package live implements it). A session has a recording part (T, FLTs, Σ: the Session
// itself) and at most one live part; for a live session, T is what the live part's watches
// caught in the running process (probe/PROTOCOL.md, "Watching in a live process"), read as the
// process writes it, never re-run.
type Live interface {
	// Close ends every process of the live part at once; it does not wait for a running command.
	Close()
	// Idle reports how long the live part has been unused and whether a command is running.
	Idle() (unused time.Duration, busy bool)
	// Status describes the live part for listings (its state and run), as JSON.
	Status() any
	// Sync asks the live program to write what its watches recorded so far (best effort,
	// bounded); the session's commands call it before they read the recording.
	Sync(ctx context.Context)
}

// liveRecording is where a live session's watches write: the run directory of the current
// process, read incrementally.
type liveRecording struct {
	dir  string
	grow growing
}

// growing reads a recording its run is still writing (a live program's watches, an editor's
// run): each snapshot decodes only what was written since the last, and a read that fails starts
// again from the beginning at the next one.
type growing struct {
	tail *probe.Tail
}

// snapshot returns the recording in dir as written so far.
func (g *growing) snapshot(dir string) (*probe.Recording, error) {
	if g.tail == nil {
		g.tail = probe.NewTail(dir)
	}
	rec, err := g.tail.Snapshot()
	if err != nil {
		g.tail = nil
	}
	return rec, err
}

// finish returns the whole recording in dir once its run has ended, decoding only what the
// snapshots did not; the growing reader starts afresh after it.
func (g *growing) finish(dir string) (*probe.Recording, error) {
	t := g.tail
	g.tail = nil
	if t == nil {
		t = probe.NewTail(dir)
	}
	return t.Finish()
}

// decoded counts the bytes of calls.bin the snapshots decoded.
func (g *growing) decoded() int64 {
	if g.tail == nil {
		return 0
	}
	return g.tail.Decoded()
}

// NewLiveID returns a fresh live session id.
func NewLiveID() string { return sessionid.New("live-", 4) }

// StartLive registers a live session under id ("" for a fresh one): its directory, an empty
// recording (runs/0000, which the live part's watches fill), and the live part start returns.
// The session is in the Manager from the start. prog is the program of a process someone else
// started (attach); nil parses opts.Command. The caller checks that no open session has the id
// (or closes it first).
func (m *Manager) StartLive(ctx context.Context, id string, opts Options, prog *Program, start func(s *Session) (Live, error)) (*Session, error) {
	if id == "" {
		id = NewLiveID()
	}
	return m.add(id, func(id, dir string) (*Session, error) {
		s, err := newSessionDir(ctx, opts, SessionConfig{ID: id, Dir: dir, Log: m.log.Named(id), Events: m.emit, Live: true, Program: prog})
		if err != nil {
			return nil, err
		}
		if _, err := s.NewLiveRun(); err != nil {
			return nil, err
		}
		lp, err := start(s)
		if err != nil {
			return nil, err
		}
		s.live = lp
		return s, nil
	})
}

// Live returns the session's live part (nil for a recorded session, and for a live session
// reopened from disk after its process ended).
func (s *Session) Live() Live { return s.live }

// Program returns the session's parsed target command.
func (s *Session) Program() *Program { return s.prog }

// LiveRunDir returns the run directory the live part's current process writes its watches to.
func (s *Session) LiveRunDir() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.liveRec == nil {
		return ""
	}
	return s.liveRec.dir
}

// NewLiveRun starts the recording of a new process of a live session (the first, or the one a
// restart launches): a fresh run directory, and an empty T until the process's watches catch
// something. What earlier processes caught stays on disk in their run directories.
func (s *Session) NewLiveRun() (string, error) {
	dir, err := s.rn.newRunDir()
	if err != nil {
		return "", err
	}
	t := &adi.Trace{Root: s.prog.Root, Partial: true, Live: true}
	t.Index()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.liveRec = &liveRecording{dir: dir}
	s.snap.Lock()
	s.trace = t
	s.base = &Run{Dir: dir, Debug: true, Live: true, ExitCode: -1, Rec: &probe.Recording{Trace: t, FLTs: map[int]*adi.FLT{}}}
	s.snap.Unlock()
	s.state = adi.NewState(t)
	s.flts.reset()
	clear(s.hits)
	clear(s.hitAt)
	clear(s.condErr)
	s.saveState()
	s.refreshInfo()
	return dir, nil
}

// RefreshLive reads what the live process wrote since the last refresh: T grows by the
// invocations its watches caught (and the calls below them), and their FLTs, finished or so far,
// replace the ones read before. Frames keep their indexes as T grows.
func (s *Session) RefreshLive() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refreshLive()
}

// refreshLive is RefreshLive with s.mu held; it does nothing for a session that is not live.
func (s *Session) refreshLive() error {
	lr := s.liveRec
	if lr == nil {
		return nil
	}
	rec, err := lr.grow.snapshot(lr.dir)
	if err != nil {
		return fmt.Errorf("cannot read what the live program's watches recorded so far: %w", err)
	}
	if rec.Trace.Len() < s.trace.Len() {
		return nil // a reader raced a truncated read; keep the longer T
	}
	rec.Trace.Partial, rec.Trace.Live = true, true
	s.takeRecording(rec, &Run{Dir: lr.dir, Debug: true, Live: true, ExitCode: -1}, true)
	return nil
}

// liveCountFile is the file a live session's run directory gets when the session closes: how many
// calls its recording holds (liveCount), so that a list of the sessions on disk counts them
// without decoding the recording (a live run writes no result.json).
const liveCountFile = "live.json"

// liveCount is liveCountFile.
type liveCount struct {
	Calls int `json:"calls"`
}

// closeLiveRecording reads what the live process wrote last (its processes have ended) and
// leaves its count in the run directory (liveCountFile) and Σ in state.json. The caller holds s.mu.
func (s *Session) closeLiveRecording() {
	if err := s.refreshLive(); err != nil {
		s.log.Warn("reading what the live program's watches recorded last", "error", err)
	}
	if err := writeJSON(filepath.Join(s.liveRec.dir, liveCountFile), liveCount{Calls: s.trace.Len()}); err != nil {
		s.log.Warn("cannot save the live recording's count; a list of the sessions on disk reads the recording instead", "error", err)
	}
	s.saveState() // the frame under inspection, named for the list (state.json's current_fid)
}

// liveCalls counts the calls of the live recording in a run directory of a session on disk: from
// liveCountFile, else (a daemon that ended without closing the session) from the recording.
func liveCalls(dir string) int {
	var c liveCount
	if readJSON(filepath.Join(dir, liveCountFile), &c) == nil {
		return c.Calls
	}
	rec, err := probe.Read(dir)
	if err != nil {
		return 0
	}
	return rec.Trace.Len()
}

// takeRecording makes rec the session's T, in run (a recording read while its program runs: an
// editor's run or a live session's), keeping frame indexes: the frame under inspection stays, and
// condition results are dropped when T grew (the next command that needs them evaluates them on
// the longer T). With flts, the FLTs the run recorded as it went replace those read before. The
// caller holds s.mu.
func (s *Session) takeRecording(rec *probe.Recording, run *Run, flts bool) {
	old := s.trace.Len()
	rec.Trace.Root = s.prog.Root
	run.Rec = rec
	s.snap.Lock()
	s.trace = rec.Trace
	s.base = run
	s.snap.Unlock()
	s.state.Trace = rec.Trace
	if s.trace.Frame(s.state.Cur) == nil {
		s.state.Cur = 0
	}
	if flts {
		s.flts.take(rec)
	}
	if rec.Trace.Len() != old {
		clear(s.hits)
		clear(s.hitAt)
		clear(s.condErr)
		s.emit(Event{Session: s.ID, Kind: "trace_updated", Run: filepath.Base(run.Dir), Frames: rec.Trace.Len(), FLTs: s.flts.len()})
	}
	s.refreshInfo()
}

// Log returns the session's logger (a live part logs under its session's name).
func (s *Session) Log() hclog.Logger { return s.log }
