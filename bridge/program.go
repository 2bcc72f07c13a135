package bridge

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/probe"
	"github.com/adi-bridge/adi/target"
)

// Options describe a session: what to run, where, and within which limits.
type Options struct {
	// Command is the target command line as an agent types it ("python -m pytest t.py::test -q").
	Command string `json:"command"`
	// Dir is the working directory (default: adi's).
	Dir string `json:"dir,omitempty"`
	// Env adds KEY=VALUE pairs to adi's environment for the target.
	Env []string `json:"env,omitempty"`
	// Root is the project root, what counts as user code (default: Dir).
	Root    string   `json:"root,omitempty"`
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// Timeout bounds one run of the target (default 60s).
	Timeout time.Duration `json:"timeout,omitempty"`
	Limits  probe.Limits  `json:"limits"`
	// ReprLimit bounds rendered values, in characters (default 200).
	ReprLimit int `json:"repr_limit,omitempty"`
	// Values is how values of types with a __repr__ of the program's are shown: "repr" (the
	// default: a library type's own repr, run under the probe's guards) or "attrs".
	Values string `json:"values,omitempty"`
	// Python is the --python choice for the interpreter with debugpy ("" = discover).
	Python string `json:"python,omitempty"`
	// EagerSteps is the step budget of the FLTs the session's first run records for every
	// invocation, so that a small program is navigated without re-runs (0: DefaultEagerSteps,
	// -1: none).
	EagerSteps int `json:"eager_steps,omitempty"`
	// Focus lists the frame references the session's first command names ("pkg/mod.py:func#2",
	// "mod:Class.method"): the first run also records their FLTs, so that the command is answered
	// from that run (see focusSelectors). It matters to the first run only.
	Focus []string `json:"focus,omitempty"`
	// NoSeed leaves random's unseeded generators to the operating system's entropy; by default
	// every run of a session seeds them with RandomSeed, so that re-runs replay (see Program.Seed).
	NoSeed bool `json:"no_seed,omitempty"`
}

// RandomSeed is the seed every run of a session gives random's unseeded generators (unless
// Options.NoSeed): a program that draws random numbers draws the same ones in every run.
const RandomSeed = 0

// DefaultTimeout bounds one run when Options.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// DefaultEagerSteps is the step budget of the eager FLTs of a session's first run (Options.EagerSteps):
// the FLT of every invocation (but module bodies and what runs during an import) that starts before
// that many steps are recorded, or before EagerMS is spent. It covers a small program entirely.
const DefaultEagerSteps = 20000

// EagerMS bounds the time of a first run's eager FLTs: no eager FLT starts once they have spent
// that many milliseconds starting FLTs and on their line events (taking, comparing and rendering
// variables). A step is cheap in a small frame but costs orders of magnitude more where big
// objects are in scope (a web framework's application object), so the step budget alone does not
// bound the first command's cost. What the budget counts is not all they cost: their snapshots and
// records are objects that outlive Python's young collections and so bring on full collections of
// a big program's heap, which no budget counts; that is why the budget is small.
const EagerMS = 5

func (o Options) eagerSteps() int {
	switch {
	case o.EagerSteps < 0:
		return 0
	case o.EagerSteps == 0:
		return DefaultEagerSteps
	}
	return o.EagerSteps
}

// Program is what every run of a session executes: the interpreter, its flags, the probe target,
// and the environment. All runs of a session share one Program, so they are replays of each other.
type Program struct {
	// Python is the interpreter that runs the target (and the probe inside it).
	Python string
	// PyFlags are interpreter options given before the target (-u, -X dev, ...).
	PyFlags []string
	Target  probe.Target
	Dir     string   // working directory
	Env     []string // complete environment (PYTHONHASHSEED included)
	Root    string   // project root: what is user code
	Include []string
	Exclude []string
	Limits  probe.Limits
	// ReprLimit bounds rendered values (characters); 0 means the probe's default.
	ReprLimit int
	// Values is Options.Values ("" = "repr").
	Values string
	// Timeout bounds the wall-clock time of one run: then the probe is asked to stop (it writes
	// what it recorded), and the run is killed stopGrace later if it has not ended.
	Timeout time.Duration
	// Seed makes random's unseeded generators draw the same numbers in every run (RandomSeed).
	Seed bool
	// debugpy finds the python with debugpy whose adapter runs debug runs (DebugPython).
	debugpy *debugpyLookup
}

