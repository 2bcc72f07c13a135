package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/privdir"
	"github.com/adi-bridge/adi/probe"
)

// Attached sessions (live.attach): the program was started by its owner with
// `python -m debugpy --listen HOST:PORT prog.py` (say in a container), and adi connects to the
// debugpy adapter listening there. The commands are those of a launched session, with these
// differences: the session starts in Running (the program runs; continue waits for it to stop);
// restart is refused (adi did not start the program, so it cannot start it again); the first
// continue sends configurationDone (a program started with --wait-for-client starts then, with
// the breakpoints set before in place); the watchdog
// pauses through DAP only (no launcher, so no signals, and a program that cannot be paused is
// left running, not ended); adi writes no sync markers into the program's output; and close
// detaches (disconnect without terminating the debuggee): the program runs on.

// detachedNote is how an attached session's close ends.
const detachedNote = "adi detached from the program, which keeps running (adi did not start it, so it does not end it)"

// CheckAttachAddr refuses an attach address that is not HOST:PORT, or whose host is not
// loopback unless allowRemote: a debugpy server runs any code its client sends, so reaching one
// on another machine must be a deliberate choice (as for adi serve's --listen).
func CheckAttachAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return adi.BadInputf("%s %q is not HOST:PORT, e.g. 127.0.0.1:5678 (what `python -m debugpy --listen 127.0.0.1:5678` listens on)", faces.Cmd("live.attach"), addr)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
		return adi.BadInputf("%s %q: the port must be a number from 1 to 65535", faces.Cmd("live.attach"), addr)
	}
	if allowRemote || loopbackHost(host) {
		return nil
	}
	return adi.BadInputf("%s %s is not a loopback address, and debugpy runs whatever code its client sends over an unencrypted connection; forward the port to 127.0.0.1 (ssh -L, docker -p 127.0.0.1:PORT:PORT), or pass %s if you mean it",
		faces.Cmd("live.attach"), addr, faces.Param("live.attach", "allow_remote"))
}

func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// newAttachedSession attaches to the debugpy server at opts.Attach and leaves the session in
// Running. Breakpoints come later (set_breakpoint sends them at once).
func newAttachedSession(ctx context.Context, id string, opts Options, rec *bridge.Session) (*Session, error) {
	log := rec.Log()
	tmp, err := privdir.MkdirTemp("adi-live-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory for live session %s (set TMPDIR to a writable place): %w", id, err)
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	life, kill := context.WithCancel(context.Background())
	s := &Session{ID: id, Command: "attach " + opts.Attach, opts: opts, attach: opts.Attach, prog: rec.Program(), rec: rec,
		tmp: tmp, log: log, created: time.Now(), life: life, kill: kill}
	s.touch()
	r, err := attachRun(ctx, life, opts.Attach, &s.out, log)
	if err != nil {
		kill()
		_ = os.RemoveAll(tmp)
		return nil, err
	}
	s.runs, s.run = 1, r
	s.runCount.Store(1)
	s.setState(Running, "attached to the program at "+opts.Attach+"; it runs, or waits for its client if started with --wait-for-client ("+cmdMark(CmdContinue)+" lets it go on and waits until it stops)")
	return s, nil
}

// attachDir is an attached session's directory: dir, or adi's working directory, absolute. Files
// the program runs from under it are its user code.
func attachDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		dir = wd
	}
	return filepath.Abs(dir)
}

// attachRun connects to the debugpy server at addr with the arguments a launch uses (just my
// code, output to adi, adi's helpers hidden from stacks), up to configurationDone (the first
// continue sends it).
func attachRun(ctx, life context.Context, addr string, out *outputs, log hclog.Logger) (*run, error) {
	launcher, probeDir, err := installHelpers()
	if err != nil {
		return nil, err
	}
	token := dap.NewRunTag()
	r := &run{n: 1, attached: true, helpers: []string{launcher, probeDir},
		finished: make(chan struct{}), token: token, exitCode: -1, waiters: map[string]chan struct{}{}, log: log,
		scanners: [2]*markerScanner{newMarkerScanner(token), newMarkerScanner(token)}}
	rules := []map[string]any{}
	for _, d := range r.helpers {
		rules = append(rules, map[string]any{"path": filepath.Join(d, "**"), "include": false})
	}
	args := map[string]any{"name": "adi live", "type": "python", "request": "attach",
		"justMyCode": true, "redirectOutput": true, "subProcess": false, "showReturnValue": false, "rules": rules}
	ctx, cancel := context.WithTimeout(ctx, launchTimeout)
	defer cancel()
	r.dr, err = dap.AttachRun(ctx, life, dap.AttachOptions{Addr: addr, Attach: args,
		Exceptions: []string{"uncaught", "userUnhandled"}, Hooks: r.hooks(out), Log: log})
	if err != nil {
		if errors.Is(err, dap.ErrNoListener) || errors.Is(err, dap.ErrNotDebugpy) {
			return nil, adi.BadInputf("%s", err.Error())
		}
		return nil, err
	}
	r.pump, r.c, r.ended = r.dr.Pump, r.dr.Client, r.dr.Ended()
	return r, nil
}

