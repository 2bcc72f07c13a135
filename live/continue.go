package live

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
)

// The watchdog's steps after the limit: a DAP pause, given pauseGrace to land; then SIGUSR1 (the
// launcher pauses the main thread from a signal handler), given signalGrace; then the program is
// ended and its stack read from the launcher's faulthandler.
const (
	pauseGrace  = 500 * time.Millisecond
	signalGrace = 2 * time.Second
)

// ContinueResult is continue's result: where the program stopped, or how it ended.
type ContinueResult struct {
	// Outcome is "breakpoint", "exception" (RuntimeError), "uncaught" (PostMortem), "watchdog"
	// (paused by the watchdog), "blocked" (ended by the watchdog), or "exited".
	Outcome   string  `json:"outcome"`
	ElapsedMS float64 `json:"elapsed_ms"`
}

// cont lets the program run (from Start it sends configurationDone) until it stops, ends, or the
// watchdog's limit passes.
func (s *Session) cont(ctx context.Context, background bool) (result, error) {
	r := s.run
	from := s.state
	started := time.Now()
	switch from {
	case Start:
		if err := r.configurationDone(ctx); err != nil {
			return result{}, s.lost(err)
		}
	case Running: // it runs on its own (background, or attached): wait for it to stop
		if !r.dr.Configured() { // attached, before the first continue: let it start
			if err := r.configurationDone(ctx); err != nil {
				return result{}, s.lost(err)
			}
		} else if background {
			return result{text: "The program is already running on its own; " + cmdMark(CmdContinue) + " without " +
				faces.Param("live.continue", "background") + " waits until it stops."}, nil
		}
	default:
		if err := s.resume(ctx); err != nil {
			return result{}, err
		}
	}
	s.stack = nil
	if background {
		s.setState(Running, "it runs on its own ("+cmdMark(CmdContinue)+" "+faces.Param("live.continue", "background")+"); watches record, breakpoints stop it")
		return result{text: "continue → the program runs on its own: watches record as it runs, a breakpoint stops it. " +
			cmdMark(CmdCaught) + " lists what the watches caught; " + cmdMark(CmdContinue) + " waits until it stops."}, nil
	}
	res, err := s.waitStop(ctx, started)
	if err != nil {
		return result{}, err
	}
	res.text = "continue → " + res.text
	return res, nil
}

// pollRunning notices, without waiting, that a program running on its own (Running) stopped at a
// breakpoint or an exception, or ended, and moves the session there.
func (s *Session) pollRunning(ctx context.Context) {
	r := s.run
	for s.state == Running {
		select {
		case b := <-r.stops():
			st := stopOf(b)
			if s.ignorable(st) || st.Reason == "pause" {
				if err := s.resumeThread(ctx, st.ThreadID); err != nil {
					return
				}
				continue
			}
			_, _ = s.stopped(ctx, st, time.Now(), false)
		case <-r.ended:
			s.exited(ctx, time.Now())
		case <-r.finished:
			s.exited(ctx, time.Now())
		default:
			return
		}
	}
}

// resume sends continue for the paused thread.
func (s *Session) resume(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	if err := s.run.c.Continue(ctx, s.tid); err != nil {
		return s.lost(err)
	}
	return nil
}

// waitStop waits until the program stops or ends; after the watchdog's limit it pauses it.
func (s *Session) waitStop(ctx context.Context, started time.Time) (result, error) {
	r := s.run
	watchdog := time.NewTimer(s.opts.Timeout)
	defer watchdog.Stop()
	for {
		select {
		case b := <-r.stops():
			st := stopOf(b)
			// adi pauses only in its watchdog: a pause stop here is a late one from an earlier
			// watchdog (a DAP pause that never landed there, overtaken by the signal).
			if s.ignorable(st) || st.Reason == "pause" {
				if err := s.resumeThread(ctx, st.ThreadID); err != nil {
					return result{}, err
				}
				continue
			}
			return s.stopped(ctx, st, started, false)
		case <-r.ended:
			return s.exited(ctx, started), nil
		case <-r.finished:
			return s.exited(ctx, started), nil
		case <-watchdog.C:
			return s.watchdog(ctx, started)
		case <-s.life.Done():
			return result{}, errClosed(s.ID)
		case <-ctx.Done():
			s.endRun("the command was cancelled (the server is stopping); adi ended the program")
			return result{}, fmt.Errorf("continue was cancelled: %w", ctx.Err())
		}
	}
}