// debugpyLookup is the search for the python with debugpy, done when first needed: a recording
// does not need it, and on a new machine it starts each candidate interpreter (a pyenv shim is a
// shell script that starts more processes), which the first command would otherwise pay before
// its run starts.
type debugpyLookup struct {
	flag string // --python
	mu   sync.Mutex
	done bool
	py   *dap.Python
}

// DebugPython returns the python with debugpy whose adapter runs debug runs (exec
// --then-continue, live mode), or nil when none was found (NeedDebugpy says why). The search
// runs once per program; a search cut short by ctx is tried again next time.
func (p *Program) DebugPython(ctx context.Context) *dap.Python {
	l := p.debugpy
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done {
		py, err := dap.FindPython(ctx, l.flag)
		if err == nil || ctx.Err() == nil {
			l.py, l.done = py, true
		}
	}
	return l.py
}

// plainPython reports whether the interpreter word names "the" python rather than a particular
// one; adi then runs the python that has debugpy, so every run of the session (recording or under
// the debugger) uses the same interpreter.
func plainPython(word string) bool {
	switch word {
	case "python", "python3":
		return true
	}
	return false
}

// NewProgram turns options into the Program every run of the session executes. It checks what
// can be checked without running anything, so a bad target fails before a run starts.
func NewProgram(ctx context.Context, o Options) (*Program, target.Target, error) {
	tg, err := target.Parse(o.Command)
	if err != nil {
		return nil, tg, err
	}
	dir := o.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, tg, err
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, tg, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, tg, adi.BadInputf("working directory %s does not exist; pass an existing --dir", dir)
	}
	root := o.Root
	if root == "" {
		root = dir
	}
	root = absIn(dir, root)

	p := &Program{
		PyFlags: tg.PyFlags, Dir: dir, Root: root, Include: o.Include, Exclude: o.Exclude,
		Limits: o.Limits, ReprLimit: o.ReprLimit, Values: o.Values, Timeout: o.Timeout, Seed: !o.NoSeed,
	}
	if p.Values != "" && p.Values != "repr" && p.Values != "attrs" {
		return nil, tg, adi.BadInputf("values must be repr or attrs, not %q", p.Values)
	}
	if p.Timeout <= 0 {
		p.Timeout = DefaultTimeout
	}
	// The python with debugpy is needed for exec --then-continue and live runs only; recording
	// and exec work without it, so a target run by a python without debugpy is recorded with
	// that python, and what needs debugpy says so (NeedDebugpy). It is looked for now only when
	// the target's interpreter is "the" python, which then means that one, and no interpreter
	// was chosen (--python, $ADI_PYTHON): the one chosen is that python, with or without
	// debugpy, and starting it to ask would cost the first command an interpreter's start.
	p.debugpy = &debugpyLookup{flag: o.Python}
	chosen, how := dap.ChosenPython(o.Python)
	var dbg *dap.Python
	if plainPython(tg.Python) && chosen == "" {
		dbg = p.DebugPython(ctx)
	}
	switch {
	case plainPython(tg.Python) && chosen != "":
		p.Python = chosen
		if !strings.ContainsRune(p.Python, '/') {
			if p.Python, err = exec.LookPath(chosen); err != nil {
				return nil, tg, adi.BadInputf("interpreter %q (%s) not found on PATH; give its path", chosen, how)
			}
		}
	case plainPython(tg.Python) && dbg != nil:
		p.Python = dbg.Path
	case plainPython(tg.Python):
		if p.Python, err = exec.LookPath(tg.Python); err != nil {
			if _, serr := os.Stat("/usr/bin/python3"); serr != nil {
				return nil, tg, adi.BadInputf("interpreter %q not found on PATH; give its path", tg.Python)
			}
			p.Python = "/usr/bin/python3"
		}
	case strings.ContainsRune(tg.Python, '/'):
		p.Python = absIn(dir, tg.Python)
	default:
		if p.Python, err = exec.LookPath(tg.Python); err != nil {
			return nil, tg, adi.BadInputf("interpreter %q not found on PATH; give its path", tg.Python)
		}
	}
	if _, err := os.Stat(p.Python); err != nil {
		return nil, tg, adi.BadInputf("interpreter %s does not exist; give an existing python", p.Python)
	}

	p.Target = probe.Target{Mode: string(tg.Mode), Argv: tg.Args}
	if p.Target.Argv == nil {
		p.Target.Argv = []string{}
	}
	switch tg.Mode {
	case target.Script:
		p.Target.Path = absIn(dir, tg.Path)
		st, err := os.Stat(p.Target.Path)
		if err != nil {
			return nil, tg, adi.BadInputf("cannot run %s: no such file", p.Target.Path)
		}
		if st.IsDir() {
			// python runs a directory's __main__.py; the probe does the same.
			if _, err := os.Stat(filepath.Join(p.Target.Path, "__main__.py")); err != nil {
				return nil, tg, adi.BadInputf("cannot run %s: a directory without __main__.py", p.Target.Path)
			}
		}
	case target.Module:
		p.Target.Module = tg.Module
	case target.Code:
		p.Target.Code = tg.Code
	}
	if tg.Stdin != "" {
		p.Target.Stdin = absIn(dir, tg.Stdin)
		if _, err := os.Stat(p.Target.Stdin); err != nil {
			return nil, tg, adi.BadInputf("the input file %s does not exist", p.Target.Stdin)
		}
	}

	env := append(os.Environ(), o.Env...)
	for _, e := range tg.Env {
		env = append(env, e.Key+"="+e.Value)
	}
	if !hasEnv(env, "PYTHONHASHSEED") {
		env = append(env, "PYTHONHASHSEED=0") // every run of a session hashes the same way
	}
	env = append(env, "PYDEVD_DISABLE_FILE_VALIDATION=1")
	p.Env = dedupEnv(env)
	return p, tg, nil
}