// helperImport is the expression that makes adi's helpers importable in an attached program
// (which adi's launcher did not start with them on sys.path), evaluating to None.
func (r *run) helperImport() string {
	q := make([]string, len(r.helpers))
	for i, d := range r.helpers {
		q[i] = strconv.Quote(d)
	}
	return fmt.Sprintf("__import__('sys').path.extend([d for d in (%s,) if d not in __import__('sys').path])", strings.Join(q, ", "))
}

// refusal says why cmd is invalid now ("" when it is valid): the state's rules, and for an
// attached session those of a program adi did not start.
func (s *Session) refusal(cmd string) string {
	if s.attach == "" {
		return refusal(s.state, cmd)
	}
	again := "start it again under `python -m debugpy --listen` and " + faces.Cmd("live.attach") + " to it"
	switch {
	case cmd == CmdRestart:
		return "adi attached to this program and did not start it, so it cannot run it again; " + again
	case s.state == Done && (cmd == CmdContinue || cmd == CmdInteract || cmd == CmdStack || cmd == CmdWhere):
		return "the session has ended (" + s.why + "), so there is nothing to run or look at; " + again
	}
	return refusal(s.state, cmd)
}

// valid lists the commands valid now, in the order of Commands.
func (s *Session) valid() []string {
	out := []string{}
	for _, c := range Commands {
		if s.refusal(c) == "" {
			out = append(out, c)
		}
	}
	return out
}

// stillRunning answers a continue on an attached program that the watchdog could not pause
// (it runs no Python line: it waits in a socket's accept, say). adi did not start it and does
// not end it: it stays Running, and the pause lands when it next runs a line (the next continue
// lets it go on).
func (s *Session) stillRunning(started time.Time) result {
	limit := seconds(ms(s.opts.Timeout))
	s.setState(Running, fmt.Sprintf("attached to the program at %s; it runs (no stop within the watchdog's limit of %s)", s.attach, limit))
	text := fmt.Sprintf("the program did not stop within the watchdog's limit of %s, and it runs no Python line that a pause could stop at (it waits for input or in a system call); it keeps running (Running). Make it reach a breakpoint (send it a request, say), then %s again.",
		limit, cmdMark(CmdContinue))
	return result{text: text, json: ContinueResult{Outcome: "running", ElapsedMS: ms(time.Since(started))}}
}

// attachedText is the first answer of an attached session.
func (s *Session) attachedText() string {
	return fmt.Sprintf("Attached to the program at %s as live session %s (watchdog %s). It runs (or, started with --wait-for-client, waits for %s): set breakpoints (%s), then %s waits until it stops at one. %s detaches and leaves it running. Every answer ends with the session's summary.",
		s.attach, s.ID, seconds(ms(s.opts.Timeout)), cmdMark(CmdContinue), cmdMark(CmdSetBreakpoint)+" "+faces.Param("live.set_breakpoint", "location"), cmdMark(CmdContinue), cmdMark(CmdClose))
}

// attachedEnd says how an attached session ended without an exit status: debugpy's server
// reports none for the program it runs in. The program exited when its process is gone (waited
// for briefly: the connection ends just before the process does).
func (s *Session) attachedEnd() string {
	pid := s.run.debuggeePid()
	for deadline := time.Now().Add(time.Second); pid > 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if dap.ProcessEnded(pid) {
			return "the program exited (debugpy does not report the exit status of a program it was attached to)"
		}
	}
	return "debugpy ended the connection (the program may still run; adi did not start it and cannot tell)"
}

