package live

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/sessionid"
)

// A live session is a bridge.Session with a live part (bridge.Live): one registry, the
// bridge.Manager, names, finds, expires and closes every session, recorded or live, under one
// set of rules. The functions here are the live faces' way into it.

// Launch launches a new live session under id ("" for a fresh one), registers it in m and answers
// with its first summary. An open session of that id is an error unless replace is set: a live
// one is then closed first.
func Launch(ctx context.Context, m *bridge.Manager, id string, replace bool, opts Options) (*Session, *Answer, error) {
	if id == "" {
		id = bridge.NewLiveID()
	}
	if !sessionid.Valid(id) {
		return nil, nil, adi.BadInputf("live session id %q is not valid; use letters, digits, '-' and '_' (at most 64)", id)
	}
	if old := m.Open(id); old != nil {
		switch {
		case old.Live() == nil:
			return nil, nil, adi.BadInputf("session %s is a recorded session, not a live one; pick another id", id)
		case !replace:
			return nil, nil, adi.BadInputf("live session %s is already open; %s it, %s it, or pass %s to start it over", id, cmdMark(CmdClose), cmdMark(CmdRestart), faces.Param("live.start", "replace"))
		}
		_ = m.CloseWhy(id, "it was replaced by a new live session of that id")
	}
	bopts := bridge.Options{Command: opts.Command, Dir: opts.Dir, Env: opts.Env, Python: opts.Python}
	var prog *bridge.Program
	if opts.Attach != "" {
		if err := CheckAttachAddr(opts.Attach, opts.AllowRemote); err != nil {
			return nil, nil, err
		}
		dir, err := attachDir(opts.Dir)
		if err != nil {
			return nil, nil, err
		}
		prog = &bridge.Program{Dir: dir, Root: dir}
		bopts = bridge.Options{Command: "attach " + opts.Attach, Dir: dir}
	}
	var ls *Session
	_, err := m.StartLive(ctx, id, bopts, prog,
		func(rec *bridge.Session) (bridge.Live, error) {
			var err error
			ls, err = newSession(ctx, id, opts, rec)
			if err != nil {
				return nil, err
			}
			return ls, nil
		})
	if err != nil {
		return nil, nil, err
	}
	ls.mu.Lock()
	defer ls.mu.Unlock()
	text := fmt.Sprintf("Started `%s` under debugpy as live session %s (watchdog %s). No line has run yet: set breakpoints (%s) or watch functions (%s), then %s. Every answer ends with the session's summary.",
		ls.Command, id, seconds(ms(ls.opts.Timeout)), cmdMark(CmdSetBreakpoint)+" "+faces.Param("live.set_breakpoint", "location"),
		cmdMark(CmdWatch)+" "+faces.Param("live.watch", "func"), cmdMark(CmdContinue))
	if ls.attach != "" {
		text = ls.attachedText()
	}
	return ls, ls.answer("start", result{text: text}), nil
}

// Of returns the live part of the open session id; an id that is not open, or not live, is an
// error that says why.
func Of(m *bridge.Manager, id string) (*Session, error) {
	s := m.Open(id)
	if s == nil {
		if why, ok := m.Gone(id); ok {
			return nil, errNoSession(id, why)
		}
		return nil, errNoSession(id, "it was never started in this server")
	}
	ls, ok := s.Live().(*Session)
	if !ok {
		return nil, adi.BadInputf("session %s is a recorded session, not a live one; its commands are the ADI ones (%s, %s, ...)", id, faces.Cmd("adi.flt"), faces.Cmd("adi.call_tree"))
	}
	return ls, nil
}

// Close closes the live session id (every process of it ends; what its watches caught stays on
// disk) and answers with its last summary.
func Close(m *bridge.Manager, id string) (*Answer, error) {
	ls, err := Of(m, id)
	if err != nil {
		return nil, err
	}
	_ = m.Close(id) // bridge.Session.Close ends the live part
	return ls.closedAnswer(), nil
}

// Info describes an open live session for listings.
type Info struct {
	ID       string    `json:"id"`
	Command  string    `json:"command"`
	Dir      string    `json:"dir"`
	State    State     `json:"state"`
	Run      int       `json:"run"`
	Busy     bool      `json:"busy"`
	Caught   int       `json:"caught"` // invocations the watches caught in the current run
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
}

// List describes the open live sessions of m, oldest first. A session busy with a command shows
// the state it had before that command.
func List(m *bridge.Manager) []Info {
	out := []Info{}
	for _, s := range m.OpenSessions() {
		if ls, ok := s.Live().(*Session); ok {
			out = append(out, ls.info())
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Created.Before(out[b].Created) })
	return out
}

// Open counts the open live sessions of m.
func Open(m *bridge.Manager) int { return len(List(m)) }
