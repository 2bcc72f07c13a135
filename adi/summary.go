package adi

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adi-bridge/adi/internal/faces"
)

// FrameSummary is one invocation as shown to agents and programs: its fid, caller, arguments and
// outcome, plus the forms an agent can type to address it again.
type FrameSummary struct {
	FID       string     `json:"fid"`
	Frame     int        `json:"frame"` // index in T
	Caller    string     `json:"caller,omitempty"`
	CallLine  int        `json:"call_line,omitempty"`
	File      string     `json:"file"`
	Line      int        `json:"line"`
	Args      []Arg      `json:"args"`
	Status    Status     `json:"status"`
	Return    string     `json:"return,omitempty"`
	Exception *Exception `json:"exception,omitempty"`
	Yields    int        `json:"yields,omitempty"`
	// LastYield is the repr of the value a generator yielded last, when the recording has it.
	LastYield string `json:"last_yield,omitempty"`
	// Kind is what the invocation is when not a plain function's: "generator", "coroutine",
	// "async generator" or "class" (a class body, whose Return reads "class NAME").
	Kind string `json:"kind,omitempty"`
	// Target is "file:qualname#N", the peer tool's frame target.
	Target string `json:"target"`
	// LineTarget is "file:line#N" (line = the def line); empty when that line would resolve to
	// another function.
	LineTarget string `json:"line_target,omitempty"`
	// Running marks an Unfinished invocation of a live recording (Trace.Live): it had not
	// returned when the recording was read, and the program runs on.
	Running bool `json:"running,omitempty"`
	// Thread names the thread the invocation ran in when it is not the program's first thread
	// (a worker of a thread pool, say); "" for the first.
	Thread string `json:"thread,omitempty"`

	callerRef string // how the text names the caller (Trace.Ref)
}

// FrameSummary returns T[j] as a FrameSummary; j must be a valid index.
func (t *Trace) FrameSummary(j int) FrameSummary {
	f := &t.Frames[j]
	s := FrameSummary{
		FID: f.FID().String(), Frame: j, CallLine: int(f.CallLine), File: f.File, Line: int(f.Line),
		Args: f.Args, Status: f.Status, Return: f.Return, Exception: f.Exception, Yields: t.Yields(j),
		LastYield: t.LastYield(j), Kind: f.Code.Kind.String(),
		Target:  f.File + ":" + ShortName(f.FID().Func) + "#" + strconv.Itoa(f.FID().Index),
		Running: t.Live && f.Status == Unfinished,
		Thread:  t.ThreadName(j),
	}
	if s.Args == nil {
		s.Args = []Arg{}
	}
	if c := t.Frame(int(f.Caller)); c != nil {
		s.Caller, s.callerRef = c.FID().String(), t.Ref(c.FID())
	}
	if !t.sharedLine[f.Func] && t.funcStart != nil { // FILE:LINE#N names this frame (ResolveFrame)
		s.LineTarget = f.File + ":" + strconv.Itoa(int(f.Line)) + "#" + strconv.Itoa(f.FID().Index)
	}
	return s
}

// callerText is the caller part of a frame header: "caller t:main#1, line 9" or "entry frame".
func (s FrameSummary) callerText() string {
	if s.Caller == "" && s.Thread != "" {
		return "entry frame, thread " + s.Thread
	}
	if s.Caller == "" {
		return "entry frame"
	}
	return fmt.Sprintf("caller %s, line %d", refOr(s.callerRef, s.Caller), s.CallLine)
}

// Coverage says how complete the recording behind a result is.
type Coverage struct {
	// Partial is set when the run ended before the probe finished its record.
	Partial bool `json:"partial,omitempty"`
	// Unrecorded counts calls made after a recording limit was reached.
	Unrecorded int `json:"unrecorded,omitempty"`
	// Limit names the recording limit that was reached, if any.
	Limit string `json:"limit,omitempty"`
	// TimeLimitMS is set when the run was stopped at its wall-clock time limit (that limit, in
	// milliseconds); Calls then says how many calls the recording holds.
	TimeLimitMS int64 `json:"time_limit_ms,omitempty"`
	Calls       int   `json:"calls,omitempty"`
	// Forks counts the times the run forked; the children's calls are not in the recording.
	// ForkedIn is the fid of the frame the first fork was made in ("" when none was recorded).
	Forks    int    `json:"forks,omitempty"`
	ForkedIn string `json:"forked_in,omitempty"`
}

// ThreadName is the name of the thread frame i ran in, when that is not the program's first
// thread (the probe numbers threads from 0 as it meets them: 0 runs the target); "" otherwise,
// and in a live recording, whose caught invocations are entry frames of whatever thread served
// them (a server's request threads).
func (t *Trace) ThreadName(i int) string {
	f := t.Frame(i)
	if t.Live || f == nil || f.Thread == 0 || int(f.Thread) >= len(t.Threads) {
		return ""
	}
	if name := t.Threads[f.Thread]; name != "" {
		return name
	}
	return "#" + strconv.Itoa(int(f.Thread))
}

