package bridge

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/target"
)

// Event reports progress of a session's long work, for servers to forward.
type Event struct {
	Session string `json:"session"`
	Kind    string `json:"kind"` // run_started, run_finished, output, flt_ready, closed
	Run     string `json:"run,omitempty"`
	Purpose string `json:"purpose,omitempty"`
	Frames  int    `json:"frames,omitempty"`
	FLTs    int    `json:"flts,omitempty"`
	Stream  string `json:"stream,omitempty"`
	Text    string `json:"text,omitempty"`
	// Error is set on a run_finished whose run failed (the command's answer is that error).
	Error string `json:"error,omitempty"`
}

// Session owns one target command: its Program, the recording T of its first run, the FLTs
// recorded since, the condition results, and Σ. Commands are serialised: one at a time.
type Session struct {
	ID   string
	Dir  string
	Opts Options

	log    hclog.Logger
	prog   *Program
	target target.Target
	rn     *runner
	emit   func(Event)

	mu sync.Mutex
	// snap guards the base and trace pointers for Base and Trace, which readers call outside
	// commands; a session whose run is live (external.go) replaces them while it runs; and the
	// values a command gives T's bare frames (values.go), for ReadTrace.
	snap  sync.RWMutex
	base  *Run
	trace *adi.Trace
	state *adi.State
	flts  fltStore // the FLTs recorded so far, by index in T
	hits  adi.Hits // condition results, by breakpoint
	// hitAt holds, for a breakpoint whose condition is checked at a line, where it held in each
	// of its hits (by index in T): the statement's line and the visit (the k-th step at it).
	hitAt   map[adi.Breakpoint]map[int][2]int
	condErr map[adi.Breakpoint]string // first error each condition raised
	closed  bool
	created time.Time

	// info is a snapshot for listings, refreshed after every command, so a listing never waits
	// for a session busy recording.
	info atomic.Pointer[Info]
	busy atomic.Bool
	// stop cancels the running command (Close uses it so it never waits for a long run).
	stopMu sync.Mutex
	stop   context.CancelFunc

	// notes are lines for the answer of the command in progress (Do resets them).
	notes []string

	// savedState is what state.json holds (writeState skips a write that would change nothing).
	savedState []byte

	// sb is the debug run started ahead of the next exec (standby.go), guarded by sbMu.
	sbMu     sync.Mutex
	sb       *standby
	sbSeq    int
	sbClosed bool

	// live is the live part of a live session (live.go), set before the session is registered;
	// isLive marks a live session also when reopened from disk without it. liveRec is where its
	// current process writes (guarded by mu).
	live    Live
	isLive  bool
	liveRec *liveRecording
}

// SessionConfig is what a session needs besides its Options.
type SessionConfig struct {
	ID     string
	Dir    string // the session's own directory (created)
	Log    hclog.Logger
	Events func(Event) // may be nil
	// Live makes a live session: its recording is what its live part's watches catch (live.go).
	Live bool
	// Program, when set, is the session's program as given (a live session attached to a program
	// its owner started has no command to parse); NewProgram makes it otherwise.
	Program *Program
}

// record runs the program under the probe alone and reports progress.
func (s *Session) record(ctx context.Context, purpose string, req RunRequest) (*Run, error) {
	s.emit(Event{Session: s.ID, Kind: "run_started", Purpose: purpose})
	req.Output = func(stream string, b []byte) {
		s.emit(Event{Session: s.ID, Kind: "output", Stream: stream, Text: string(b)})
	}
	failed := func(err error) (*Run, error) {
		// Every run_started has its run_finished, so that progress shown by clients ends.
		s.emit(Event{Session: s.ID, Kind: "run_finished", Purpose: purpose, Error: err.Error()})
		return nil, err
	}
	run, err := s.rn.record(ctx, req)
	if err != nil {
		return failed(err)
	}
	if run.Rec.Result != nil && run.Rec.Result.Error != "" && run.Rec.Trace.Len() == 0 {
		return failed(adi.BadInputf("%s", strings.TrimPrefix(run.Rec.Result.Error, "adi: ")))
	}
	s.emit(Event{Session: s.ID, Kind: "run_finished", Run: filepath.Base(run.Dir), Purpose: purpose,
		Frames: run.Rec.Trace.Len(), FLTs: len(run.Rec.FLTs)})
	s.rn.wantReady() // for the next re-run, once the session is idle (ready.go)
	return run, nil
}

