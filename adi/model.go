// Package adi is the pure model of the Agent-centric Debugging Interface: frame ids, the call
// sequence T, Frame Lifetime Traces, the session state Σ = (B, T, i), the commands as state
// transitions, and their renderings for language models (text) and programs (JSON).
//
// It does no I/O and starts no goroutines: everything that runs Python lives in package bridge,
// which hands this package finished recordings and condition results. docs/semantics.md states
// the semantics implemented here.
package adi

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// FID identifies one invocation of one function: the Index-th call (1-based) of Func, where Func
// is the fully qualified name "module:qualname" (for example "pkg.mod:Class.method").
type FID struct {
	Func  string `json:"func"`
	Index int    `json:"index"`
}

// String writes the fid the way agents type it: "func#index".
func (f FID) String() string { return f.Func + "#" + strconv.Itoa(f.Index) }

// ShortFunc is the qualname part of Func (after the module), as shown in compact listings.
func (f FID) ShortFunc() string { return ShortName(f.Func) }

// ShortName returns the qualname part of a "module:qualname" function name.
func ShortName(fn string) string {
	if i := strings.LastIndexByte(fn, ':'); i >= 0 {
		return fn[i+1:]
	}
	return fn
}

// Arg is one parameter of an invocation and the bounded repr of its value at entry.
type Arg struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Exception describes an exception: its type, message, and the line of the frame it was raised
// in or propagated through (0 when unknown).
type Exception struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
}

// Closes reports whether the exception is the GeneratorExit that closing a generator or coroutine
// throws in at its yield (close(), garbage collection, the interpreter's exit): the invocation was
// closed, not failed.
func (e *Exception) Closes() bool { return e != nil && e.Type == "GeneratorExit" }

// String renders the exception the way Python prints its last traceback line.
func (e *Exception) String() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// Status says how an invocation ended. It is one byte in a Frame, and reads and writes as its
// name ("returned", "raised", "unfinished", "not started"; the zero Status is "") in JSON and text.
type Status uint8

// The ways an invocation can end.
const (
	Returned   Status = iota + 1 // it returned Frame.Return
	Raised                       // an exception escaped it (Frame.Exception)
	Unfinished                   // the run ended (or was cut) while it was active or suspended
	NotStarted                   // a generator or coroutine created (and numbered) but never run
)

var statusNames = [...]string{"", "returned", "raised", "unfinished", "not started"}

// String returns the status's name.
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the status's name (encoding/json quotes it).
func (s Status) MarshalText() ([]byte, error) {
	if int(s) >= len(statusNames) {
		return nil, fmt.Errorf("invalid status %d", s)
	}
	return []byte(statusNames[s]), nil
}

// UnmarshalText reads a status's name.
func (s *Status) UnmarshalText(b []byte) error {
	for i, name := range statusNames {
		if string(b) == name {
			*s = Status(i)
			return nil
		}
	}
	return fmt.Errorf("unknown status %q", b)
}

// Frame is one entry of the call sequence T: one invocation with its caller, arguments and
// outcome. Frames are identified inside a Trace by their index, their position in T, which the
// frame does not hold (T[i] is the frame of index i); the frames T[i] called are Trace.Callees(i).
//
// A trace holds one Frame per call of user code (hundreds of thousands in a big run), so a Frame
// is kept small: what every invocation of a function shares (its file and first line) is one
// *Code, held by the *Arguments that the function's invocations with the same arguments share,
// what those with the same outcome share is one *Outcome, its small numbers are int32 and its
// fields are ordered so that none is padded (32 bytes on 64-bit machines). What can be found
// elsewhere is not in it: its function's name is in its Code, its index is where it is in T,
// its depth is the length of its caller chain (Trace.Depth), and how often a generator suspended
// is kept by the trace for the few frames that did (Trace.Yields). API answers write a frame as a FrameJSON
// (Trace.FrameJSON), whose fields are in the order the API documents.
type Frame struct {
	// Arguments are the invocation's arguments and its function's definition (Arguments.Code):
	// Frame.Args, Frame.ArgsFP, Frame.Code, Frame.Func, Frame.File and Frame.Line read them.
	// Invocations of one function with the same ones may share them, so they are never written
	// once in a trace (a frame given other values gets other Arguments, with its Code); never nil
	// in a trace that was indexed.
	*Arguments
	// Outcome is what the invocation returned or raised: Frame.Return and Frame.Exception read
	// it. Frames with the same one may share it (most return None, True or a small int), so it
	// is never written once in a trace: a frame given another outcome gets another Outcome.
	// Never nil in a trace that was indexed.
	*Outcome
	N        int32 // which call of its function this is (1 for the first): the index of its fid
	Caller   int32 // index of the calling frame in T, -1 for an entry frame
	CallLine int32 // line of the caller that made the call, 0 if none
	Thread   uint16
	Status   Status
}