// Coverage returns how complete T is.
func (t *Trace) Coverage() Coverage {
	c := Coverage{Partial: t.Partial && !t.Live, Unrecorded: t.Unrecorded, Limit: t.Limit, TimeLimitMS: t.TimeLimitMS}
	if c.TimeLimitMS > 0 {
		c.Calls = t.Len()
	}
	if t.Forks > 0 {
		c.Forks, c.ForkedIn = t.Forks, t.forkedInFID()
	}
	return c
}

// forkedInFID is the fid of the frame the run first forked in, "" when none was recorded.
func (t *Trace) forkedInFID() string {
	if f := t.Frame(int(t.ForkedIn)); f != nil {
		return f.FID().String()
	}
	return ""
}

// ForkNote says that the run forked forks times, the first in frame fid (if known), and that
// the children's calls are not recorded.
func ForkNote(forks int, fid string) string {
	where := ""
	if fid != "" {
		where = " (the first in " + fid + ")"
	}
	times := "once"
	if forks > 1 {
		times = strconv.Itoa(forks) + " times"
	}
	return fmt.Sprintf("the program forked %s%s; adi records this process only, so calls made in a forked child "+
		"are not in the recording.", times, where)
}

// Incomplete reports whether calls of the run may be missing from the recording.
func (c Coverage) Incomplete() bool {
	return c.Partial || c.Unrecorded > 0 || c.Limit != "" || c.TimeLimitMS > 0
}

// TimeLimitNote says that a run was stopped at its time limit of limitMS milliseconds after
// recording calls calls, and how to raise the limit.
func TimeLimitNote(limitMS int64, calls int) string {
	plural := "s"
	if calls == 1 {
		plural = ""
	}
	secs := strconv.FormatFloat(float64(limitMS)/1000, 'f', -1, 64)
	return fmt.Sprintf("the run was stopped after its %s s time limit; the recording ends there (%d call%s). "+
		"To record further, raise the limit: %s.",
		secs, calls, plural, faces.Param("session.create", "timeout_ms"))
}

// notes are the header lines that tell an agent what the recording lacks.
func (c Coverage) notes() []string {
	var out []string
	if c.TimeLimitMS > 0 {
		out = append(out, "Note: "+TimeLimitNote(c.TimeLimitMS, c.Calls))
	}
	if c.Forks > 0 {
		out = append(out, "Note: "+ForkNote(c.Forks, c.ForkedIn))
	}
	if c.Partial {
		out = append(out, "Note: the recording is partial: the run ended before the probe finished, so calls near its end may be missing or unfinished.")
	}
	if c.Limit != "" || c.Unrecorded > 0 {
		limit := c.Limit
		if limit == "" {
			limit = "a recording"
		}
		out = append(out, fmt.Sprintf("Note: recording stopped at the %s limit; %d later call(s) are not in the recording.", limit, c.Unrecorded))
	}
	return out
}

// flat puts a value on one line: newlines (as in numpy's multi-line reprs) become "\n".
func flat(v string) string { return strings.ReplaceAll(v, "\n", `\n`) }

// short cuts v to limit characters (limit 0 means no limit), marking the cut with "…". The
// " (len=300)" the probe writes after a container it cut says how big it is: it is kept.
func short(v string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(v) <= limit {
		return v
	}
	r := []rune(v)
	if i := strings.LastIndex(v, " (len="); i > 0 && strings.HasSuffix(v, ")") && allDigits(v[i+6:len(v)-1]) {
		if size := []rune(v[i:]); len(size) < limit/2 {
			return string(r[:limit-1-len(size)]) + "…" + string(size)
		}
	}
	return string(r[:limit-1]) + "…"
}

// val renders a value for text output at detail d.
func (d detail) val(v string) string { return short(flat(v), d.valueLimit) }

// pair renders an old and a new value for text output at detail d: when either is cut and what
// is kept of them would read the same, both keep a window around their first difference
// ("…x', _mhash=5…" against "…y', _mhash=5…").
func (d detail) pair(old, nw string) (string, string) {
	o, n := flat(old), flat(nw)
	so, sn := short(o, d.valueLimit), short(n, d.valueLimit)
	if so != sn || o == n {
		return so, sn
	}
	ro, rn := []rune(o), []rune(n)
	i := 0
	for i < len(ro) && i < len(rn) && ro[i] == rn[i] {
		i++
	}
	return window(ro, i, d.valueLimit), window(rn, i, d.valueLimit)
}

