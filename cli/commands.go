package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/statedir"
)

// The peer-compatible commands for agents with only bash. Each takes the target command first
// when it needs a recording ("python t.py"; any argument with a space is taken as one), then its
// own arguments; without it, the command runs on the last session of the state directory.
func init() {
	add := func(name, usage, summary string, build cliBuilder) {
		commands[name] = command{summary: summary, run: func(ctx context.Context, g *Globals, args []string) error {
			return runCLI(ctx, g, name, usage, build, args)
		}}
	}
	add("break", `["CMD"] FILE:FUNC[#N] [--cond EXPR] [--on-entry|--on-return|--if-eval-lineno L] [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "add a breakpoint; with #N also show that frame's FLT, with a condition its first match's", buildBreak)
	add("clear", `["CMD"] [FUNC [COND]]`, "remove breakpoints (all without FUNC)", buildClear)
	add("continue", `["CMD"] [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "go to the next invocation that matches a breakpoint and show its FLT", bareView("adi.continue"))
	add("prev", `["CMD"] [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "go to the previous invocation that matches a breakpoint", bareView("adi.prev"))
	add("step-in", `["CMD"] FUNC#N [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "go to one invocation (a callee shown in an FLT) and show its FLT", buildStepInto)
	add("step-into", `["CMD"] FUNC#N [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "alias of step-in", buildStepInto)
	add("step-out", `["CMD"] [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "go to the caller of the current frame", bareView("adi.step_out"))
	add("call-tree", `["CMD"] [FILE:FUNC#N] [--depth N] [--width N]`, "show the calls below a frame with args and returns", buildCallTree)
	add("list-frames", `["CMD"] FILE:FUNC... [--caller TEXT] [--limit N]`, "list the invocations of a function with copyable targets", buildListFrames)
	add("diff", `["CMD"] FUNC#N FUNC#M`, "compare two invocations of a function", buildDiff)
	add("state", `["CMD"]`, "show the breakpoints and the frame under inspection", bare("adi.state"))
	add("list", `["CMD"]`, "list the breakpoints", bare("adi.list"))
	add("flt", `["CMD"] [FUNC#N] [--full-watch A,B] [--loop N|--loop-index LINE:K]`, "show a frame's FLT without moving (the current frame by default)", buildFLT)
	add("exec", `["CMD"] FILE:FUNC#N -s STMT [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue]`, "run a statement inside a past frame and print its output", buildExec)
	commands["sessions"] = command{summary: "list the CLI daemon's sessions", run: runSessions}
	commands["stop"] = command{summary: "stop the CLI daemon (sessions stay on disk)", run: runStop}
}

// cliBuilder declares a command's own flags and returns the function that turns the positional
// arguments (after the target) into calls.
type cliBuilder func(fs *flag.FlagSet) func(args []string) ([]Call, error)

// cliFlags are the flags every CLI command takes.
type cliFlags struct {
	session       string
	json          bool
	budget        int
	timeout       int // one run of the target, when CMD is recorded
	stmt          int // exec: the statement's limit
	noCount       bool
	noSeed        bool
	values        string
	allowExternal bool
}

// register declares the flags. For exec, -t/--timeout is the statement's limit (what an agent
// waiting on a hung statement needs) and --run-timeout the recording's; the other commands take
// both names for the recording's.
func (f *cliFlags) register(fs *flag.FlagSet, name string) {
	fs.StringVar(&f.session, "session", os.Getenv("ADI_SESSION"), "session to use (default $ADI_SESSION, else derived from CMD and the directory)")
	fs.BoolVar(&f.json, "json", false, "print the JSON result instead of the text")
	fs.IntVar(&f.budget, "budget", 0, "size of the text answer in tokens (default 2000)")
	fs.IntVar(&f.timeout, "run-timeout", 0, "seconds one run of the target may take (when CMD is recorded; default 60)")
	if name == "exec" {
		fs.IntVar(&f.stmt, "timeout", 0, "seconds the statement may run before it is stopped (default 10)")
		fs.IntVar(&f.stmt, "t", 0, "short for --timeout")
	} else {
		fs.IntVar(&f.timeout, "timeout", 0, "seconds one run of the target may take (when CMD is recorded; default 60)")
		fs.IntVar(&f.timeout, "t", 0, "short for --timeout")
	}
	fs.BoolVar(&f.noCount, "no-count", false, "accepted for compatibility with the peer; adi always knows the count")
	fs.StringVar(&f.values, "values", "", "how values of the program's types with their own __repr__ are shown when CMD is recorded: repr (default: a library type's own repr, run under guards) or attrs (their attributes)")
	fs.BoolVar(&f.noSeed, "no-seed", false, "do not seed random's unseeded generators (when CMD is recorded; by default every run draws the same numbers, so re-runs replay)")
	fs.BoolVar(&f.allowExternal, "allow-external", false, "record the standard-library or site-packages file a FILE:FUNC argument names, so it can be targeted (needs CMD; the target is recorded again)")
}

func runCLI(ctx context.Context, g *Globals, name, usage string, build cliBuilder, args []string) error {
	fs := NewFlags(name, usage, g)
	var cf cliFlags
	cf.register(fs, name)
	finish := build(fs)
	pos, err := Parse(fs, g, args)
	if err != nil {
		return err
	}
	if cf.timeout < 0 {
		return UsageError("adi: %s: -t/--timeout takes seconds from 1 (got %d)", name, cf.timeout)
	}
	inv := Invocation{Name: name, Session: cf.session, JSON: cf.json, Timeout: time.Duration(cf.timeout) * time.Second, NoSeed: cf.noSeed, Values: cf.values}
	if len(pos) > 0 && strings.ContainsAny(strings.TrimSpace(pos[0]), " \t") {
		inv.Target, pos = pos[0], pos[1:]
	}
	if inv.Target == "" {
		if msg := missingTarget(name, pos); msg != "" {
			return UsageError("adi: %s: %s", name, msg)
		}
	}
	if inv.Calls, err = finish(pos); err != nil {
		var one *oneLineError
		if errors.As(err, &one) {
			return UsageError("adi: %s: %v", name, err)
		}
		return UsageError("adi: %s: %v; usage: adi %s %s", name, err, name, usage)
	}
	if cf.allowExternal {
		dir, err := os.Getwd()
		if err != nil {
			return err
		}
		if inv.Include, err = external(name, dir, inv); err != nil {
			return UsageError("adi: %s: %v", name, err)
		}
	}
	for _, c := range inv.Calls {
		if cf.budget > 0 {
			c.Params["budget"] = cf.budget
		}
		if cf.stmt > 0 && c.Method == "adi.execute" {
			c.Params["timeout"] = cf.stmt
		}
	}
	env, err := cliEnv(g)
	if err != nil {
		return err
	}
	if code := Run(ctx, env, inv); code != 0 {
		return exitCode(code) // Run has printed the error
	}
	return nil
}

// cliEnv describes this process to the daemon client (Run, Live, Sessions, Stop).
func cliEnv(g *Globals) (*Env, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	server := os.Executable
	if g.opts != nil && g.opts.Server != nil {
		server = g.opts.Server
	}
	return &Env{StateDir: statedir.Dir(), Server: server, Dir: dir, Environ: os.Environ(), Python: g.Python,
		LogLevel: g.LogLevel, IdleTimeout: envDuration("ADI_IDLE_TIMEOUT", 30*time.Minute),
		DaemonIdle: envDuration("ADI_DAEMON_IDLE", 5*time.Minute), Stdout: g.Stdout, Stderr: g.Stderr}, nil
}

func envDuration(key string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(key)); err == nil && d > 0 {
		return d
	}
	return def
}

// checkRef parses a reference early, so a malformed one is a usage error (exit 2).
func checkRef(s string, frame bool) error {
	r, err := adi.ParseRef(s)
	if err != nil {
		return err
	}
	if frame && !r.NamesFrame() {
		return usageErrorf("%s names a function; add the invocation index, e.g. %s#1", s, s)
	}
	return nil
}

// usageErrorf describes a wrong argument; runCLI adds the command's usage.
func usageErrorf(format string, a ...any) error { return fmt.Errorf(format, a...) }

// exitCode ends adi with code after package cli has printed what went wrong.
func exitCode(code int) error { return &ExitError{Code: code, Err: errors.New("")} }

func bare(method string) cliBuilder {
	return func(*flag.FlagSet) func([]string) ([]Call, error) {
		return func(args []string) ([]Call, error) {
			if len(args) > 0 {
				return nil, usageErrorf("unexpected argument %q (a target command needs quotes: \"python t.py\")", args[0])
			}
			return []Call{{Method: method, Params: map[string]any{}}}, nil
		}
	}
}

// bareView is bare for the navigation commands, which show an FLT and so take the view flags;
// continue also refuses --if-eval-lineno, which belongs to a breakpoint.
func bareView(method string) cliBuilder {
	return func(fs *flag.FlagSet) func([]string) ([]Call, error) {
		v := viewFlags(fs)
		line := 0
		if method == "adi.continue" {
			fs.IntVar(&line, "if-eval-lineno", 0, "not taken here: the line belongs to the breakpoint (adi break FUNC --cond EXPR --if-eval-lineno L)")
		}
		finish := bare(method)(fs)
		return func(args []string) ([]Call, error) {
			if line != 0 {
				return nil, oneLinef("--if-eval-lineno belongs to the breakpoint, which keeps it: adi break FUNC --cond EXPR --if-eval-lineno %d, then adi continue", line)
			}
			calls, err := finish(args)
			if err != nil {
				return nil, err
			}
			return calls, v.apply(calls[0].Params)
		}
	}
}

// view holds the flags that say how an FLT is shown (the peer's --full-watch, --loop and
// --loop-index); they become the params watch, loop and loop_index.
type view struct {
	watch     string
	loop      int
	loopIndex string
}

// viewFlags defines the view flags on fs.
func viewFlags(fs *flag.FlagSet) *view {
	v := &view{loop: -1}
	fs.StringVar(&v.watch, "full-watch", "", "show only these variables in the FLT, e.g. total,rate (comma-separated)")
	fs.IntVar(&v.loop, "loop", -1, "show the first N iterations of each loop in full and fold the others (default: the iterations that differ from their neighbours)")
	fs.StringVar(&v.loopIndex, "loop-index", "", "LINE:K: show only iteration K of the loop whose header is line LINE in full, e.g. 122:2 (a bare K: of every loop)")
	return v
}

// apply checks the view flags and adds them to params.
func (v *view) apply(p map[string]any) error {
	switch {
	case v.loop == 0 || v.loop < -1:
		return oneLinef("--loop takes a number of iterations from 1, not %d", v.loop)
	case v.loop > 0 && v.loopIndex != "":
		return oneLinef("give --loop or --loop-index, not both: --loop shows the first N iterations, --loop-index iteration K")
	}
	if v.loop > 0 {
		p["loop"] = v.loop
	}
	if v.loopIndex != "" {
		if _, _, err := adi.ParseLoopIndex(v.loopIndex); err != nil {
			return oneLinef("--loop-index takes LINE:K, iteration K of the loop whose header is line LINE (e.g. --loop-index 122:2), or K, iteration K of every loop; not %q", v.loopIndex)
		}
		p["loop_index"] = v.loopIndex
	}
	if v.watch != "" {
		var names []string
		for _, n := range strings.Split(v.watch, ",") {
			if n = strings.TrimSpace(n); n != "" {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			return oneLinef("--full-watch takes variable names separated by commas, e.g. --full-watch total,rate")
		}
		p["watch"] = names
	}
	return nil
}

// oneLineError is a usage error that says all there is to say: runCLI does not add the usage.
type oneLineError struct{ msg string }

func (e *oneLineError) Error() string { return e.msg }

func oneLinef(format string, a ...any) error { return &oneLineError{fmt.Sprintf(format, a...)} }

// external lists the files --allow-external adds to the recording: those the command's
// FILE:FUNC arguments name that are not user code (library files, files outside dir).
func external(name, dir string, inv Invocation) ([]string, error) {
	var refs, files []string
	for _, c := range inv.Calls {
		for _, k := range []string{"func", "frame", "a", "b"} {
			if s, ok := c.Params[k].(string); ok {
				refs = append(refs, s)
			}
		}
	}
	named := false
	for _, s := range refs {
		r, err := adi.ParseRef(s)
		if err != nil || r.Path == "" {
			continue
		}
		named = true
		file := r.Path
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		file = filepath.Clean(file)
		if adi.LibraryPath(file) || !strings.HasPrefix(file, dir+string(filepath.Separator)) {
			files = append(files, file)
		}
	}
	switch {
	case len(refs) > 0 && !named:
		return nil, oneLinef("--allow-external records the library file a FILE:FUNC argument names; name the function by its file, e.g. /usr/lib/python3.11/json/encoder.py:JSONEncoder.encode")
	case len(files) > 0 && inv.Target == "":
		return nil, oneLinef("--allow-external records the target again with %s: give the target command first, e.g. adi %s \"python t.py\" ...", files[0], name)
	}
	return files, nil
}

// missingTarget explains a first argument that is a file or an interpreter where the target
// command, one quoted argument, was expected ("" when it is not that mistake).
func missingTarget(name string, pos []string) string {
	if len(pos) == 0 {
		return ""
	}
	first := pos[0]
	switch {
	case first == "python" || strings.HasPrefix(first, "python3"):
		cmd := strings.Join(pos, " ")
		if k := slices.IndexFunc(pos, func(s string) bool { return strings.ContainsAny(s, ":#") }); k > 0 {
			cmd = strings.Join(pos[:k], " ")
		}
		return fmt.Sprintf("the target command must be one quoted argument: adi %s %q ...", name, cmd)
	case (strings.HasSuffix(first, ".py") || strings.HasSuffix(first, ".pyw")) && !strings.ContainsAny(first, ":#"):
		return fmt.Sprintf("%s is a file, not a frame: the target command is missing; give it first, quoted: adi %s \"python3 %s\" ...", first, name, first)
	}
	return ""
}

// condFlag defines --cond (also --condition, -c): a breakpoint's condition.
func condFlag(fs *flag.FlagSet, usage string) *string {
	cond := new(string)
	for _, n := range []string{"cond", "condition", "c"} {
		fs.StringVar(cond, n, "", usage)
	}
	return cond
}

// condition is a breakpoint's condition: --cond, or the words after the place (what), not both.
func condition(flagCond string, rest []string, what string) (string, error) {
	if flagCond == "" {
		return strings.Join(rest, " "), nil
	}
	if len(rest) > 0 {
		return "", usageErrorf("give the condition once (--cond or after the %s)", what)
	}
	return flagCond, nil
}

// codeFile reads the statements of -f FILE (what names them in the error).
func codeFile(file, what string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", usageErrorf("cannot read the %s file: %v", what, err)
	}
	return string(b), nil
}

func buildBreak(fs *flag.FlagSet) func([]string) ([]Call, error) {
	flagCond := condFlag(fs, "condition on the arguments (or _return at exit), e.g. 'rate > 0'")
	onEntry := fs.Bool("on-entry", false, "check the condition at the function's entry, with its arguments (the default unless it mentions _return or _exception)")
	onReturn := fs.Bool("on-return", false, "check the condition at the function's exit, with _return (the returned value) and _exception bound")
	line := fs.Int("if-eval-lineno", 0, "check the condition each time line L of the function starts, with its locals then (a way to break mid-function)")
	v := viewFlags(fs)
	return func(args []string) ([]Call, error) {
		if len(args) == 0 {
			return nil, usageErrorf("the function is missing")
		}
		if err := checkRef(args[0], false); err != nil {
			return nil, err
		}
		cond, err := condition(*flagCond, args[1:], "function")
		if err != nil {
			return nil, err
		}
		p := map[string]any{"func": args[0]}
		if cond != "" {
			p["cond"] = cond
		}
		bp := adi.Breakpoint{Cond: cond, Line: *line}
		switch {
		case *onEntry && *onReturn:
			return nil, oneLinef("give --on-entry or --on-return, not both: a condition is checked at one moment")
		case *onEntry:
			bp.When, p["when"] = adi.AtEntry, "entry"
		case *onReturn:
			bp.When, p["when"] = adi.AtExit, "exit"
		}
		if *line != 0 {
			p["line"] = *line
		}
		if err := bp.Check(); err != nil {
			return nil, &oneLineError{strings.TrimPrefix(err.Error(), "adi: ")}
		}
		if err := v.apply(p); err != nil {
			return nil, err
		}
		return []Call{{Method: "adi.break", Params: p}}, nil
	}
}

func buildClear(*flag.FlagSet) func([]string) ([]Call, error) {
	return func(args []string) ([]Call, error) {
		p := map[string]any{}
		if len(args) > 0 {
			if err := checkRef(args[0], false); err != nil {
				return nil, err
			}
			p["func"] = args[0]
			if len(args) > 1 {
				p["cond"] = strings.Join(args[1:], " ")
			}
		}
		return []Call{{Method: "adi.clear", Params: p}}, nil
	}
}

func buildStepInto(fs *flag.FlagSet) func([]string) ([]Call, error) {
	v := viewFlags(fs)
	return func(args []string) ([]Call, error) {
		if len(args) != 1 {
			return nil, usageErrorf("it takes one frame, e.g. bulk_rate#3")
		}
		if err := checkRef(args[0], true); err != nil {
			return nil, err
		}
		p := map[string]any{"frame": args[0]}
		return []Call{{Method: "adi.step_into", Params: p}}, v.apply(p)
	}
}

func buildCallTree(fs *flag.FlagSet) func([]string) ([]Call, error) {
	depth := fs.Int("depth", -1, fmt.Sprintf("levels of calls shown below the frame, from 1 (default %d)", adi.DefaultTreeDepth))
	width := fs.Int("width", -1, fmt.Sprintf("children shown per call, from 1 (default %d)", adi.DefaultTreeWidth))
	return func(args []string) ([]Call, error) {
		if *depth == 0 || *depth < -1 {
			return nil, oneLinef("--depth takes a number of levels from 1 (1 shows the frame's direct calls), not %d; without it: %d", *depth, adi.DefaultTreeDepth)
		}
		if *width == 0 || *width < -1 {
			return nil, oneLinef("--width takes a number of children from 1, not %d; without it: %d", *width, adi.DefaultTreeWidth)
		}
		p, err := optionalFrame(args)
		if err != nil {
			return nil, err
		}
		if *depth > 0 {
			p["depth"] = *depth
		}
		if *width > 0 {
			p["width"] = *width
		}
		return []Call{{Method: "adi.call_tree", Params: p}}, nil
	}
}

func buildListFrames(fs *flag.FlagSet) func([]string) ([]Call, error) {
	caller := fs.String("caller", "", "keep the frames whose caller's fid or file contains this text")
	limit := fs.Int("limit", 0, "list at most this many frames")
	return func(args []string) ([]Call, error) {
		if len(args) == 0 {
			return nil, usageErrorf("the function is missing")
		}
		var calls []Call
		for _, a := range args {
			if err := checkRef(a, false); err != nil {
				return nil, err
			}
			p := map[string]any{"func": a}
			if *caller != "" {
				p["caller"] = *caller
			}
			if *limit > 0 {
				p["limit"] = *limit
			}
			calls = append(calls, Call{Method: "adi.list_frames", Params: p})
		}
		return calls, nil
	}
}

func buildDiff(*flag.FlagSet) func([]string) ([]Call, error) {
	return func(args []string) ([]Call, error) {
		if len(args) != 2 {
			return nil, usageErrorf("it takes two frames")
		}
		for _, a := range args {
			if err := checkRef(a, true); err != nil {
				return nil, err
			}
		}
		return []Call{{Method: "adi.diff", Params: map[string]any{"a": args[0], "b": args[1]}}}, nil
	}
}

// optionalFrame reads the one optional frame of call-tree and flt into their params.
func optionalFrame(args []string) (map[string]any, error) {
	p := map[string]any{}
	switch len(args) {
	case 0:
	case 1:
		if err := checkRef(args[0], true); err != nil {
			return nil, err
		}
		p["frame"] = args[0]
	default:
		return nil, usageErrorf("it takes at most one frame")
	}
	return p, nil
}

func buildFLT(fs *flag.FlagSet) func([]string) ([]Call, error) {
	v := viewFlags(fs)
	return func(args []string) ([]Call, error) {
		p, err := optionalFrame(args)
		if err != nil {
			return nil, err
		}
		return []Call{{Method: "adi.flt", Params: p}}, v.apply(p)
	}
}

func buildExec(fs *flag.FlagSet) func([]string) ([]Call, error) {
	var stmt, file string
	var line, visit int
	fs.StringVar(&stmt, "s", "", "the statement to run in the frame")
	fs.StringVar(&stmt, "stmt", "", "the statement to run in the frame")
	fs.StringVar(&file, "f", "", "a file holding the statement(s) to run")
	fs.StringVar(&file, "file", "", "a file holding the statement(s) to run")
	fs.IntVar(&line, "l", 0, "line to stop at (default: the frame's last line)")
	fs.IntVar(&line, "line", 0, "line to stop at (default: the frame's last line)")
	for _, n := range []string{"k", "visit", "i", "loop-index"} {
		fs.IntVar(&visit, n, 0, "which arrival at the line (default 1)")
	}
	then := fs.Bool("then-continue", false, "afterwards let the program run to its end and report how the frame and the program ended")
	return func(args []string) ([]Call, error) {
		if len(args) == 0 {
			return nil, usageErrorf("the frame is missing")
		}
		if err := checkRef(args[0], true); err != nil {
			return nil, err
		}
		switch {
		case file != "" && stmt != "":
			return nil, usageErrorf("give -s or -f, not both")
		case file != "":
			var err error
			if stmt, err = codeFile(file, "statement"); err != nil {
				return nil, err
			}
		case stmt == "":
			stmt = strings.Join(args[1:], " ")
		case len(args) > 1:
			return nil, usageErrorf("unexpected argument %q after the frame", args[1])
		}
		if strings.TrimSpace(stmt) == "" {
			return nil, usageErrorf("the statement is missing; pass it with -s")
		}
		p := map[string]any{"frame": args[0], "stmt": stmt}
		if line > 0 {
			p["line"] = line
		}
		if visit > 0 {
			p["visit"] = visit
		}
		if *then {
			p["then_continue"] = true
		}
		return []Call{{Method: "adi.execute", Params: p}}, nil
	}
}

// timeoutFlags accepts -t/--timeout on a command that runs no target (every peer command takes it).
func timeoutFlags(fs *flag.FlagSet) {
	var t int
	fs.IntVar(&t, "timeout", 0, "accepted like on every command; this one runs no target")
	fs.IntVar(&t, "t", 0, "short for --timeout")
}

func runSessions(ctx context.Context, g *Globals, args []string) error {
	fs := NewFlags("sessions", "[--json]", g)
	asJSON := fs.Bool("json", false, "print the JSON list")
	timeoutFlags(fs)
	pos, err := Parse(fs, g, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return UsageError("adi: sessions takes no arguments")
	}
	env, err := cliEnv(g)
	if err != nil {
		return err
	}
	if code := Sessions(ctx, env, *asJSON); code != 0 {
		return exitCode(code)
	}
	return nil
}

func runStop(ctx context.Context, g *Globals, args []string) error {
	fs := NewFlags("stop", "", g)
	timeoutFlags(fs)
	pos, err := Parse(fs, g, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return UsageError("adi: stop takes no arguments")
	}
	env, err := cliEnv(g)
	if err != nil {
		return err
	}
	if code := Stop(ctx, env); code != 0 {
		return exitCode(code)
	}
	return nil
}