// Outcome is how an invocation ended: the repr of the value it returned (Status Returned), or
// the exception that escaped it (Status Raised); neither for the other statuses.
type Outcome struct {
	Return    string
	Exception *Exception
}

// Returning is the Outcome of a frame that returned the value whose repr is ret.
func Returning(ret string) *Outcome { return &Outcome{Return: ret} }

// Raising is the Outcome of a frame that an exception escaped.
func Raising(e *Exception) *Outcome { return &Outcome{Exception: e} }

// NoOutcome is the Outcome of a frame that neither returned nor raised (unfinished, not started).
var NoOutcome = &Outcome{}

// FID returns the frame's fid: its function (Code.Func) and which call of it the frame is (N).
// The function's name lives in the Code its frames share, so a frame does not carry it.
func (f *Frame) FID() FID {
	if f.Arguments == nil || f.Code == nil {
		return FID{Index: int(f.N)}
	}
	return FID{Func: f.Func, Index: int(f.N)}
}

// Code is what every invocation of one function shares: its name (the func of its fids) and
// where it is defined.
type Code struct {
	Func string
	File string
	Line int32    // first line of the function's definition
	Kind CodeKind // what an invocation of it is
}

// CodeKind is what an invocation of a Code is. It is a byte, not its name, so that a Code takes
// 40 bytes rather than 56: a recording holds one for every function it saw called (django's
// first run: 1,162).
type CodeKind uint8

// The kinds of Code: a function or a module's body, a generator, a coroutine, an async
// generator, a class body.
const (
	PlainCode CodeKind = iota
	GeneratorCode
	CoroutineCode
	AsyncGeneratorCode
	ClassCode
)

// codeKindNames are the kinds' names, as the probe writes them and FrameSummary.Kind shows them.
var codeKindNames = [...]string{PlainCode: "", GeneratorCode: "generator", CoroutineCode: "coroutine",
	AsyncGeneratorCode: "async generator", ClassCode: "class"}

// String returns the kind's name: "" for a function or a module's body, "generator",
// "coroutine", "async generator" or "class".
func (k CodeKind) String() string {
	if int(k) < len(codeKindNames) {
		return codeKindNames[k]
	}
	return ""
}

// ParseCodeKind returns the kind named s (CodeKind.String); a name it does not know is a plain
// function's.
func ParseCodeKind(s string) CodeKind {
	for k, name := range codeKindNames {
		if name == s {
			return CodeKind(k)
		}
	}
	return PlainCode
}

// Arguments are an invocation's arguments: their bounded reprs, and the fingerprint of their
// values that tells whether a re-run made the same call (empty when unknown); and the invoked
// function's Code.
type Arguments struct {
	// Code is the invoked function's definition: every invocation of one function shares it,
	// and so do its frames' Arguments. It lives here rather than in the Frame, a pointer less in
	// each of T's hundreds of thousands of frames (32 bytes instead of 40), since a list of
	// argument values is always one function's. Never nil in a trace that was indexed.
	*Code
	Args   []Arg
	ArgsFP string
}

// A first run of a big program records most calls bare (the bridge's first runs, past their first
// 20,000 calls: a call deeper than three frames whose caller is not stepped): their fid, caller
// and outcome, but not their values, fingerprint or caller line, which no answer shows until
// asked for. Such a frame's ArgsFP is BareFP and its values read NotRecorded (its CallLine is 0);
// once a later run has recorded them (a values run, or the re-run of an FLT that shows them), the
// frame holds them and its ArgsFP is FilledFP. Neither fingerprint is compared by a replay check.
const (
	BareFP      = "~bare"
	FilledFP    = "~filled"
	NotRecorded = "<not recorded>"
)

// ImportFP is the fingerprint of a call made while a module of the program was being imported
// (probe/PROTOCOL.md): its values are not rendered.
const ImportFP = "~import"

// Bare reports whether the recording holds no values for the frame yet (see BareFP).
func (a *Arguments) Bare() bool { return a.ArgsFP == BareFP }

