package server

import (
	"errors"
	"time"

	"github.com/adi-bridge/adi/live"
)

// The live.* methods drive live sessions (package live): a paused, real Python process under
// debugpy, with states, refusals and a summary in every answer. Each method only reads its params
// and calls live.Session.Do (live.Launch, live.Close and live.List for the rest: a live session is
// a session of the handler's bridge.Manager with a live part), so the CLI (over HTTP)
// and the MCP server (in-process) share this one implementation. Every answer is live.Answer:
// {live, command, text, result, state, why, run, stack, exception, breakpoints, exit_code,
// output, valid}.
func init() {
	register(
		&method{name: "live.start", usage: "{command, id?, replace?, dir?, env?, timeout_ms?, python?}",
			summary: "launch a command under debugpy, paused before its first line (state Start)", call: liveStart},
		&method{name: "live.attach", usage: "{address, id?, replace?, dir?, timeout_ms?, allow_remote?}",
			summary: "attach to a program started with python -m debugpy --listen HOST:PORT (state Running); close detaches and leaves it running", call: liveAttach},
		liveMethod("live.set_breakpoint", "{live, location, condition?, keep?}",
			"add a breakpoint at FILE:LINE (removed once hit unless keep)", func(p *params) live.Cmd {
				return live.Cmd{Name: live.CmdSetBreakpoint, Location: p.String("location", true),
					Condition: p.String("condition", false), Keep: p.Bool("keep")}
			}),
		liveMethod("live.clear", "{live, location?}", "remove the breakpoint at FILE:LINE (all without location)",
			func(p *params) live.Cmd { return live.Cmd{Name: live.CmdClear, Location: p.String("location", false)} }),
		liveMethod("live.continue", "{live, background?}", "run until the next stop, the end, or the watchdog's limit (background: return at once, the program running on)",
			func(p *params) live.Cmd { return live.Cmd{Name: live.CmdContinue, Background: p.Bool("background")} }),
		liveMethod("live.watch", "{live, func, condition?, max?}", "record the FLT of every following invocation of func as the program runs, without pausing it",
			func(p *params) live.Cmd {
				return live.Cmd{Name: live.CmdWatch, Func: p.String("func", true), Condition: p.String("condition", false), Max: p.Int("max", false, 1)}
			}),
		liveMethod("live.unwatch", "{live, func?}", "stop watching func (every function without it); what was caught stays",
			func(p *params) live.Cmd { return live.Cmd{Name: live.CmdUnwatch, Func: p.String("func", false)} }),
		liveMethod("live.flt", "{live, frame?, finish?}", "the FLT of a caught invocation, or of the paused one so far (finish: run on until it returns)",
			func(p *params) live.Cmd {
				return live.Cmd{Name: live.CmdFLT, Frame2: p.String("frame", false), Finish: p.Bool("finish")}
			}),
		liveMethod("live.caught", "{live}", "what each watch caught: the fids of the invocations, for every adi.* method with session = the live id",
			func(*params) live.Cmd { return live.Cmd{Name: live.CmdCaught} }),
		liveMethod("live.restart", "{live}", "end the run and launch a fresh one with the same breakpoints (state Start)",
			func(*params) live.Cmd { return live.Cmd{Name: live.CmdRestart} }),
		liveMethod("live.interact", "{live, code, frame?}", "run statements in a frame of the paused program (output captured, assignments kept)",
			func(p *params) live.Cmd {
				return live.Cmd{Name: live.CmdInteract, Code: p.String("code", true), Frame: p.Int("frame", false, 0)}
			}),
		liveMethod("live.stack", "{live}", "the paused program's frames with their local variables",
			func(*params) live.Cmd { return live.Cmd{Name: live.CmdStack} }),
		liveMethod("live.where", "{live}", "the current line with the source around it",
			func(*params) live.Cmd { return live.Cmd{Name: live.CmdWhere} }),
		liveMethod("live.status", "{live}", "the session's summary: state, stack, breakpoints, new output",
			func(*params) live.Cmd { return live.Cmd{Name: live.CmdStatus} }),
		liveMethod("live.close", "{live}", "end every process of a live session and forget it",
			func(*params) live.Cmd { return live.Cmd{Name: live.CmdClose} }),
		&method{name: "live.list", usage: "{}", summary: "list the open live sessions", call: liveList},
	)
}

// liveMethod returns a method that builds a command from its params and runs it on a live session.
func liveMethod(name, usage, summary string, build func(*params) live.Cmd) *method {
	m := &method{name: name, usage: usage, summary: summary}
	m.call = func(c *call) (any, error) {
		id := c.p.String("live", true)
		cmd := build(c.p)
		if err := c.p.done(); err != nil {
			return nil, err
		}
		if cmd.Name == live.CmdClose {
			ans, err := live.Close(c.h.mgr, id)
			return ans, liveError(err)
		}
		s, err := live.Of(c.h.mgr, id)
		if err != nil {
			return nil, liveError(err)
		}
		ans, err := s.Do(c.ctx, cmd)
		return ans, liveError(err)
	}
	return m
}

func liveStart(c *call) (any, error) {
	p := c.p
	opts := live.Options{Command: p.String("command", true), Dir: p.String("dir", false), Env: p.StringMap("env"),
		Timeout: time.Duration(p.Int("timeout_ms", false, 1)) * time.Millisecond, Python: p.String("python", false)}
	id, replace := p.String("id", false), p.Bool("replace")
	if err := p.done(); err != nil {
		return nil, err
	}
	if opts.Python == "" {
		opts.Python = c.h.python
	}
	_, ans, err := live.Launch(c.ctx, c.h.mgr, id, replace, opts)
	return ans, liveError(err)
}

// liveAttach attaches a live session to a debugpy server (live.Options.Attach).
func liveAttach(c *call) (any, error) {
	p := c.p
	opts := live.Options{Attach: p.String("address", true), Dir: p.String("dir", false),
		Timeout: time.Duration(p.Int("timeout_ms", false, 1)) * time.Millisecond, AllowRemote: p.Bool("allow_remote")}
	id, replace := p.String("id", false), p.Bool("replace")
	if err := p.done(); err != nil {
		return nil, err
	}
	_, ans, err := live.Launch(c.ctx, c.h.mgr, id, replace, opts)
	return ans, liveError(err)
}

func liveList(c *call) (any, error) {
	if err := c.p.done(); err != nil {
		return nil, err
	}
	return map[string]any{"live": live.List(c.h.mgr)}, nil
}

// liveError gives a refused command its code (-32006) and the valid commands in data.valid;
// other errors take their code from the sentinel they wrap (errorFrom).
func liveError(err error) error {
	var re *live.RefusedError
	if errors.As(err, &re) {
		e := newError(CodeRefused, "%s", re.Error())
		e.Data.Valid = re.Valid
		return e
	}
	return err
}
