package server

import (
	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
)

// Every ADI method takes a session (and an optional text budget) and answers with
// bridge.Answer: {command, text, result, target_failed}. Each only builds an adi.Command from its
// params; bridge.Session.Do runs it.
func init() {
	register(
		adiMethod("adi.break", "{session, func, cond?, budget?}", "add a breakpoint (func#N also moves to that frame and shows its FLT)", true,
			func(p *params) adi.Command {
				r := p.Ref("func", true, false)
				cond := p.String("cond", false)
				if r == nil {
					return nil
				}
				return adi.BreakCmd{Func: *r, Cond: cond}
			}),
		adiMethod("adi.clear", "{session, func?, cond?, budget?}", "remove breakpoints (all when func is omitted)", false,
			func(p *params) adi.Command {
				r := p.Ref("func", false, false)
				cond := p.String("cond", false)
				if r == nil && cond != "" && p.err == nil {
					p.fail("param %s needs %s: both remove one conditional breakpoint", p.quoted("cond"), p.quoted("func"))
				}
				return adi.ClearCmd{Func: r, Cond: cond}
			}),
		adiMethod("adi.continue", "{session, budget?}", "move to the next invocation that matches a breakpoint and show its FLT", false,
			func(*params) adi.Command { return adi.ContinueCmd{} }),
		adiMethod("adi.prev", "{session, budget?}", "move to the previous invocation that matches a breakpoint and show its FLT", false,
			func(*params) adi.Command { return adi.PrevCmd{} }),
		adiMethod("adi.step_into", "{session, frame, budget?}", "move to one invocation (func#N) and show its FLT", false,
			func(p *params) adi.Command {
				r := p.Ref("frame", true, true)
				if r == nil {
					return nil
				}
				return adi.StepIntoCmd{Frame: *r}
			}),
		adiMethod("adi.step_out", "{session, budget?}", "move to the caller of the current frame and show its FLT", false,
			func(*params) adi.Command { return adi.StepOutCmd{} }),
		adiMethod("adi.call_tree", "{session, frame?, depth?, width?, budget?}", "show the calls below a frame (by default the current one; before any move, the whole run, tests first for a test target)", false,
			func(p *params) adi.Command {
				return adi.CallTreeCmd{Frame: p.Ref("frame", false, true),
					Options: adi.TreeOptions{Depth: p.Int("depth", false, 1), Width: p.Int("width", false, 1)}}
			}),
		adiMethod("adi.list_frames", "{session, func, caller?, limit?, budget?}", "list the invocations of a function with their args and returns", false,
			func(p *params) adi.Command {
				r := p.Ref("func", true, false)
				f := adi.FrameFilter{Caller: p.String("caller", false), Limit: p.Int("limit", false, 1)}
				if r == nil {
					return nil
				}
				return adi.ListFramesCmd{Func: *r, Filter: f}
			}),
		adiMethod("adi.diff", "{session, a, b, budget?}", "compare two invocations: args, return, path and values", false,
			func(p *params) adi.Command {
				a, b := p.Ref("a", true, true), p.Ref("b", true, true)
				if a == nil || b == nil {
					return nil
				}
				return adi.DiffCmd{A: *a, B: *b}
			}),
		adiMethod("adi.state", "{session, budget?}", "show the breakpoints and the frame under inspection", false,
			func(*params) adi.Command { return adi.StateCmd{} }),
		adiMethod("adi.list", "{session, budget?}", "list the breakpoints", false,
			func(*params) adi.Command { return adi.ListCmd{} }),
		adiMethod("adi.flt", "{session, frame?, budget?}", "show the FLT of a frame (the current one by default) without moving", false,
			func(p *params) adi.Command { return adi.FLTCmd{Frame: p.Ref("frame", false, true)} }),
		&method{name: "adi.execute", usage: "{session, frame, stmt, line?, visit?, then_continue?, timeout?, budget?}",
			summary: "re-run to a frame's line and run a statement there (then_continue: let the program run to its end and report the outcome; timeout: seconds the statement may run, default 10)", call: adiExecute},
		&method{name: "adi.run", usage: "{session, line, budget?}",
			summary: "run one command line as an agent types it, e.g. \"break t:f x > 3\"", call: adiRun},
	)
}

// adiMethod returns a method that builds a command from its params and runs it on the session.
func adiMethod(name, usage, summary string, frameOK bool, build func(*params) adi.Command) *method {
	m := &method{name: name, usage: usage, summary: summary, frameOK: frameOK}
	m.call = func(c *call) (any, error) {
		id := c.p.String("session", true)
		cmd := build(c.p)
		return c.do(id, cmd)
	}
	return m
}

// do checks the params and runs cmd on the session.
func (c *call) do(id string, cmd adi.Command) (*bridge.Answer, error) {
	budget := c.p.Int("budget", false, 1)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	return s.Do(c.ctx, cmd, adi.TextOptions{Budget: budget})
}

// adiExecute runs execute(fid, stmt, lineno, k); with then_continue the re-run program then runs
// on to its end and the result's downstream says how the frame and the program ended (bridge's
// exec --then-continue), so a fix hypothesis is checked without editing a file.
func adiExecute(c *call) (any, error) {
	p := c.p
	id := p.String("session", true)
	frame := p.Ref("frame", true, true)
	stmt := p.String("stmt", true)
	line, visit := p.Int("line", false, 1), p.Int("visit", false, 1)
	then := p.Bool("then_continue")
	timeout := p.Int("timeout", false, 1)
	if visit == 0 {
		visit = 1
	}
	var cmd adi.Command
	if frame != nil {
		cmd = adi.ExecCmd{Frame: *frame, Line: line, Visit: visit, Stmt: stmt, ThenContinue: then, Timeout: timeout}
	}
	return c.do(id, cmd)
}

func adiRun(c *call) (any, error) {
	id := c.p.String("session", true)
	line := c.p.String("line", true)
	var cmd adi.Command
	if c.p.err == nil {
		var err error
		if cmd, err = adi.ParseCommand(line); err != nil {
			c.p.badInput("%s", errorFrom(err).Message)
		}
	}
	return c.do(id, cmd)
}