// Unchecked reports whether the frame's arguments have no fingerprint a re-run's can be compared
// with (see BareFP): a bare frame, or one whose values a later run recorded.
func (a *Arguments) Unchecked() bool { return a.ArgsFP == BareFP || a.ArgsFP == FilledFP }

// noArguments are the Arguments of frames made without them (in tests): no Args, no ArgsFP, no
// Code.
var noArguments = &Arguments{Code: noCode}

// noCode is the Code of frames made without one (in tests), so that reading their File and Line
// gives "" and 0.
var noCode = &Code{}

// FrameJSON is a frame as API answers write it: Frame's fields and its callees.
type FrameJSON struct {
	Index     int        `json:"index"`
	FID       FID        `json:"fid"`
	Caller    int        `json:"caller"` // index of the calling frame in T, -1 for an entry frame
	Thread    int        `json:"thread"`
	Depth     int        `json:"depth"` // 0 for an entry frame
	File      string     `json:"file"`
	Line      int        `json:"line"`      // first line of the function's definition
	CallLine  int        `json:"call_line"` // line of the caller that made the call, 0 if none
	Args      []Arg      `json:"args"`
	ArgsFP    string     `json:"args_fp,omitempty"`
	Status    Status     `json:"status"`
	Return    string     `json:"return,omitempty"`
	Exception *Exception `json:"exception,omitempty"`
	Yields    int        `json:"yields,omitempty"`     // times a generator or coroutine suspended
	LastYield string     `json:"last_yield,omitempty"` // the repr of the value it yielded last, when recorded
	Callees   []int32    `json:"callees,omitempty"`
}

// FrameJSON returns T[i] as API answers write it; i must be a valid index.
func (t *Trace) FrameJSON(i int) FrameJSON {
	f := &t.Frames[i]
	return FrameJSON{
		Index: i, FID: f.FID(), Caller: int(f.Caller), Thread: int(f.Thread), Depth: t.Depth(i),
		File: f.File, Line: int(f.Line), CallLine: int(f.CallLine), Args: f.Args, ArgsFP: f.ArgsFP,
		Status: f.Status, Return: f.Return, Exception: f.Exception, Yields: t.Yields(i),
		LastYield: t.LastYield(i), Callees: t.Callees(i),
	}
}

// Depth is frame i's depth: how many frames of T its caller chain holds (0 for an entry frame).
// A caller precedes its callees in T, so the walk ends.
func (t *Trace) Depth(i int) int {
	d := 0
	for c := t.Frames[i].Caller; c >= 0 && int(c) < i; c = t.Frames[c].Caller {
		d++
		i = int(c)
	}
	return d
}

// Yields is how many times generator or coroutine frame i suspended (0 for other frames).
func (t *Trace) Yields(i int) int { return int(t.yields[int32(i)]) }

// LastYield is the repr of the value generator frame i yielded last, "" when it yielded none or
// the recording did not render it (a bare call's: T keeps only how often it suspended).
func (t *Trace) LastYield(i int) string { return t.lastYield[int32(i)] }

// AddYield counts one more suspension of frame i, which yielded the value whose repr is value
// ("" when not rendered), for readers of a recording.
func (t *Trace) AddYield(i int, value string) {
	if t.yields == nil {
		t.yields = make(map[int32]int32)
	}
	t.yields[int32(i)]++
	if value != "" {
		if t.lastYield == nil {
			t.lastYield = make(map[int32]string)
		}
		t.lastYield[int32(i)] = value
	} else if t.lastYield != nil {
		delete(t.lastYield, int32(i))
	}
}

// NodeID is the node id pytest gave test frame i ("tests/test_x.py::test_f[a-1]"), or "" when the
// run's test runner is not pytest or frame i is not a test it called.
func (t *Trace) NodeID(i int) string { return t.nodeIDs[int32(i)] }

// SetNodeID records the node id pytest gave test frame i (for readers of a recording).
func (t *Trace) SetNodeID(i int, id string) {
	if t.nodeIDs == nil {
		t.nodeIDs = make(map[int32]string)
	}
	t.nodeIDs[int32(i)] = id
}