// closedText is what closing an attached session says (before the state moves to Done).
func (s *Session) closedText() string {
	if s.state == Done {
		return fmt.Sprintf("Closed live session %s (%s).", s.ID, s.why)
	}
	return fmt.Sprintf("Closed live session %s: %s.", s.ID, detachedNote)
}

// attachPauseGrace bounds how long installing the watch recorder waits for a running attached
// program to pause.
const attachPauseGrace = 2 * time.Second

// installRecorder starts the probe's watch recorder in a program adi attached to (adi's launcher,
// which starts it idle in every program adi launches, did not start this one). Each thread of
// the program must run adi_probe.watch.start once to get its hook (threads started later get it
// by themselves), so the program is paused if it runs, the expression is evaluated in every
// paused thread, and the program is resumed. A thread that does not pause (it runs no Python
// code of its own, e.g. blocked waiting for a connection) gets no hook, and its calls are not
// caught; threads it starts later are.
func (s *Session) installRecorder(ctx context.Context) error {
	r := s.run
	if r.probe != nil {
		return nil
	}
	w := s.watchFor(s.runs)
	w.Watches = ""
	cfg, err := json.Marshal(w)
	if err != nil {
		return err
	}
	expr := fmt.Sprintf("(%s, __import__('adi_probe.watch').watch.start(%s))[1]", r.helperImport(), strconv.Quote(string(cfg)))
	var resumeAfter *stop
	if s.state == Running {
		if !r.dr.Configured() {
			if err := r.configurationDone(ctx); err != nil {
				return s.lost(err)
			}
		}
		st, err := s.pauseForInstall(ctx)
		if err != nil {
			return err
		}
		resumeAfter = &st
	}
	installed := 0
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	threads, err := r.c.Threads(rctx)
	if err != nil {
		return s.lost(err)
	}
	var firstErr error
	for _, th := range threads {
		frames, err := r.c.StackTrace(rctx, th.Id, 1)
		if err != nil || len(frames) == 0 {
			continue // not paused in code of its own
		}
		body, err := r.c.Evaluate(rctx, expr, frames[0].Id, "repl")
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if strings.Contains(body.Result, `"error"`) && firstErr == nil {
			firstErr = errors.New(strings.Trim(body.Result, `'"`))
			continue
		}
		installed++
	}
	if resumeAfter != nil {
		if resumeAfter.Reason == "pause" {
			if err := s.resumeThread(ctx, resumeAfter.ThreadID); err != nil {
				return err
			}
			s.setState(Running, s.why)
		} else if _, err := s.stopped(ctx, *resumeAfter, time.Now(), false); err != nil {
			return err
		}
	}
	if installed == 0 {
		if firstErr != nil {
			return fmt.Errorf("cannot start adi's watch recorder in the attached program: %w", firstErr)
		}
		return adi.BadInputf("the attached program has no thread paused in code of its own, so adi cannot start its watch recorder there; "+
			"set a breakpoint where the program works, let it stop there (%s), then watch", cmdMark(CmdContinue))
	}
	r.probe = probe.NewControl(w.Socket)
	if old := s.probe.Swap(r.probe); old != nil {
		old.Close()
	}
	return nil
}

// pauseForInstall pauses a running attached program (every thread: pydevd suspends them all) and
// returns the stop; a program that does not pause within attachPauseGrace is an error.
func (s *Session) pauseForInstall(ctx context.Context) (stop, error) {
	r := s.run
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	threads, err := r.c.Threads(rctx)
	if err != nil || len(threads) == 0 {
		return stop{}, fmt.Errorf("cannot list the attached program's threads to pause it: %v", err)
	}
	if err := r.c.Pause(rctx, threads[0].Id); err != nil {
		return stop{}, s.lost(err)
	}
	t := time.NewTimer(attachPauseGrace)
	defer t.Stop()
	select {
	case b := <-r.stops():
		return stopOf(b), nil
	case <-r.ended:
		return stop{}, adi.BadInputf("the attached program ended")
	case <-t.C:
		return stop{}, adi.BadInputf("the attached program did not pause within %s to let adi start its watch recorder (it runs no Python code of its own now, e.g. it waits for a request); "+
			"set a breakpoint where it works, let it stop there (%s), then watch", seconds(ms(attachPauseGrace)), cmdMark(CmdContinue))
	}
}
