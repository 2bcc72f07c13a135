package server

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/wire"
	"github.com/adi-bridge/adi/probe"
)

func init() {
	register(
		&method{name: "session.create", summary: "record a target command once (T) and open a session on it",
			usage: "{command, id?, reuse?, dir?, env?, root?, include?, exclude?, timeout_ms?, limits?, repr_limit?, values?, python?, no_seed?, focus?}",
			call:  sessionCreate},
		&method{name: "session.list", usage: "{}", summary: "list open sessions and those left on disk", call: sessionList},
		&method{name: "session.get", usage: "{session}", summary: "describe one session and its recording run", call: sessionGet},
		&method{name: "session.close", usage: "{session}", summary: "end a session's processes; its data stays on disk", call: sessionClose},
		&method{name: "session.delete", usage: "{session}", summary: "close a session and remove its directory", call: sessionDelete},
		&method{name: "session.subscribe", usage: "{session?}", stream: true,
			summary: "receive session.event notifications for one session (all when omitted)", call: sessionSubscribe},
		&method{name: "session.unsubscribe", usage: "{session?}", stream: true,
			summary: "stop session.event notifications for one session (all when omitted)", call: sessionUnsubscribe},
	)
}

// outputTail bounds the target output a RunInfo carries; the tail is kept.
const outputTail = 8 << 10

// RunInfo describes a session's recording run (package wire's, which clients decode).
type RunInfo = wire.RunInfo

func runInfo(s *bridge.Session) RunInfo {
	r := s.Base()
	ri := RunInfo{ExitCode: r.ExitCode, TimedOut: r.TimedOut, Stdout: tail(r.Stdout), Stderr: tail(r.Stderr),
		ElapsedMS: r.Elapsed.Milliseconds()}
	if t := s.Trace(); t != nil {
		ri.Frames, ri.Partial, ri.TimeLimitMS = t.Len(), t.Partial, t.TimeLimitMS
	}
	ri.Tests = s.TestCounts()
	return ri
}

func tail(b []byte) string {
	if len(b) <= outputTail {
		return string(b)
	}
	return "[…]" + string(b[len(b)-outputTail:])
}

// CreateResult is session.create's answer.
type CreateResult struct {
	Session bridge.Info `json:"session"`
	Run     RunInfo     `json:"run"`
	// Reused is set when reuse found the session already recorded (nothing was run).
	Reused bool   `json:"reused"`
	Text   string `json:"text"`
}

func sessionCreate(c *call) (any, error) {
	p := c.p
	opts := bridge.Options{
		Command: p.String("command", true), Dir: p.String("dir", false), Env: p.StringMap("env"),
		Root: p.String("root", false), Include: p.Strings("include"), Exclude: p.Strings("exclude"),
		Timeout:   time.Duration(p.Int("timeout_ms", false, 1)) * time.Millisecond,
		ReprLimit: p.Int("repr_limit", false, 1), Values: p.String("values", false), Python: p.String("python", false),
		NoSeed: p.Bool("no_seed"), Focus: p.Strings("focus"),
	}
	opts.Limits = limits(p)
	id, reuse := p.String("id", false), p.Bool("reuse")
	if err := p.done(); err != nil {
		return nil, err
	}
	if opts.Python == "" {
		opts.Python = c.h.python
	}
	var carry []adi.Breakpoint
	if id != "" {
		defer c.h.lockID(id)()
		open := c.h.mgr.IsOpen(id)
		switch {
		case open && !reuse:
			return nil, newError(CodeBadInput, "session %s already exists; pass reuse: true to use it, close it first, or pick another id", id)
		case reuse:
			if s, err := c.h.mgr.Get(c.ctx, id); err == nil {
				if sameTarget(s.Opts, opts) && !c.h.stale(s) && !moreTime(s, opts) {
					return createResult(s, true), nil
				}
				carry = breakpoints(c, s)
				if s.Opts.Command == opts.Command { // files included for an earlier call stay included
					for _, inc := range s.Opts.Include {
						if !slices.Contains(opts.Include, inc) {
							opts.Include = append(opts.Include, inc)
						}
					}
				}
				if err := c.h.mgr.Close(id); err != nil {
					return nil, err
				}
			}
		}
	}
	s, err := c.h.mgr.Create(c.ctx, id, opts)
	if err != nil {
		return nil, err
	}
	for _, b := range carry {
		if r, err := adi.ParseRef(b.Func); err == nil {
			if _, err := s.Do(c.ctx, adi.BreakCmd{Func: r, Cond: b.Cond, When: b.When, Line: b.Line}, adi.TextOptions{}); err != nil {
				c.h.log.Info("breakpoint not carried over to the new recording", "breakpoint", b.String(), "error", err)
			}
		}
	}
	return createResult(s, false), nil
}