// Trace is T: every recorded invocation of user code in one run, in order of entry.
type Trace struct {
	Frames  []Frame  `json:"frames"`
	Threads []string `json:"threads"`
	// Root is the project root of the run (absolute): module names and relative file references
	// are relative to it.
	Root string `json:"root,omitempty"`
	// Unrecorded counts the calls made after a recording limit was reached.
	Unrecorded int `json:"unrecorded,omitempty"`
	// Limit names the limit that stopped recording ("max_calls", "max_bytes"), if any.
	Limit string `json:"limit,omitempty"`
	// Partial is set when the run ended before the probe could finish its record (killed, timed
	// out): frames still active then are Unfinished and the tail of the run may be missing.
	Partial bool `json:"partial,omitempty"`
	// TimeLimitMS is set when the run was stopped at its wall-clock time limit: that limit, in
	// milliseconds. T ends where the run was stopped; frames active then are Unfinished.
	TimeLimitMS int64 `json:"time_limit_ms,omitempty"`
	// Forks counts the times the run forked (os.fork): a forked child's calls are not recorded.
	// ForkedIn is the frame the first fork was made in (-1: none recorded); it means nothing when
	// Forks is 0.
	Forks    int   `json:"forks,omitempty"`
	ForkedIn int32 `json:"forked_in,omitempty"`
	// Live is set for what the watches of a running program caught (a live session): it grows
	// as the program runs, and an Unfinished frame is one still running when it was read.
	Live bool `json:"live,omitempty"`

	// The derived lookups (see Index) hold frame indexes as int32, like Frame.Caller: a trace never
	// holds 2^31 frames (the probe stops recording at its max_calls limit, 2,000,000 by default),
	// and a big trace's lookups take half the memory of ints.
	// funcNames are the names of the functions T invoked, sorted; funcStart[k] is where the
	// invocations of funcNames[k] start in funcInv (it has one more entry, len(funcInv)), and
	// funcInv lists every frame, by function and then in order of call.
	funcNames []string
	funcStart []int32
	funcInv   []int32
	// callees lists every frame that has a caller, ordered by caller, then by index: the callees
	// of one frame are a run of it (see Callees).
	callees []int32
	// yields counts the suspensions of the generators and coroutines of T that suspended, by index;
	// lastYield holds the repr of the last value each yielded, when it was rendered.
	yields    map[int32]int32
	lastYield map[int32]string
	// nodeIDs holds the node ids pytest gave the test frames it called, by index (see NodeID).
	nodeIDs map[int32]string
	// sharedLine holds the functions whose file has another recorded function that starts on the
	// same line (lambdas, or several definitions on one line): a "file:line" reference cannot name
	// them. Usually empty.
	sharedLine map[string]bool
	// sharedShort holds the qualnames (ShortName) that name more than one recorded function (two
	// modules' Node.__init__): Ref writes those with their module.
	sharedShort map[string]bool
	// defaults caches the literal parameter defaults read from the source (Defaults).
	defaults defaultsIndex
}

// Ref writes fid f the way the text names it: a function of a package module by its qualname
// and index ("Basic.__hash__#3" for sympy.core.basic:Basic.__hash__#3), which commands resolve,
// when no other recorded function has that qualname; else, and for a top-level module's
// function (short already: "shop:check#4"), in full.
func (t *Trace) Ref(f FID) string { return t.RefFunc(f.Func) + "#" + strconv.Itoa(f.Index) }

// RefFunc writes function fn the way Ref writes its invocations, without their index.
func (t *Trace) RefFunc(fn string) string {
	short := ShortName(fn)
	mod := fn[:len(fn)-len(short)]
	if t == nil || t.funcNames == nil || t.sharedShort[short] || !strings.Contains(mod, ".") {
		return fn
	}
	return short
}

// ChangeKind says what a statement did to a variable.
type ChangeKind string

// The kinds of state change (ΔS) a statement can cause.
const (
	New      ChangeKind = "new"  // a variable (or, with a Path, an attribute or key) bound for the first time
	Modified ChangeKind = "mod"  // rebound to another value, or mutated in place
	Deleted  ChangeKind = "del"  // unbound (del x, del d['k'])
	Appended ChangeKind = "app"  // items appended to a list, bytearray or array: New lists them
	Same     ChangeKind = "same" // rebound to a new object equal to the old one: New is its value
)

// Change is one element of ΔS: variable Name, or the part of its value at Path (".count",
// "[3]", "['k']"; empty: the variable itself), went from Old to New (bounded reprs). Old is empty
// for New, Appended and Same changes, New is empty for Deleted ones.
type Change struct {
	Name string     `json:"name"`
	Path string     `json:"path,omitempty"`
	Old  string     `json:"old,omitempty"`
	New  string     `json:"new,omitempty"`
	Kind ChangeKind `json:"kind"`
}

