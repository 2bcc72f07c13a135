package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/privdir"
	"github.com/adi-bridge/adi/probe"
)

// DefaultTimeout is the watchdog's limit when Options.Timeout is zero: a continue or an interact
// that neither pauses nor finishes within it is paused (or interrupted) and answered.
const DefaultTimeout = 30 * time.Second

// Options say what a live session runs.
type Options struct {
	// Command is the target as an agent types it: "python t.py", "python -m pytest t.py -q",
	// "python sol.py < input.txt".
	Command string
	// Dir is the working directory (default: adi's).
	Dir string
	// Env adds KEY=VALUE pairs to the target's environment.
	Env []string
	// Python is the --python choice for the interpreter with debugpy ("" = discover).
	Python string
	// Timeout is the watchdog's limit (default DefaultTimeout).
	Timeout time.Duration
	// Attach is HOST:PORT of a program started with `python -m debugpy --listen HOST:PORT`:
	// the session attaches to it instead of launching Command (attach.go).
	Attach string
	// AllowRemote permits an Attach address that is not loopback.
	AllowRemote bool
}

// Cmd is one command on a live session.
type Cmd struct {
	Name string `json:"command"` // one of Commands
	// Location is FILE:LINE (set_breakpoint, clear; "" clears every breakpoint).
	Location  string `json:"location,omitempty"`
	Condition string `json:"condition,omitempty"`
	Keep      bool   `json:"keep,omitempty"`
	// Code is what interact runs; Frame picks the frame (0, the innermost, by default).
	Code  string `json:"code,omitempty"`
	Frame int    `json:"frame,omitempty"`
	// Func, Condition and Max are watch's (Func also unwatch's: "" stops every watch).
	Func string `json:"func,omitempty"`
	Max  int    `json:"max,omitempty"`
	// Background makes continue return at once, the program running on (state Running).
	Background bool `json:"background,omitempty"`
	// Frame2 is flt's frame (FUNC#N; "" for the paused one); Finish records it to its end.
	Frame2 string `json:"flt_frame,omitempty"`
	Finish bool   `json:"finish,omitempty"`
}

// Session is one live debugging session: a target command and its current run under debugpy,
// the state, the breakpoints (which outlive runs) and the output not yet shown. Commands run one
// at a time; Close may be called at any time and ends every process at once.
type Session struct {
	ID      string
	Command string

	opts   Options
	attach string // HOST:PORT the session attached to ("" for a launched one)
	// closeText is what closing did (set by the first Close) for close's answer.
	closeText string
	prog      *bridge.Program
	tmp       string // the session's temporary directory (faulthandler dumps)
	log       hclog.Logger
	created   time.Time

	// rec is the session's recording part: what its watches catch (watch.go).
	rec *bridge.Session

	// life ends with the session; every process of every run ends with it.
	life context.Context
	kill context.CancelFunc

	mu    sync.Mutex // one command at a time
	run   *run
	runs  int
	state State
	why   string     // how the session got into its state, one line
	stack []Frame    // the paused thread's frames, innermost first
	exc   *Exception // the exception paused on (RuntimeError, PostMortem), or the last one this run
	tid   int        // the paused thread
	bps   []*breakpoint
	out   outputs
	// watches outlive runs like breakpoints (watch.go); probe is the current run's connection to
	// its watch recorder, read without mu by Sync.
	watches []*watch
	nwatch  atomic.Int32 // len(watches), for follow
	probe   atomic.Pointer[probe.Control]

	shown    atomic.Value // the state, for listings that do not wait for a command
	runCount atomic.Int32 // s.runs, for listings
	closed   atomic.Bool
	busy     atomic.Int32
	lastUsed atomic.Int64
}

