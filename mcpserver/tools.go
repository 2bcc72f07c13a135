package mcpserver

// The tools' inputs. Field names are the JSON-RPC params of the method each tool calls (docs/api.md),
// so an input is passed on as it is; the jsonschema tags are the descriptions a model reads.

type sessionIn struct {
	Session string  `json:"session,omitempty" jsonschema:"the session id adi_open returned; default: the session used last"`
	Budget  flexInt `json:"budget,omitempty" jsonschema:"size of the answer in tokens (default 2000); detail shrinks to fit; a whole number, also as a string (\"16\" is 16)"`
}

// viewIn says how an answer's FLT is shown (the CLI's --full-watch, --loop and --loop-index).
type viewIn struct {
	Watch     []string `json:"watch,omitempty" jsonschema:"show only these variables in the FLT (its arguments and the changes of lines), e.g. ['total', 'rate']"`
	Loop      int      `json:"loop,omitempty" jsonschema:"show the first N iterations of each loop in full and fold the others (default: the iterations that differ from their neighbours)"`
	LoopIndex flexInt  `json:"loop_index,omitempty" jsonschema:"'LINE:K' shows only iteration K (1-based) of the loop whose header is line LINE in full, e.g. '122:2'; a bare K, of every loop"`
}

// navIn is the input of the tools that move and show an FLT without a frame argument.
type navIn struct {
	sessionIn
	viewIn
}

type openIn struct {
	Command        string            `json:"command" jsonschema:"the Python command to debug, as you would type it: 'python t.py', 'python -m pytest tests/test_x.py::test_y -q', 'FOO=1 python -m pkg'"`
	Dir            string            `json:"dir,omitempty" jsonschema:"working directory of the command (default: the server's)"`
	Env            map[string]string `json:"env,omitempty" jsonschema:"extra environment variables for the command"`
	TimeoutSeconds flexInt           `json:"timeout_seconds,omitempty" jsonschema:"wall-clock limit of one run of the command (default 60); a whole number, also as a string (\"16\" is 16)"`
	Session        string            `json:"session,omitempty" jsonschema:"an id for the session; if a session of that id already recorded this command and the sources did not change, it is reused without running anything"`
	Focus          []string          `json:"focus,omitempty" jsonschema:"frames you will look at first (e.g. ['pkg/mod.py:func#2', 'mod:Class.method#1']): the recording run also records their FLTs, so looking at them needs no re-run"`
	Include        []string          `json:"include,omitempty" jsonschema:"library files (standard library, site-packages) to record like your own code, so you can break in them, e.g. ['/usr/lib/python3.11/json/encoder.py'] (the CLI's --allow-external)"`
}

type breakIn struct {
	sessionIn
	Func string `json:"func" jsonschema:"the function: name, module:qualname, file.py:Class.method or file.py:LINE; with #N (e.g. bulk_rate#3) it also moves to that invocation and shows its FLT"`
	Cond string `json:"cond,omitempty" jsonschema:"Python condition on the arguments, checked at entry (e.g. 'rate > 0'); mention _return or _exception to check it at exit"`
	When string `json:"when,omitempty" jsonschema:"when cond is checked: 'entry' (with the arguments) or 'exit' (with _return and _exception); default: at exit when cond mentions _return or _exception, else at entry"`
	Line int    `json:"line,omitempty" jsonschema:"check cond each time this line of the function starts, with its local variables then (to break mid-function, e.g. in a loop)"`
	viewIn
}

type clearIn struct {
	sessionIn
	Func string `json:"func,omitempty" jsonschema:"the function whose breakpoints to remove; omit to remove all"`
	Cond string `json:"cond,omitempty" jsonschema:"remove only the breakpoint with this condition"`
}

type frameIn struct {
	sessionIn
	Frame string `json:"frame" jsonschema:"one invocation, func#N as shown in call trees and FLTs (e.g. line_total#3 or orders:line_total#3)"`
	viewIn
}

type optFrameIn struct {
	sessionIn
	Frame string `json:"frame,omitempty" jsonschema:"one invocation, func#N; default: the frame under inspection"`
}

type fltIn struct {
	optFrameIn
	viewIn
}

type callTreeIn struct {
	optFrameIn
	Depth flexInt `json:"depth,omitempty" jsonschema:"levels of calls below the frame (default: 2); a whole number, also as a string (\"16\" is 16)"`
	Width flexInt `json:"width,omitempty" jsonschema:"children shown per call (default 10); a whole number, also as a string (\"16\" is 16)"`
}

type listFramesIn struct {
	sessionIn
	Func   string  `json:"func" jsonschema:"the function whose invocations to list (name, module:qualname or file.py:func)"`
	Caller string  `json:"caller,omitempty" jsonschema:"keep only invocations whose caller's fid or file contains this text"`
	Limit  flexInt `json:"limit,omitempty" jsonschema:"list at most this many (default 50); a whole number, also as a string (\"16\" is 16)"`
}

type diffIn struct {
	sessionIn
	A string `json:"a" jsonschema:"first invocation, func#N"`
	B string `json:"b" jsonschema:"second invocation, func#M (usually of the same function)"`
}