// ignorable reports a stop the agent never wants: a SystemExit (how unittest.main and sys.exit
// end a program) is not an error to inspect.
func (s *Session) ignorable(st stop) bool {
	return st.Reason == "exception" && (exceptionType(st.Text) == "SystemExit")
}

func (s *Session) resumeThread(ctx context.Context, tid int) error {
	s.tid = tid
	return s.resume(ctx)
}

// stopped records a stop: the stack, the state it means, a one-shot breakpoint's removal.
func (s *Session) stopped(ctx context.Context, st stop, started time.Time, byWatchdog bool) (result, error) {
	s.tid = st.ThreadID
	s.run.outputSync(ctx)
	frames, err := fetchStack(ctx, s.run.c, st.ThreadID)
	if err != nil {
		return result{}, s.lost(err)
	}
	s.stack = frames
	elapsed := ms(time.Since(started))
	where := "(no frame of the program's code)"
	if len(frames) > 0 {
		where = s.frameText(frames[0])
	}
	switch st.Reason {
	case "breakpoint":
		b := s.hitBreakpoint(frames)
		if b == nil && byWatchdog {
			break // the launcher's signal handler paused it with debugpy.breakpoint()
		}
		if b == nil {
			s.setState(Runtime, "paused at a breakpoint at "+where)
			return result{text: "paused at a breakpoint at " + where, json: ContinueResult{Outcome: "breakpoint", ElapsedMS: elapsed}}, nil
		}
		b.Hits++
		why := fmt.Sprintf("paused at breakpoint %s (hit %d)", where, b.Hits)
		text := fmt.Sprintf("paused at breakpoint %s after %s (hit %d).", where, seconds(elapsed), b.Hits)
		if !b.Keep {
			b.Armed = false
			if err := s.sendBreakpoints(ctx, s.run.c, b.File); err != nil {
				return result{}, s.lost(err)
			}
			text += " The breakpoint is now removed (it was not kept); " + cmdMark(CmdRestart) + " sets it again."
		}
		s.setState(Runtime, why)
		return result{text: text, json: ContinueResult{Outcome: "breakpoint", ElapsedMS: elapsed}}, nil
	case "exception":
		return s.onException(ctx, st, frames, elapsed)
	}
	if byWatchdog {
		limit := seconds(ms(s.opts.Timeout))
		s.setState(Runtime, fmt.Sprintf("paused by the watchdog after %s at %s", limit, where))
		text := fmt.Sprintf("the program neither paused nor finished within the watchdog's limit of %s: adi paused it at %s (Runtime). Inspect it, %s for another %s, or %s.",
			limit, where, cmdMark(CmdContinue), limit, cmdMark(CmdRestart))
		if s.attach != "" {
			text = fmt.Sprintf("the program did not stop within the watchdog's limit of %s: adi paused it at %s (Runtime). Inspect it, or %s for another %s.",
				limit, where, cmdMark(CmdContinue), limit)
		}
		return result{text: text, json: ContinueResult{Outcome: "watchdog", ElapsedMS: elapsed}}, nil
	}
	why := fmt.Sprintf("paused (%s) at %s", st.Reason, where)
	s.setState(Runtime, why)
	return result{text: why + ".", json: ContinueResult{Outcome: st.Reason, ElapsedMS: elapsed}}, nil
}

// hitBreakpoint finds the armed breakpoint at the innermost frame.
func (s *Session) hitBreakpoint(frames []Frame) *breakpoint {
	if len(frames) == 0 {
		return nil
	}
	file := canonical(s.prog.Dir, frames[0].File)
	for _, b := range s.bps {
		if b.Armed && b.File == file && b.Line == frames[0].Line {
			return b
		}
	}
	return nil
}