// window cuts r to about limit characters around index at: a quarter of them before it, "…"
// on each side that was cut.
func window(r []rune, at, limit int) string {
	if len(r) <= limit {
		return string(r)
	}
	start := max(at-limit/4, 0)
	end := min(start+limit-2, len(r))
	if end == len(r) {
		start = max(end-(limit-2), 0)
	}
	out := string(r[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(r) {
		out += "…"
	}
	return out
}

// argsText renders arguments as "x = 1, y = 2" ("(none)" when there are none).
func (d detail) argsText(args []Arg) string {
	if len(args) == 0 {
		return "(none)"
	}
	parts := make([]string, len(args))
	for i, a := range args {
		if i == 0 && isSelf(a) && (d.valueLimit == 0 || d.valueLimit > argsSelf) {
			parts[i] = a.Name + " = " + short(flat(a.Value), argsSelf)
			continue
		}
		parts[i] = a.Name + " = " + d.val(a.Value)
	}
	return strings.Join(parts, ", ")
}

// argsSelf bounds a method's self (cls) among a frame's arguments: its class is in the frame's
// name, and its state, which exec shows whole, is seldom what the reader looks for first.
const argsSelf = 60

// sigArgs renders arguments signature-style: "x=1, y=2".
func (d detail) sigArgs(args []Arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.Name + "=" + d.val(a.Value)
	}
	return strings.Join(parts, ", ")
}

// treeSelf is the longest value of a method's self (cls) a call tree shows: a longer one (a
// library object's state) is named without its value, which the FLT shows.
const treeSelf = 32

// treeArgs renders a call tree node's arguments: sigArgs, with a method's self (cls) named
// without its value when that is long or was not rendered ("<RcParams, not rendered>": its class
// is in the function's name).
func (d detail) treeArgs(args []Arg) string {
	if len(args) > 0 && isSelf(args[0]) && (len(flat(args[0].Value)) > treeSelf || strings.HasSuffix(args[0].Value, ", not rendered>")) {
		if len(args) == 1 {
			return args[0].Name
		}
		return short(args[0].Name+", "+d.sigArgs(args[1:]), treeArgsLimit)
	}
	return short(d.sigArgs(args), treeArgsLimit)
}

// isSelf reports whether a, a frame's first argument, is a method's self (a classmethod's cls).
func isSelf(a Arg) bool { return a.Name == "self" || a.Name == "cls" }

// refOr is ref, how the text names a frame (Trace.Ref), or fid where a result was built without it.
func refOr(ref, fid string) string {
	if ref != "" {
		return ref
	}
	return fid
}

// treeArgsLimit bounds a call tree node's arguments as a whole (a constructor's twenty keyword
// arguments), in characters.
const treeArgsLimit = 80

// outcome renders how an invocation ended: its return value, "raised T: msg", "(unfinished)" or,
// for a generator or coroutine that never ran, "not started".
func (d detail) outcome(st Status, ret string, exc *Exception) string {
	switch st {
	case Raised:
		if exc == nil {
			return "raised (exception unknown)"
		}
		if exc.Closes() {
			return closedText("closed", exc)
		}
		return "raised " + d.val(exc.String())
	case Returned:
		return d.val(ret)
	case NotStarted:
		return "not started"
	default:
		return "(unfinished)"
	}
}

// Yielded is what a generator invocation yielded, for the texts that show how it ended: its kind
// (CodeKind.String), how often it suspended and the repr of the value it yielded last ("" when
// not recorded).
type Yielded struct {
	Kind  string
	Count int
	Last  string
}

// frameOutcome renders how an invocation ended (outcome), saying for a generator what it yielded
// rather than the None it returned: "yielded 3 (last 7)", "yielded nothing", "yielded 2 (last
// 'b'), then raised ValueError: bad", "yielded 1 (last 0), then closed (GeneratorExit) at line
// 4", "yielded 2 (last 1), unfinished"; a value it returned besides is added (", returned 5").
func (d detail) frameOutcome(st Status, ret string, exc *Exception, y Yielded) string {
	out := d.outcome(st, ret, exc)
	if (y.Kind != "generator" && y.Kind != "async generator") || st == NotStarted {
		return out
	}
	text := "yielded nothing"
	if y.Count > 0 {
		text = "yielded " + strconv.Itoa(y.Count)
		if y.Last != "" && y.Last != NotRecorded {
			text += " (last " + d.val(y.Last) + ")"
		}
	}
	switch {
	case st == Returned && (ret == "None" || ret == ""):
		return text
	case st == Returned:
		return text + ", returned " + out
	case y.Count == 0:
		return out
	case st == Raised:
		return text + ", then " + out
	default:
		return text + ", unfinished"
	}
}

// closedText says that a generator or coroutine was closed, "closed (GeneratorExit) at line 9",
// starting with word.
func closedText(word string, exc *Exception) string {
	out := word + " (" + exc.String() + ")"
	if exc.Line > 0 {
		out += fmt.Sprintf(" at line %d", exc.Line)
	}
	return out
}
