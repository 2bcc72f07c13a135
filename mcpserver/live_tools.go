package mcpserver

import (
	"encoding/json"
	"errors"
)

// The live tools: live mode (a paused, real Python process under debugpy) as MCP tools. Each is
// a call of the live.* method of the same name through server.Handler, like the adi tools; the
// live session used last is the default for the next live tool.

type liveIn struct {
	Live string `json:"live,omitempty" jsonschema:"the live session id live_start returned; default: the live session used last"`
}

type liveStartIn struct {
	Command        string            `json:"command" jsonschema:"the Python command to debug live, as you would type it: 'python t.py', 'python -m pytest tests/test_x.py::test_y -q', 'python sol.py < input.txt' (the program's standard input is that file, or empty)"`
	Dir            string            `json:"dir,omitempty" jsonschema:"working directory of the command (default: the server's)"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables for the command"`
	TimeoutSeconds flexInt           `json:"timeout_seconds,omitempty" jsonschema:"the watchdog's limit: a live_continue or live_interact that neither pauses nor finishes within it is paused and answered with where the program is (default 30); a whole number, also as a string (\"16\" is 16)"`
	ID             string            `json:"id,omitempty" jsonschema:"a name for the live session; an open live session of that name is ended and started over"`
}

type liveAttachIn struct {
	Address        string  `json:"address" jsonschema:"HOST:PORT of a Python program started with 'python -m debugpy --listen HOST:PORT prog.py' (optionally --wait-for-client), e.g. '127.0.0.1:5678'; only loopback unless allow_remote"`
	Dir            string  `json:"dir,omitempty" jsonschema:"directory that relative FILE:LINE breakpoints are read from (default: the server's)"`
	TimeoutSeconds flexInt `json:"timeout_seconds,omitempty" jsonschema:"the watchdog's limit: a live_continue that does not stop within it answers with where the program is (default 30); a whole number, also as a string (\"16\" is 16)"`
	ID             string  `json:"id,omitempty" jsonschema:"a name for the live session; an open live session of that name is ended and started over"`
	AllowRemote    bool    `json:"allow_remote,omitempty" jsonschema:"allow a HOST that is not loopback (debugpy runs any code its client sends, unencrypted)"`
}

type liveBreakIn struct {
	liveIn
	Location  string `json:"location" jsonschema:"FILE:LINE of a line with a statement, e.g. 'src/pricing.py:42' (relative to the command's directory); the line is about to run when the program stops there"`
	Condition string `json:"condition,omitempty" jsonschema:"stop only when this Python expression is true at that line, e.g. 'i == 3'"`
	Keep      bool   `json:"keep,omitempty" jsonschema:"keep the breakpoint after it is hit (by default it is removed at its first hit, so live_continue moves on)"`
}

type liveClearIn struct {
	liveIn
	Location string `json:"location,omitempty" jsonschema:"FILE:LINE of the breakpoint to remove; omit to remove all"`
}

type liveInteractIn struct {
	liveIn
	Code  string  `json:"code" jsonschema:"Python statements to run in the paused frame, with its local variables: 'print(total, items)' to inspect, 'rate = 0.1' to perturb (assignments persist and change what runs after live_continue); the value of a final expression is shown"`
	Frame flexInt `json:"frame,omitempty" jsonschema:"which frame to run in: 0 (default) is the innermost, 1 its caller, as the summary's stack numbers them; a whole number, also as a string (\"16\" is 16)"`
}

type liveContinueIn struct {
	liveIn
	Background bool `json:"background,omitempty" jsonschema:"return at once and let the program run on its own (state Running): watches record as it runs, a breakpoint stops it; a later live_continue waits for that stop"`
}

type liveWatchIn struct {
	liveIn
	Func      string  `json:"func" jsonschema:"the function to watch: its name (checkout), qualified name (Cart.checkout) or module:qualname (shop.cart:Cart.checkout)"`
	Condition string  `json:"condition,omitempty" jsonschema:"catch only the calls where this Python expression is true on entry, with the arguments, e.g. 'qty > 3'"`
	Max       flexInt `json:"max,omitempty" jsonschema:"stop watching after this many caught calls (default: no limit); a whole number, also as a string"`
}

type liveUnwatchIn struct {
	liveIn
	Func string `json:"func,omitempty" jsonschema:"the watched function to stop watching; omit to stop every watch (what was caught stays)"`
}

type liveFLTIn struct {
	liveIn
	Frame  string `json:"frame,omitempty" jsonschema:"a caught invocation, e.g. 'handle#2' (live_caught lists them); omit for the invocation the program is paused in, so far"`
	Finish bool   `json:"finish,omitempty" jsonschema:"let the program run until that invocation returns, then show its whole FLT"`
}

const liveLoop = " Live mode's loop: live_start → live_set_breakpoint FILE:LINE → live_continue (stops there) → live_interact to print values or change one → live_continue to see what happens downstream (e.g. the test now passes) → live_restart to try again from the start."