// onException records a stop on an exception: leaving the program's code (RuntimeError) or
// uncaught at the top of the thread (PostMortem).
func (s *Session) onException(ctx context.Context, st stop, frames []Frame, elapsed float64) (result, error) {
	mode, err := s.exceptionMode(ctx, st.ThreadID)
	if err != nil {
		return result{}, s.lost(err)
	}
	exc := &Exception{Type: exceptionType(st.Text), Message: st.Description}
	s.exc = exc
	raised := "(no frame of the program's code)"
	if len(frames) > 0 {
		raised = s.frameText(frames[0])
	}
	var eof string
	if exc.Type == "EOFError" {
		eof = " Note: " + s.eofNote() + "."
	}
	if mode == "unhandled" {
		exc.Mode = "uncaught"
		why := fmt.Sprintf("the program is ending by an uncaught %s, raised at %s; its frames are kept for inspection", exc.short(), raised)
		s.setState(PostMortem, why)
		text := fmt.Sprintf("the program is ending by an uncaught exception: %s, raised at %s (PostMortem).%s Its frames stay inspectable (%s); %s lets it exit.", exc, raised, eof, cmdList([]string{CmdInteract, CmdStack, CmdWhere}), cmdMark(CmdContinue))
		return result{text: text, json: ContinueResult{Outcome: "uncaught", ElapsedMS: elapsed}}, nil
	}
	exc.Mode = "leaving_user_code"
	leaving := raised
	for _, f := range frames {
		if f.Current {
			leaving = s.frameText(f)
		}
	}
	where := "as it leaves the program's code at " + leaving
	if leaving == raised {
		where = "where it leaves the program's code"
	}
	why := fmt.Sprintf("paused on %s, raised at %s, %s", exc.short(), raised, where)
	s.setState(RuntimeError, why)
	text := fmt.Sprintf("paused on an exception: %s, raised at %s (RuntimeError).%s It is leaving the program's code there%s; what called it (a test runner, the interpreter) handles it next. Inspect it (%s); %s lets it propagate.",
		exc, raised, eof, map[bool]string{true: "", false: " (at " + leaving + ")"}[leaving == raised], cmdList([]string{CmdInteract, CmdStack, CmdWhere}), cmdMark(CmdContinue))
	return result{text: text, json: ContinueResult{Outcome: "exception", ElapsedMS: elapsed}}, nil
}

// exceptionMode asks debugpy how it broke on the exception: "always" (the userUnhandled filter:
// leaving the program's code) or "unhandled" (uncaught).
func (s *Session) exceptionMode(ctx context.Context, tid int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	var body struct {
		BreakMode string `json:"breakMode"`
	}
	if err := s.run.c.Do(ctx, "exceptionInfo", map[string]any{"threadId": tid}, &body); err != nil {
		return "", fmt.Errorf("read the exception's details: %w", err)
	}
	return body.BreakMode, nil
}

// exceptionType cuts pydevd's note off an exception's name ("ValueError       (note: ...)").
func exceptionType(text string) string {
	if i := strings.Index(text, "(note:"); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSpace(text)
}

// exited records the end of the run.
func (s *Session) exited(ctx context.Context, started time.Time) result {
	s.run.outputSync(ctx) // the launcher's exit report came on stderr: stdout may still be on its way
	s.finish("")
	text := s.why + "."
	return result{text: text, json: ContinueResult{Outcome: "exited", ElapsedMS: ms(time.Since(started))}}
}

// watchdog pauses a program that ran past the limit. A DAP pause lands at the program's next
// line event; a loop that makes none (`while True: pass`) or a thread blocked in a sleep or a read
// is paused by SIGUSR1 instead. A program that neither pause reaches is ended, and its stack read
// from the launcher's faulthandler.
func (s *Session) watchdog(ctx context.Context, started time.Time) (result, error) {
	pctx, cancel := context.WithTimeout(ctx, requestTimeout)
	err := s.run.c.Pause(pctx, s.tid)
	cancel()
	if err != nil && !s.run.isEnded() {
		return result{}, s.lost(err)
	}
	grace := time.NewTimer(pauseGrace)
	defer grace.Stop()
	signalled := false
	for {
		select {
		case b := <-s.run.stops():
			st := stopOf(b)
			if s.ignorable(st) {
				if err := s.resumeThread(ctx, st.ThreadID); err != nil {
					return result{}, err
				}
				continue
			}
			return s.stopped(ctx, st, started, true)
		case <-s.run.ended:
			return s.exited(ctx, started), nil
		case <-s.run.finished:
			return s.exited(ctx, started), nil
		case <-grace.C:
			if !signalled && s.signal(syscall.SIGUSR1) {
				signalled = true
				grace.Reset(signalGrace)
				continue
			}
			if s.run.attached {
				return s.stillRunning(started), nil
			}
			return s.blocked(started), nil
		case <-s.life.Done():
			return result{}, errClosed(s.ID)
		case <-ctx.Done():
			s.endRun("the command was cancelled (the server is stopping); adi ended the program")
			return result{}, fmt.Errorf("continue was cancelled: %w", ctx.Err())
		}
	}
}

