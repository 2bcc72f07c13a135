package probe

// Config is the JSON the bridge writes for one probe run (probe/PROTOCOL.md, "Config").
type Config struct {
	Version    int      `json:"version"`
	Out        string   `json:"out"`
	Target     Target   `json:"target"`
	Root       string   `json:"root"`
	Include    []string `json:"include"`
	Exclude    []string `json:"exclude"`
	ReprLimit  int      `json:"repr_limit,omitempty"`
	ReprTimeMS int      `json:"repr_time_ms,omitempty"`
	// Values is how values of types with a __repr__ of the program's are shown: "repr" (""; a
	// library type's own repr, run under guards) or "attrs" (from their attributes).
	Values     string      `json:"values,omitempty"`
	Limits     Limits      `json:"limits"`
	Trace      []Selector  `json:"trace"`
	TraceAll   *TraceAll   `json:"trace_all,omitempty"`
	Conditions []Condition `json:"conditions"`
	Expect     []Expect    `json:"expect"`
	Stops      []Stop      `json:"stops"`
	// Seed seeds random's unseeded generators the same way in every run (nil: not at all).
	Seed *int `json:"seed,omitempty"`
	// TraceTests records the FLT of every test function a test runner calls.
	TraceTests bool `json:"trace_tests,omitempty"`
	// Light records no argument, return or yield values in T except for the functions the
	// run's trace, conditions, expect and stops name (a re-run: the recording has them).
	Light bool `json:"light,omitempty"`
	// StopsOnly makes a run whose answer is its stops (an exec's): it writes no T and no FLT.
	StopsOnly bool `json:"stops_only,omitempty"`
	// BareAfter > 0 records bare calls (a first run): past the first BareAfter calls, a plain
	// call deeper than BareDepth frames whose caller is not stepped is recorded without values,
	// fingerprint or caller line (adi.BareFP).
	BareAfter int `json:"bare_after,omitempty"`
	BareDepth int `json:"bare_depth,omitempty"`
	// ValuesOf names the invocations (Func and Index) whose values a light run records in full:
	// arguments, fingerprint, caller line and returned value (a values run; an FLT's re-run).
	ValuesOf []Selector `json:"values_of,omitempty"`
	// Only makes a re-run record the invocations of these functions alone, and module bodies
	// (PROTOCOL.md "only"): every other call costs the interpreter's call of the probe's hook and
	// nothing more. nil: every function's.
	Only []string `json:"only,omitempty"`
	// Control is the unix socket on which an editor's run serves the control protocol, to add
	// watches while it runs (PROTOCOL.md, "Watching in an editor's run"; "": none).
	Control string `json:"control,omitempty"`
}

// Target is what the probe runs, the way python would.
type Target struct {
	Mode   string   `json:"mode"` // "script", "module" or "code"
	Path   string   `json:"path,omitempty"`
	Module string   `json:"module,omitempty"`
	Code   string   `json:"code,omitempty"`
	Argv   []string `json:"argv"`
	Stdin  string   `json:"stdin,omitempty"`
}

// Limits bound what one run records.
type Limits struct {
	MaxCalls int   `json:"max_calls,omitempty"`
	MaxSteps int   `json:"max_steps,omitempty"`
	MaxBytes int64 `json:"max_bytes,omitempty"`
}

// Selector chooses invocations whose FLT is recorded: one by Index, or those where Cond holds.
type Selector struct {
	Func  string `json:"func"`
	Index int    `json:"index,omitempty"`
	Cond  string `json:"cond,omitempty"`
	At    string `json:"at,omitempty"` // "entry" or "exit"
	Max   int    `json:"max,omitempty"`
}

// TraceAll asks for eager FLTs: the FLT of every invocation that starts before MaxSteps steps have
// been recorded in all (probe/PROTOCOL.md, "Config").
type TraceAll struct {
	MaxSteps int `json:"max_steps"`
	// MaxMS ends them that many milliseconds after the first one started (0: no time limit).
	MaxMS int `json:"max_ms,omitempty"`
}

// Condition is evaluated on every invocation of Func; the run reports where it held. At is
// "entry", "exit" or "line": then it is evaluated when a statement at Line starts, with the
// locals of that moment.
type Condition struct {
	ID   int    `json:"id"`
	Func string `json:"func"`
	Cond string `json:"cond"`
	At   string `json:"at"`
	Line int    `json:"line,omitempty"`
}

// Expect is the replay check for one invocation: its caller chain and argument fingerprint in the
// recording the bridge is asking about.
type Expect struct {
	Func   string   `json:"func"`
	Index  int      `json:"index"`
	Chain  []string `json:"chain"`
	ArgsFP string   `json:"args_fp"`
}

// Stop is a place where execute stops: the Visit-th arrival of invocation Func#Index at Line. With
// Exec the probe itself runs that statement there, writes exec.json and ends the run (no debugger);
// without it, the stop is a debugger's breakpoint condition (adi_probe.hit).
type Stop struct {
	ID    int    `json:"id"`
	Func  string `json:"func"`
	Index int    `json:"index"`
	Line  int    `json:"line"`
	Visit int    `json:"visit"`
	Exec  string `json:"exec,omitempty"`
	// Timeout is how many seconds the Exec statement may run before the probe ends the run and
	// says where the statement was (0: no limit).
	Timeout float64 `json:"timeout,omitempty"`
}