type execIn struct {
	sessionIn
	Frame        string  `json:"frame" jsonschema:"the invocation to stop in, func#N"`
	Stmt         string  `json:"stmt" jsonschema:"Python statement(s) to run there with the frame's locals, e.g. 'print(qty, qty >= LIMIT)'; an expression's value is shown"`
	Line         flexInt `json:"line,omitempty" jsonschema:"stop when the frame reaches this line (default: its last line, before it returns); a whole number, also as a string (\"16\" is 16)"`
	Visit        flexInt `json:"visit,omitempty" jsonschema:"which arrival at that line, for lines in loops (default 1); a whole number, also as a string (\"16\" is 16)"`
	ThenContinue bool    `json:"then_continue,omitempty" jsonschema:"afterwards let the program run on to its end and report the downstream outcome: how this frame ended (its return value or exception) and whether the program (e.g. a test) now passes; validates a fix hypothesis without editing a file"`
	Timeout      flexInt `json:"timeout,omitempty" jsonschema:"seconds the statement may run before it is stopped (default 10); a whole number, also as a string (\"16\" is 16)"`
}

type closeIn struct {
	Session string `json:"session,omitempty" jsonschema:"the session to close; default: the session used last"`
	Delete  bool   `json:"delete,omitempty" jsonschema:"also delete its recorded data from disk"`
}

type noIn struct{}

// tool describes one MCP tool and the JSON-RPC method it calls.
type tool struct {
	name, method, desc string
}

const loop = " The loop that works: adi_call_tree (see the calls and their returned values) → adi_break on a suspicious function (with a condition if only some calls matter: it shows the first matching invocation's FLT) → adi_continue (land on the next matching invocation and read its FLT) → adi_step_into a callee shown in the FLT → adi_exec to confirm a value."

var tools = map[string]tool{
	"adi_open":        {name: "adi_open", method: "session.create", desc: "Run a Python command once under adi and record every call it makes (a session). Returns the session id, how many calls were recorded, the exit status and the last lines of output. Call this first; every other adi tool works on the recording without running the program again (adi_exec and the first look at a frame re-run it quietly)." + loop},
	"adi_break":       {name: "adi_break", method: "adi.break", desc: "Add a breakpoint on a function, optionally with a condition on its arguments. With a condition that held, it moves to the first invocation where it held and returns its FLT; adi_continue moves to the next. Without a condition it returns which invocations match (e.g. 'Matches 3 invocation(s): orders:bulk_rate#1, orders:bulk_rate#2, orders:bulk_rate#3') and does not move; use adi_continue next. With func#N (the peer's form) it also moves to that invocation and returns its FLT."},
	"adi_continue":    {name: "adi_continue", method: "adi.continue", desc: "Move forward to the next invocation that matches a breakpoint and return its Frame Lifetime Trace (FLT): the arguments, every executed line in order with the variables it changed (+ new, ~ modified), the calls it made with their returns (→ func#N → value), and the return value or exception. If nothing matches further on, it stays and says so."},
	"adi_prev":        {name: "adi_prev", method: "adi.prev", desc: "Move back to the previous invocation that matches a breakpoint and return its FLT (the mirror of adi_continue)."},
	"adi_step_into":   {name: "adi_step_into", method: "adi.step_into", desc: "Move to one invocation, func#N (usually a callee shown in the current FLT as '→ func#N'), and return its FLT."},
	"adi_step_out":    {name: "adi_step_out", method: "adi.step_out", desc: "Move to the caller of the frame under inspection and return the caller's FLT."},
	"adi_call_tree":   {name: "adi_call_tree", method: "adi.call_tree", desc: "Return the tree of calls below a frame (default: the frame under inspection; before any move, the whole run: every entry frame, and for a pytest or unittest target first the tests with pass/fail, failing first), each line 'func#N(args) → return value'; the modules a frame imported are summed up in one line (call-tree 'module:<module>#1' shows one). Read-only. Start here: a wrong value in a return shows where to break. Frames may also be written as pytest node ids (tests/test_x.py::TestC::test_m)."},
	"adi_list_frames": {name: "adi_list_frames", method: "adi.list_frames", desc: "List the invocations of one function in call order, each with its arguments, return value, caller and a copyable target (func#N). Read-only. Use it to pick the invocation to step into when a function is called many times."},
	"adi_diff":        {name: "adi_diff", method: "adi.diff", desc: "Compare two invocations (typically a good one and a bad one of the same function): arguments, outcome, and the first lines where their paths or values differ. Read-only."},
	"adi_state":       {name: "adi_state", method: "adi.state", desc: "Return the breakpoints and which frame is under inspection (func#N, its index, how many calls were recorded). Read-only."},
	"adi_flt":         {name: "adi_flt", method: "adi.flt", desc: "Return the FLT of a frame without moving (default: the frame under inspection). Read-only."},
	"adi_exec":        {name: "adi_exec", method: "adi.execute", desc: "Re-run the program to one invocation, stop at a line of it (default: its last line), run a Python statement there with its local variables, and return what it printed and the value of an expression. Read-only: the source and the recording do not change. Use it to confirm a hypothesis, e.g. stmt 'qty, BULK_QUANTITY, qty > BULK_QUANTITY'."},
	"adi_clear":       {name: "adi_clear", method: "adi.clear", desc: "Remove breakpoints: those of one function (and condition), or all when func is omitted. Returns what was removed and what is left."},
	"adi_list":        {name: "adi_list", method: "adi.list", desc: "List the breakpoints of a session."},
	"adi_sessions":    {name: "adi_sessions", method: "session.list", desc: "List the sessions: id, command, calls recorded, frame under inspection, and whether each is open or only on disk."},
	"adi_close":       {name: "adi_close", method: "session.close", desc: "Close a session: its processes end; its recording stays on disk unless delete is true. Do it when done with a program."},
}