// newSession launches the target of rec (the session's recording part, which parsed it) under
// debugpy and leaves it in Start.
func newSession(ctx context.Context, id string, opts Options, rec *bridge.Session) (*Session, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Attach != "" {
		return newAttachedSession(ctx, id, opts, rec)
	}
	prog, log := rec.Program(), rec.Log()
	tmp, err := privdir.MkdirTemp("adi-live-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory for live session %s (set TMPDIR to a writable place): %w", id, err)
	}
	life, kill := context.WithCancel(context.Background())
	s := &Session{ID: id, Command: opts.Command, opts: opts, prog: prog, tmp: tmp, log: log, rec: rec,
		created: time.Now(), life: life, kill: kill}
	s.touch()
	if err := s.launch(ctx); err != nil {
		kill()
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	return s, nil
}

// launch starts a fresh run with every breakpoint armed; the session is then in Start.
func (s *Session) launch(ctx context.Context) error {
	s.runs++
	for _, b := range s.bps {
		b.Armed, b.Hits, b.Message = true, 0, ""
	}
	if s.runs > 1 { // a restart: a new process, a new recording of what its watches catch
		if _, err := s.rec.NewLiveRun(); err != nil {
			s.runs--
			return err
		}
	}
	w := s.watchFor(s.runs)
	if err := s.writeWatches(w); err != nil {
		s.runs--
		return err
	}
	for _, x := range s.watches {
		x.id, x.Caught, x.Errors, x.Active = -1, 0, nil, true
	}
	r, err := startRun(ctx, s.life, s.runs, s.prog, s.tmp, w, &s.out, s.log, func(ctx context.Context, c *dap.Client) error {
		for _, file := range s.files() {
			if err := s.sendBreakpoints(ctx, c, file); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.runs--
		return err
	}
	if old := s.probe.Swap(r.probe); old != nil {
		old.Close()
	}
	s.run = r
	s.runCount.Store(int32(s.runs))
	go s.follow(r)
	s.setState(Start, "launched under debugpy; no line has run yet ("+cmdMark(CmdContinue)+" starts it)")
	s.exc = nil
	return nil
}

// Do runs one command and answers with its result and the session's summary. A command invalid
// in the current state is refused with a *RefusedError before anything is sent to debugpy.
func (s *Session) Do(ctx context.Context, c Cmd) (*Answer, error) {
	s.busy.Add(1)
	defer func() {
		s.touch()
		s.busy.Add(-1)
	}()
	if c.Name == CmdClose {
		s.Close()
		return s.closedAnswer(), nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return nil, errClosed(s.ID)
	}
	s.refresh()
	s.pollRunning(ctx)
	if reason := s.refusal(c.Name); reason != "" {
		return nil, &RefusedError{Command: c.Name, State: s.state, Detail: s.why, Reason: reason, Valid: s.valid()}
	}
	var (
		res result
		err error
	)
	switch c.Name {
	case CmdSetBreakpoint:
		res, err = s.setBreakpoint(ctx, c)
	case CmdClear:
		res, err = s.clear(ctx, c.Location)
	case CmdContinue:
		res, err = s.cont(ctx, c.Background)
	case CmdRestart:
		res, err = s.restart(ctx)
	case CmdInteract:
		res, err = s.interact(ctx, c.Code, c.Frame)
	case CmdStack:
		res, err = s.stackResult(ctx)
	case CmdWhere:
		res, err = s.where()
	case CmdStatus:
		res = result{text: "Status of live session " + s.ID + "."}
	case CmdWatch:
		res, err = s.watchCmd(ctx, c)
	case CmdUnwatch:
		res, err = s.unwatchCmd(ctx, c)
	case CmdCaught:
		res, err = s.caughtCmd(ctx)
	case CmdFLT:
		res, err = s.fltCmd(ctx, c)
	default:
		return nil, adi.BadInputf("unknown live command %q; the commands are %v", c.Name, Commands)
	}
	if err != nil {
		if s.closed.Load() {
			return nil, errClosed(s.ID)
		}
		return nil, err
	}
	return s.answer(c.Name, res), nil
}

// refresh notices a run that ended while nobody was looking (the debuggee was killed, the adapter
// died) and moves to Done with the explanation.
func (s *Session) refresh() {
	if s.state == Done || s.run == nil || !s.run.isEnded() {
		return
	}
	s.finish("")
}

// finish moves to Done after the run ended by itself, ends what is left of it, and says how it
// ended; note is added to that (may be "").
func (s *Session) finish(note string) {
	r := s.run
	code, exited := r.exit()
	why := fmt.Sprintf("the program exited with status %d", code)
	if sig := 256 - code; exited && !r.fromLauncher() && sig >= 1 && sig <= 64 {
		// debugpy reports a process killed by signal N with the status 256-N.
		why += fmt.Sprintf(" (what debugpy reports for a process killed by signal %d: %v)", sig, syscall.Signal(sig))
	}
	if !exited && s.attach != "" {
		why = s.attachedEnd()
	} else if !exited {
		why = "the debugger ended the session without an exit status"
		if err := r.c.Err(); err != nil && !errors.Is(err, dap.ErrClosed) {
			why += " (" + err.Error() + ")"
		}
		if err := r.failure(); err != nil {
			why = err.Error()
		}
	}
	if s.exc != nil && s.exc.Type == "EOFError" {
		why += "; " + s.eofNote()
	}
	if note != "" {
		why += "; " + note
	}
	r.closeWhenEnded()
	s.setState(Done, why)
}

// endRun ends the run by force and moves to Done with why.
func (s *Session) endRun(why string) {
	if s.attach != "" { // adi did not start the program: closing the run detached from it
		why = strings.Replace(why, "adi ended the program", "adi detached from the program", 1)
	}
	s.run.close()
	s.setState(Done, why)
}

func (s *Session) setState(st State, why string) {
	s.state, s.why = st, why
	s.shown.Store(st)
	if !st.paused() {
		s.stack, s.tid = nil, 0
	}
}

// eofNote explains an EOFError: the program read standard input past its end.
func (s *Session) eofNote() string {
	if s.prog.Target.Stdin != "" {
		return "it read past the end of its input file " + shortPath(s.prog.Dir, s.prog.Target.Stdin)
	}
	return "it read standard input, which is empty: the command gives no input (add `< FILE` to it)"
}

// Close ends every process of the session (bridge.Live). It does not wait for a running command:
// that command ends at once with an error saying the session was closed. Closing the session
// through its Manager (Close in sessions.go) calls it; the live part alone never leaves the
// Manager.
func (s *Session) Close() {
	first := !s.closed.Swap(true)
	s.kill() // the adapter watches s.life: every process of the run ends now
	s.mu.Lock()
	if first {
		s.closeText = fmt.Sprintf("Closed live session %s; every process of it has ended.", s.ID)
		if s.attach != "" {
			s.closeText = s.closedText()
		}
		if s.run != nil {
			s.run.close()
		}
		_ = os.RemoveAll(s.tmp)
		why := "closed; every process of it has ended"
		if s.attach != "" {
			why = "closed; " + detachedNote
		}
		if s.state == Done {
			why = s.why + "; the session is closed"
		}
		s.setState(Done, why)
	}
	s.mu.Unlock()
}

// closedAnswer is the answer to close: what closing did, and the session's last summary.
func (s *Session) closedAnswer() *Answer {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answer(CmdClose, result{text: s.closeText})
}

func (s *Session) touch() { s.lastUsed.Store(time.Now().UnixNano()) }

// Idle reports how long the session has been unused, and whether a command is running.
func (s *Session) Idle() (time.Duration, bool) {
	return time.Since(time.Unix(0, s.lastUsed.Load())), s.busy.Load() > 0
}

// info describes the session for listings without waiting for a running command (a busy
// session shows the state it had when the command began).
// Status describes the session for listings (bridge.Live): its Info.
func (s *Session) Status() any { return s.info() }

func (s *Session) info() Info {
	last := time.Unix(0, s.lastUsed.Load())
	in := Info{ID: s.ID, Command: s.Command, Dir: s.prog.Dir, Created: s.created, LastUsed: last, Busy: s.busy.Load() > 0}
	in.State, _ = s.shown.Load().(State)
	in.Run = int(s.runCount.Load())
	if s.rec != nil { // the invocations the watches caught in the current run: the recording's roots
		for _, f := range s.rec.Trace().Frames {
			if f.Caller < 0 {
				in.Caught++
			}
		}
	}
	return in
}