// GlobalPrefix starts the Name of a change to a module-level object: a global the function
// declares with a `global` statement, or a module-level object its code names ("global STOCK").
const GlobalPrefix = "global "

// Target is what changed: the variable's name followed by the path inside its value.
func (c Change) Target() string { return c.Name + c.Path }

// LoopPos places a step inside one enclosing loop: the loop's header line and the 1-based
// iteration the step belongs to.
type LoopPos struct {
	Header    int `json:"header"`
	Iteration int `json:"iteration"`
}

// Step is one executed statement of an FLT's τ: (lineno, stmt, ΔS, fid_callee) plus where it sits
// in the enclosing loops and the generator and exception events it carried.
type Step struct {
	Line    int        `json:"line"`
	Stmt    string     `json:"stmt"`
	Changes []Change   `json:"changes,omitempty"`
	Callees []int      `json:"callees,omitempty"` // indexes in T of the calls this statement made
	Loop    []LoopPos  `json:"loop,omitempty"`    // enclosing loops, outermost first
	Resume  bool       `json:"resume,omitempty"`  // first statement after a generator resumed
	Yield   *string    `json:"yield,omitempty"`   // value yielded by this statement
	Raise   *Exception `json:"raise,omitempty"`   // exception raised in or propagated into it
	// Test is the outcome of the condition an if, elif, while, case or assert line tested (its
	// body entered, the assert passed), told from the next statement executed; nil on other
	// lines and when the test raised or suspended the frame.
	Test *bool `json:"test,omitempty"`
}

// FLT is the Frame Lifetime Trace of one invocation: the frame (fid, caller, args, outcome) and
// the statements it executed.
type FLT struct {
	Frame int    `json:"frame"` // index in T
	Steps []Step `json:"steps"`
	// Dropped counts steps not recorded because the per-FLT step limit was reached.
	Dropped int `json:"dropped,omitempty"`
	// Args and Return are the frame's arguments and returned value rendered in full when the
	// FLT was recorded (T renders only the first calls of each function; nil: as in T).
	Args   []Arg   `json:"args,omitempty"`
	Return *string `json:"return,omitempty"`
	// Ended is set when the FLT's end was read: a reader of a recording still being written (a
	// live session's) has the whole FLT. Not kept with the FLT.
	Ended bool `json:"-"`
}

// Len returns the number of frames in T.
func (t *Trace) Len() int { return len(t.Frames) }

// Frame returns T[i], or nil when i is out of range.
func (t *Trace) Frame(i int) *Frame {
	if i < 0 || i >= len(t.Frames) {
		return nil
	}
	return &t.Frames[i]
}