var liveTools = map[string]tool{
	"live_start":          {name: "live_start", method: "live.start", desc: "Launch a Python command under a real debugger (debugpy), stopped before its first line (state Start), for live debugging: pause at a line, look at and change variables, continue and see what happens next. Use it when the recorded view of adi_open is not enough: to test a hypothesis by changing a value at runtime. Every live tool answers with a summary: the state (Start, Runtime = paused at a breakpoint, RuntimeError = paused on an exception leaving your code, PostMortem = the program is ending by an uncaught exception, frames still inspectable, Done = ended), the stack, the breakpoints and the program's new output. A tool that is invalid in the state is refused with the reason and the valid ones." + liveLoop},
	"live_attach":         {name: "live_attach", method: "live.attach", desc: "Attach a live session to a Python program that is already running under debugpy's server ('python -m debugpy --listen 127.0.0.1:5678 app.py', e.g. a server in a container with the port forwarded to loopback), instead of launching one. The session starts in state Running: set breakpoints with live_set_breakpoint, then live_continue waits until the program stops at one; live_interact, live_stack and live_where work as in a launched session. live_restart is refused (adi did not start the program). live_close detaches and leaves the program running."},
	"live_set_breakpoint": {name: "live_set_breakpoint", method: "live.set_breakpoint", desc: "Add a breakpoint at FILE:LINE (optionally with a condition). It is removed once hit unless keep is true; live_restart sets every breakpoint again. In PostMortem or Done it applies from the next live_restart."},
	"live_clear":          {name: "live_clear", method: "live.clear", desc: "Remove the breakpoint at FILE:LINE, or every breakpoint when location is omitted."},
	"live_continue":       {name: "live_continue", method: "live.continue", desc: "Let the program run until it stops at a breakpoint (Runtime), stops on an exception (RuntimeError, then PostMortem if nothing catches it), or ends (Done: with its exit status and output, e.g. whether the tests passed). From Start it starts the program. A program that runs longer than the watchdog's limit is paused and the answer says where."},
	"live_restart":        {name: "live_restart", method: "live.restart", desc: "End the current run (every process of it) and launch the command afresh with the same breakpoints, stopped before its first line (Start). Use it to recover after a perturbation went wrong or the program ended; then live_continue."},
	"live_interact":       {name: "live_interact", method: "live.interact", desc: "Run Python statements in a frame of the paused program and return what they printed and the value of a final expression. Assignments persist: changing a variable here changes what the program does after live_continue. An exception in the code is reported and the program stays paused where it was. Valid in Runtime, RuntimeError and PostMortem."},
	"live_stack":          {name: "live_stack", method: "live.stack", desc: "Return every frame of the paused program (innermost last) with its current line and local variables."},
	"live_where":          {name: "live_where", method: "live.where", desc: "Return the line the paused program is at, with the source around it."},
	"live_status":         {name: "live_status", method: "live.status", desc: "Return the live session's summary (state, stack, breakpoints with hit counts, new output) without doing anything."},
	"live_watch":          {name: "live_watch", method: "live.watch", desc: "Record the FLT (arguments, every statement with its variable changes, the calls it made, the result) of every following invocation of a function as the program runs, without pausing it: for servers, workers and programs that cannot be re-run. Then live_continue with background true lets it run; live_caught lists what was caught; adi_flt, adi_call_tree, adi_diff, adi_break/adi_continue/adi_prev answer about the caught invocations with session = the live session id."},
	"live_unwatch":        {name: "live_unwatch", method: "live.unwatch", desc: "Stop watching a function (every function when func is omitted); what was caught stays readable."},
	"live_caught":         {name: "live_caught", method: "live.caught", desc: "List each watch with the invocations it caught so far (fids such as handle#1, handle#2), and which are still running."},
	"live_flt":            {name: "live_flt", method: "live.flt", desc: "Return the FLT of a caught invocation, or, with no frame, of the invocation the program is paused in so far (it must have started while a watch on its function was on); finish lets the program run until it returns and shows the whole FLT."},
	"live_close":          {name: "live_close", method: "live.close", desc: "End every process of a live session and forget it. Do it when done."},
}

func init() {
	for k, v := range liveTools {
		tools[k] = v
	}
}

// addLiveTools registers the live tools.
func (s *Server) addLiveTools() {
	addLiveTool[liveStartIn](s, "live_start")
	addLiveTool[liveAttachIn](s, "live_attach")
	addLiveTool[liveBreakIn](s, "live_set_breakpoint")
	addLiveTool[liveClearIn](s, "live_clear")
	addLiveTool[liveContinueIn](s, "live_continue")
	addLiveTool[liveWatchIn](s, "live_watch")
	addLiveTool[liveUnwatchIn](s, "live_unwatch")
	addLiveTool[liveIn](s, "live_caught")
	addLiveTool[liveFLTIn](s, "live_flt")
	addLiveTool[liveIn](s, "live_restart")
	addLiveTool[liveInteractIn](s, "live_interact")
	addLiveTool[liveIn](s, "live_stack")
	addLiveTool[liveIn](s, "live_where")
	addLiveTool[liveIn](s, "live_status")
	addLiveTool[liveIn](s, "live_close")
}

// addLiveTool registers a live tool: the last live session is the default.
func addLiveTool[In any](s *Server, name string) {
	t := tools[name]
	prep := func(params map[string]any) (string, error) { return t.method, s.liveParams(t.method, params) }
	addTool[In](s, name, prep, s.liveAnswer, false)
}

// liveAnswer returns a live answer's text and remembers its session as the default (forgets it
// when it was closed).
func (s *Server) liveAnswer(method string, _ map[string]any, raw json.RawMessage) string {
	var ans struct {
		Live string `json:"live"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &ans)
	s.mu.Lock()
	if method == "live.close" {
		if s.lastLive == ans.Live {
			s.lastLive = ""
		}
	} else {
		s.lastLive = ans.Live
	}
	s.mu.Unlock()
	return ans.Text
}

// liveParams turns a live tool's input into its method's params: the default live session, and
// live_start's seconds into milliseconds.
func (s *Server) liveParams(method string, params map[string]any) error {
	if method == "live.start" || method == "live.attach" {
		secondsToMS(params)
		if id, ok := params["id"].(string); ok && id != "" {
			params["replace"] = true
		}
		return nil
	}
	if params["live"] == nil || params["live"] == "" {
		s.mu.Lock()
		last := s.lastLive
		s.mu.Unlock()
		if last == "" {
			return errors.New("no live session yet: call live_start with the command to debug first")
		}
		params["live"] = last
	}
	return nil
}
