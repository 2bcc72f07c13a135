package server

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/adi-bridge/adi/adi"
)

// Every ADI method takes a session (and an optional text budget) and answers with
// bridge.Answer: {command, text, result, target_failed}. Each only builds an adi.Command from its
// params; bridge.Session.Do runs it.
func init() {
	register(
		adiMethod("adi.break", "{session, func, cond?, when?, line?, budget?, "+viewParams+"}", "add a breakpoint; cond is checked at entry, or at exit when it mentions _return or _exception, or when: \"entry\" or \"exit\" says, or each time line starts (func#N also moves to that frame and shows its FLT; a cond that held, to the first invocation where it held)", true,
			func(p *params) adi.Command {
				r := p.Ref("func", true, false)
				cond := p.String("cond", false)
				when, line := p.String("when", false), p.Int("line", false, 1)
				if r == nil {
					return nil
				}
				return adi.BreakCmd{Func: *r, Cond: cond, When: adi.CondAt(when), Line: line}
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
		adiMethod("adi.continue", "{session, budget?, "+viewParams+"}", "move to the next invocation that matches a breakpoint and show its FLT", false,
			func(*params) adi.Command { return adi.ContinueCmd{} }),
		adiMethod("adi.prev", "{session, budget?, "+viewParams+"}", "move to the previous invocation that matches a breakpoint and show its FLT", false,
			func(*params) adi.Command { return adi.PrevCmd{} }),
		adiMethod("adi.step_into", "{session, frame, budget?, "+viewParams+"}", "move to one invocation (func#N) and show its FLT", false,
			func(p *params) adi.Command {
				r := p.Ref("frame", true, true)
				if r == nil {
					return nil
				}
				return adi.StepIntoCmd{Frame: *r}
			}),
		adiMethod("adi.step_out", "{session, budget?, "+viewParams+"}", "move to the caller of the current frame and show its FLT", false,
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
		adiMethod("adi.flt", "{session, frame?, budget?, "+viewParams+"}", "show the FLT of a frame (the current one by default) without moving", false,
			func(p *params) adi.Command { return adi.FLTCmd{Frame: p.Ref("frame", false, true)} }),
		&method{name: "adi.execute", usage: "{session, frame, stmt, line?, visit?, then_continue?, timeout?, budget?}", answers: true,
			summary: "re-run to a frame's line and run a statement there (then_continue: let the program run to its end and report the outcome; timeout: seconds the statement may run, default 10)", call: adiExecute},
		&method{name: "adi.run", usage: "{session, line, budget?}", answers: true,
			summary: "run one command line as an agent types it, e.g. \"break t:f x > 3\"", call: adiRun},
	)
}

// adiMethod returns a method that builds a command from its params and runs it on the session.
func adiMethod(name, usage, summary string, frameOK bool, build func(*params) adi.Command) *method {
	m := &method{name: name, usage: usage, summary: summary, frameOK: frameOK, answers: true}
	m.call = func(c *call) (any, error) {
		id := c.p.String("session", true)
		cmd := build(c.p)
		return c.do(id, cmd)
	}
	return m
}

// viewParams are the params of the methods whose answer shows an FLT: how it is shown (the CLI's
// --full-watch, --loop and --loop-index) and which of its steps the result carries (steps: a
// page of τ, for programs that read a long FLT in parts).
const viewParams = "watch?, loop?, loop_index?, steps?"

// TextOnlyParam is the param with which a client of an ADI method asks for the answer's text
// alone: {command, text, target_failed, notes?} without result, which the daemon then does not
// encode (an FLT's result is several times its text). The CLI sends it unless --json.
const TextOnlyParam = "text_only"

// TextAnswer is an ADI method's answer when the call set TextOnlyParam: bridge.Answer without
// its result.
type TextAnswer struct {
	Command      string   `json:"command"`
	Text         string   `json:"text"`
	TargetFailed bool     `json:"target_failed"`
	Notes        []string `json:"notes,omitempty"`
}

// do checks the params and runs cmd on the session. The answer is a *bridge.Answer, or a
// *TextAnswer when the call set TextOnlyParam.
func (c *call) do(id string, cmd adi.Command) (any, error) {
	o := adi.TextOptions{Budget: c.p.Int("budget", false, 1)}
	textOnly := c.p.Bool(TextOnlyParam)
	var page *adi.StepsQuery
	if strings.Contains(c.p.m.usage, viewParams) {
		page = c.stepsQuery()
		for _, w := range c.p.Strings("watch") {
			for _, name := range strings.Split(w, ",") {
				if name = strings.TrimSpace(name); name != "" {
					o.Watch = append(o.Watch, name)
				}
			}
		}
		o.Loop = c.p.Int("loop", false, 1)
		o.LoopLine, o.LoopIndex = c.p.LoopIndex("loop_index")
		if o.Loop > 0 && o.LoopIndex > 0 && c.p.err == nil {
			c.p.badInput("give loop or loop_index, not both: loop shows the first iterations, loop_index one of them")
		}
	}
	if err := c.p.done(); err != nil {
		return nil, err
	}
	s, err := c.session(id)
	if err != nil {
		return nil, err
	}
	ans, err := s.Do(c.ctx, cmd, o)
	switch {
	case err != nil:
		return nil, err
	case textOnly:
		return &TextAnswer{Command: ans.Command, Text: ans.Text, TargetFailed: ans.TargetFailed, Notes: ans.Notes}, nil
	case page == nil:
		return ans, nil
	}
	switch r := ans.Result.(type) {
	case *adi.FLTView:
		err = r.Cut(*page)
	case *adi.NavResult:
		err = r.FLT.Cut(*page)
	}
	return ans, err
}

// stepsQuery reads the steps param: {offset?, limit?, iterations?: {HEADER: N}} (nil when absent).
func (c *call) stepsQuery() *adi.StepsQuery {
	raw := c.p.raw("steps", false)
	if raw == nil || c.p.err != nil {
		return nil
	}
	var q struct {
		Offset     int             `json:"offset"`
		Limit      int             `json:"limit"`
		Iterations *map[string]int `json:"iterations"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&q); err != nil {
		c.p.badInput("param %s is {offset?, limit?, iterations?: {HEADER: N}} (a loop's header line and the iteration wanted): %v", c.p.quoted("steps"), err)
		return nil
	}
	out := &adi.StepsQuery{Offset: q.Offset, Limit: q.Limit, ByIteration: q.Iterations != nil, Iterations: map[int]int{}}
	if q.Iterations != nil {
		for k, n := range *q.Iterations {
			line, err := strconv.Atoi(k)
			if err != nil {
				c.p.badInput("param %s: iterations are keyed by a loop's header line, not %q", c.p.quoted("steps"), k)
				return nil
			}
			out.Iterations[line] = n
		}
	}
	return out
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