// signal sends sig to the debuggee; it reports whether it could.
func (s *Session) signal(sig syscall.Signal) bool {
	pid := s.run.debuggeePid()
	return pid > 0 && !s.run.attached && syscall.Kill(pid, sig) == nil
}

// blocked ends a program that did not respond to pause and says where it was.
func (s *Session) blocked(started time.Time) result {
	frames := s.faultStack()
	where := "somewhere adi could not see"
	if len(frames) > 0 {
		where = s.frameText(frames[0])
	}
	limit := seconds(ms(s.opts.Timeout))
	why := fmt.Sprintf("ended by the watchdog: it neither paused nor finished within %s and could not be paused (stuck outside Python code at %s)", limit, where)
	s.endRun(why)
	var b strings.Builder
	fmt.Fprintf(&b, "the program neither paused nor finished within the watchdog's limit of %s, and could not be paused within %s: it is stuck outside Python code (in a C extension, or in a thread a signal cannot interrupt) at %s. adi ended it (Done); %s runs it again, with a breakpoint before that line.",
		limit, seconds(ms(pauseGrace+signalGrace)), where, cmdMark(CmdRestart))
	if len(frames) > 0 {
		b.WriteString("\nIts stack when it was ended (innermost last):\n")
		b.WriteString(strings.Join(stackLines(s.prog.Dir, frames, 0), "\n"))
	}
	return result{text: b.String(), json: struct {
		ContinueResult
		Stack []Frame `json:"stack"`
	}{ContinueResult{Outcome: "blocked", ElapsedMS: ms(time.Since(started))}, frames}}
}

// restart ends the current run and launches a fresh one with every breakpoint set again.
func (s *Session) restart(ctx context.Context) (result, error) {
	old := s.runs
	s.run.close()
	s.setState(Done, "restarting")
	if err := s.launch(ctx); err != nil {
		s.setState(Done, "restart failed: "+errkind.OneLine(err.Error()))
		return result{}, err
	}
	text := fmt.Sprintf("Restarted `%s` (run %d); every process of run %d has ended. %d breakpoint(s) set again. No line has run yet: %s starts it.",
		s.Command, s.runs, old, len(s.bps), cmdMark(CmdContinue))
	return result{text: text}, nil
}

// lost handles a debugger that failed a request: the run is ended and the session is Done, so the
// next command is not sent to a broken debugger.
func (s *Session) lost(err error) error {
	if s.closed.Load() {
		return errClosed(s.ID)
	}
	if s.run.isEnded() {
		s.finish("")
		return fmt.Errorf("the program ended while adi talked to debugpy (%s); the session is Done: %s runs it again", s.why, cmdMark(CmdRestart))
	}
	why := "debugpy stopped answering (" + errkind.OneLine(err.Error()) + "); adi ended the program"
	var re *dap.ResponseError
	if errors.As(err, &re) {
		why = "debugpy refused a request (" + errkind.OneLine(re.Error()) + "); adi ended the program"
	}
	s.endRun(why)
	return fmt.Errorf("%s; the session is Done: %s runs it again: %w", why, cmdMark(CmdRestart), err)
}

// frameText writes a frame as FILE:LINE in FUNCTION.
func (s *Session) frameText(f Frame) string {
	return fmt.Sprintf("%s:%d in %s", shortPath(s.prog.Dir, f.File), f.Line, f.Function)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// seconds writes a duration given in milliseconds for people: "30 s", "1.2 s", "45 ms".
func seconds(msec float64) string {
	switch {
	case msec < 1000:
		return fmt.Sprintf("%.0f ms", msec)
	case msec < 10000 && int(msec)%1000 != 0:
		return fmt.Sprintf("%.1f s", msec/1000)
	}
	return fmt.Sprintf("%.0f s", msec/1000)
}