// Runs returns how many runs the session has started (its first included).
func (s *Session) Runs() int {
	s.rn.mu.Lock()
	defer s.rn.mu.Unlock()
	return s.rn.next
}

// Trace returns T (read-only). A command may give frames recorded bare their values meanwhile
// (values.go): a reader outside commands that reads frames' arguments, outcomes or caller lines
// reads them in ReadTrace.
func (s *Session) Trace() *adi.Trace {
	s.snap.RLock()
	defer s.snap.RUnlock()
	return s.trace
}

// ReadTrace calls fn with T, under the lock with which a command gives frames recorded bare their
// values (values.go), so that fn sees every frame whole.
func (s *Session) ReadTrace(fn func(t *adi.Trace)) {
	s.snap.RLock()
	defer s.snap.RUnlock()
	fn(s.trace)
}

// Base returns the session's first run: the recording, exit code and output of the target.
func (s *Session) Base() *Run {
	s.snap.RLock()
	defer s.snap.RUnlock()
	return s.base
}

// Info is a session in short, for listings.
type Info struct {
	ID         string    `json:"id"`
	Command    string    `json:"command"`
	Dir        string    `json:"dir"`
	Frames     int       `json:"frames"`
	FLTs       int       `json:"flts"`
	Current    string    `json:"current"`
	ExitCode   int       `json:"exit_code"`
	Partial    bool      `json:"partial"`
	Closed     bool      `json:"closed"`
	Created    time.Time `json:"created"`
	LastUsed   time.Time `json:"last_used"`
	Breakpoint int       `json:"breakpoints"`
	// Live describes the live part of a live session (its state and run); nil otherwise.
	Live any `json:"live,omitempty"`
}

// refreshInfo takes a new snapshot for Info; the caller holds s.mu (or owns s alone).
func (s *Session) refreshInfo() {
	cur := ""
	if f := s.trace.Frame(s.state.Cur); f != nil {
		cur = f.FID().String()
	}
	s.info.Store(&Info{
		ID: s.ID, Command: s.Opts.Command, Dir: s.prog.Dir, Frames: s.trace.Len(), FLTs: s.flts.len(),
		Current: cur, ExitCode: s.base.ExitCode, Partial: s.trace.Partial, Closed: s.closed,
		Created: s.created, LastUsed: time.Now(), Breakpoint: len(s.state.Breakpoints),
	})
}

// Info describes the session; a live session's Live says what its live part is doing now.
func (s *Session) Info() Info {
	in := *s.info.Load()
	if s.live != nil {
		in.Live = s.live.Status()
	}
	return in
}

// Idle reports how long the session has not been used, and whether a command is running.
func (s *Session) Idle() (time.Duration, bool) {
	unused, busy := time.Since(s.info.Load().LastUsed), s.busy.Load()
	if s.live != nil {
		lu, lb := s.live.Idle()
		unused, busy = min(unused, lu), busy || lb
	}
	return unused, busy
}

// note adds a line to the answer of the command in progress (Answer.Notes), once.
func (s *Session) note(text string) {
	for _, n := range s.notes {
		if n == text {
			return
		}
	}
	s.notes = append(s.notes, text)
}

func runSummary(r *Run) string {
	switch {
	case r.TimedOut:
		return "it timed out"
	case r.Rec.Result == nil:
		return fmt.Sprintf("it died with exit status %d before the probe finished", r.ExitCode)
	case r.Only != nil:
		return fmt.Sprintf("it exited with status %d after %d calls of the %d functions it recorded", r.ExitCode, r.Rec.Trace.Len(), len(r.Only))
	default:
		return fmt.Sprintf("it exited with status %d after %d calls", r.ExitCode, r.Rec.Trace.Len())
	}
}