func absIn(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

func hasEnv(env []string, key string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, key+"=") {
			return true
		}
	}
	return false
}

// dedupEnv keeps the last assignment of each variable, in the order of first appearance.
func dedupEnv(env []string) []string {
	last := map[string]string{}
	var order []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = v
	}
	out := make([]string, len(order))
	for i, k := range order {
		out[i] = k + "=" + last[k]
	}
	return out
}

// LaunchArgs is the debugpy launch request that runs script with args as the program would run:
// its interpreter and flags, its directory, output redirected to adi, no child sessions. The
// directories in hide (adi's own code) are left out of the debugger's view: no stop, no frame.
func (p *Program) LaunchArgs(name, script string, args []string, hide ...string) map[string]any {
	rules := make([]map[string]any, len(hide))
	for i, d := range hide {
		rules[i] = map[string]any{"path": filepath.Join(d, "**"), "include": false}
	}
	return map[string]any{
		"name": name, "type": "python", "request": "launch",
		"program": script, "args": args,
		"python": append([]string{p.Python}, p.PyFlags...),
		"cwd":    p.Dir, "console": "internalConsole", "redirectOutput": true,
		// Include globs make library files user code; debugpy's justMyCode would refuse to stop
		// in them (exec's breakpoint), so it is on only when nothing is included.
		"justMyCode": len(p.Include) == 0, "subProcess": false, "showReturnValue": false,
		"rules": rules,
	}
}