// Index builds the derived lookups (invocations per function, callees per frame). It must be
// called once after Frames is filled and before the trace is shared.
//
// Both lookups are cut from two slabs of len(Frames) int32s (every frame is one invocation of one
// function and the callee of at most one frame), so that a trace of a million frames holds no
// slack of grown slices and costs a few allocations instead of a million. The trace keeps no
// offsets per frame into the callees' slab: Callees finds a frame's run in it by binary search.
func (t *Trace) Index() {
	n := len(t.Frames)
	// frames are counted by their Code (a pointer's hash, not the name's: a trace of 200,000
	// frames indexes in half the time), then the Codes of one function (usually one) are merged
	slot := make(map[*Code]int32) // a Code's place in counts
	var counts []int32
	var codes []*Code
	at := make([]int32, n+1) // first the number of callees of each frame, then where they start
	for i := range t.Frames {
		f := &t.Frames[i]
		if f.Arguments == nil {
			f.Arguments = noArguments
		}
		if f.Code == nil { // Arguments made without one (in tests): every frame sharing them has none
			f.Code = noCode
		}
		if f.Outcome == nil {
			f.Outcome = NoOutcome
		}
		k, ok := slot[f.Code]
		if !ok {
			k = int32(len(codes))
			slot[f.Code] = k
			codes = append(codes, f.Code)
			counts = append(counts, 0)
		}
		counts[k]++
		if f.Caller >= 0 && int(f.Caller) < n {
			at[f.Caller+1]++
		}
	}
	for i := 1; i <= n; i++ {
		at[i] += at[i-1]
	}
	// the functions, sorted by name; a function's invocations are a run of one slab (funcInv),
	// in order of call, found by binary search of the names (a map of a thousand names cost
	// more than the rest of a small session's index)
	fnOf := make([]int32, len(codes)) // a Code's function
	byName := make(map[string]int32, len(codes))
	t.funcNames = make([]string, 0, len(codes))
	for _, c := range codes {
		if _, ok := byName[c.Func]; !ok {
			byName[c.Func] = 0
			t.funcNames = append(t.funcNames, c.Func)
		}
	}
	slices.Sort(t.funcNames)
	for k, fn := range t.funcNames {
		byName[fn] = int32(k)
	}
	t.funcStart = make([]int32, len(t.funcNames)+1)
	for k, c := range codes {
		fnOf[k] = byName[c.Func]
		t.funcStart[fnOf[k]+1] += counts[k]
	}
	for k := 1; k < len(t.funcStart); k++ {
		t.funcStart[k] += t.funcStart[k-1]
	}
	t.funcInv = make([]int32, n)
	next := slices.Clone(t.funcStart[:len(t.funcNames)]) // where each function's next invocation goes
	t.callees = make([]int32, at[n])
	for i := range t.Frames {
		f := &t.Frames[i]
		k := fnOf[slot[f.Code]]
		t.funcInv[next[k]] = int32(i)
		next[k]++
		if c := f.Caller; c >= 0 && int(c) < n {
			t.callees[at[c]] = int32(i)
			at[c]++ // where the next callee of c goes
		}
	}
	type defLine struct {
		file string
		line int32
	}
	first := make(map[defLine]string, len(t.funcNames))
	t.sharedLine = nil
	t.sharedShort = nil
	shorts := make(map[string]bool, len(t.funcNames))
	for _, fn := range t.funcNames {
		s := ShortName(fn)
		if shorts[s] {
			if t.sharedShort == nil {
				t.sharedShort = make(map[string]bool)
			}
			t.sharedShort[s] = true
		}
		shorts[s] = true
	}
	for j, fn := range t.funcNames {
		c := t.Frames[t.funcInv[t.funcStart[j]]].Code
		k := defLine{path.Clean(c.File), c.Line}
		o, ok := first[k]
		if !ok {
			first[k] = fn
			continue
		}
		if t.sharedLine == nil {
			t.sharedLine = make(map[string]bool)
		}
		t.sharedLine[o], t.sharedLine[fn] = true, true
	}
}

// Callees returns the indexes in T of the calls frame i made, in order (nil when it made none or
// i is out of range). The slice is shared: callers must not modify it. It costs two binary
// searches of the callees' slab, ordered by caller.
func (t *Trace) Callees(i int) []int32 {
	if i < 0 || i >= len(t.Frames) {
		return nil
	}
	caller := func(k int) int { return int(t.Frames[t.callees[k]].Caller) }
	lo := sort.Search(len(t.callees), func(k int) bool { return caller(k) >= i })
	hi := lo + sort.Search(len(t.callees)-lo, func(k int) bool { return caller(lo+k) > i })
	if lo == hi {
		return nil
	}
	return t.callees[lo:hi:hi]
}

// Invocations returns the indexes in T of every invocation of fn, in order. The slice is shared:
// callers must not modify it.
func (t *Trace) Invocations(fn string) []int32 {
	inv, _ := t.invocations(fn)
	return inv
}

// invocations returns the invocations of fn (see Invocations), and whether T has any.
func (t *Trace) invocations(fn string) ([]int32, bool) {
	k, ok := slices.BinarySearch(t.funcNames, fn)
	if !ok {
		return nil, false
	}
	lo, hi := t.funcStart[k], t.funcStart[k+1]
	return t.funcInv[lo:hi:hi], true
}

// Funcs returns the names of every function with at least one invocation in T, sorted. The slice
// is shared: callers must not modify it.
func (t *Trace) Funcs() []string { return t.funcNames }

// Lookup returns the index in T of the invocation fid, or an error that says what exists.
func (t *Trace) Lookup(fid FID) (int, error) {
	inv, ok := t.invocations(fid.Func)
	if !ok {
		return -1, NotFoundf("no function %q in the recording", fid.Func)
	}
	if fid.Index < 1 || fid.Index > len(inv) {
		return -1, NotFoundf("%s: %s was called %d time(s); use an index from 1 to %d", fid, fid.Func, len(inv), len(inv))
	}
	return int(inv[fid.Index-1]), nil
}