// limits reads session.create's limits object.
func limits(p *params) probe.Limits {
	raw := p.raw("limits", false)
	if raw == nil || p.err != nil {
		return probe.Limits{}
	}
	lm := &method{name: p.m.name + " limits", usage: "{max_calls?, max_steps?, max_bytes?}"}
	lp := newParams(lm, raw)
	l := probe.Limits{MaxCalls: lp.Int("max_calls", false, 1), MaxSteps: lp.Int("max_steps", false, 1),
		MaxBytes: int64(lp.Int("max_bytes", false, 1))}
	if err := lp.done(); err != nil && p.err == nil {
		p.err = err
	}
	return l
}

// sameTarget reports whether a reused session runs what the new call asks for.
func sameTarget(old, want bridge.Options) bool {
	return old.Command == want.Command && (want.Dir == "" || old.Dir == want.Dir) && subset(want.Include, old.Include)
}

// subset reports whether every string of a is in b: a recording that already includes the
// files a call asks for answers it (a call that asks for none takes any).
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// moreTime reports whether a reused session's recording was stopped at its time limit and the
// new call gives runs more time: the target is then recorded again, further.
func moreTime(s *bridge.Session, want bridge.Options) bool {
	r := s.Base()
	return r != nil && r.TimedOut && want.Timeout > r.TimeLimit
}

// breakpoints returns a session's B, to carry it over to a new recording of the same target.
func breakpoints(c *call, s *bridge.Session) []adi.Breakpoint {
	ans, err := s.Do(c.ctx, adi.ListCmd{}, adi.TextOptions{})
	if err != nil {
		return nil
	}
	l, ok := ans.Result.(*adi.BreakpointList)
	if !ok {
		return nil
	}
	out := make([]adi.Breakpoint, 0, len(l.Breakpoints))
	for _, b := range l.Breakpoints {
		out = append(out, b.Breakpoint)
	}
	return out
}

func createResult(s *bridge.Session, reused bool) *CreateResult {
	info, run := s.Info(), runInfo(s)
	return &CreateResult{Session: info, Run: run, Reused: reused, Text: createText(info, run, reused)}
}

// createText tells a model what the recording holds and what to do next.
func createText(info bridge.Info, run RunInfo, reused bool) string {
	var b strings.Builder
	verb := "Recorded"
	if reused {
		verb = "Reusing the recording of"
	}
	fmt.Fprintf(&b, "%s `%s` (session %s): %d call(s) in %d ms; ", verb, info.Command, info.ID, run.Frames, run.ElapsedMS)
	switch {
	case run.TimedOut && run.TimeLimitMS > 0:
		b.WriteString(adi.TimeLimitNote(run.TimeLimitMS, run.Frames) + "\n")
	case run.TimedOut:
		b.WriteString("the target timed out (the recording stops there).\n")
	case run.ExitCode != 0:
		fmt.Fprintf(&b, "the target exited with status %d.\n", run.ExitCode)
	default:
		b.WriteString("the target exited with status 0.\n")
	}
	if run.Partial {
		b.WriteString("The recording is partial (a limit was reached); later calls are missing.\n")
	}
	for _, o := range []struct{ name, text string }{{"stdout", run.Stdout}, {"stderr", run.Stderr}} {
		if lines := lastLines(o.text, 12); lines != "" {
			fmt.Fprintf(&b, "%s (last lines):\n%s", o.name, lines)
		}
	}
	fmt.Fprintf(&b, "Next: %s shows the calls with their arguments and returns; %s FUNC then %s reaches an invocation.\n",
		faces.Cmd("adi.call_tree"), faces.Cmd("adi.break"), faces.Cmd("adi.continue"))
	return b.String()
}

// lastLines returns the last n lines of s, indented, ending with a newline ("" for no output).
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = append([]string{"…"}, lines[len(lines)-n:]...)
	}
	return "  " + strings.Join(lines, "\n  ") + "\n"
}

func sessionList(c *call) (any, error) {
	if err := c.p.done(); err != nil {
		return nil, err
	}
	list := c.h.mgr.List()
	if list == nil {
		list = []bridge.Info{}
	}
	return map[string]any{"sessions": list}, nil
}

func sessionGet(c *call) (any, error) {
	id := c.p.String("session", true)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	return map[string]any{"session": s.Info(), "run": runInfo(s)}, nil
}

func sessionClose(c *call) (any, error) {
	id := c.p.String("session", true)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	if err := c.h.mgr.Close(id); err != nil {
		return nil, err
	}
	return map[string]bool{"closed": true}, nil
}

func sessionDelete(c *call) (any, error) {
	id := c.p.String("session", true)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	if err := c.h.mgr.Delete(id); err != nil {
		return nil, err
	}
	return map[string]bool{"deleted": true}, nil
}

func sessionSubscribe(c *call) (any, error) {
	id := c.p.String("session", false)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	c.peer.Events().add(id)
	return map[string]any{"subscribed": subject(id)}, nil
}

func sessionUnsubscribe(c *call) (any, error) {
	id := c.p.String("session", false)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	c.peer.Events().remove(id)
	return map[string]any{"unsubscribed": subject(id)}, nil
}

func subject(id string) string {
	if id == "" {
		return "*"
	}
	return id
}
