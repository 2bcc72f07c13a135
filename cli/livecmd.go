package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// `adi live SUBCOMMAND`: live mode from bash. Each subcommand is one call of a live.* method on
// the daemon the other CLI commands use; the session persists there between commands.
func init() {
	commands["live"] = command{summary: "a paused, live Python process under debugpy: adi live start \"CMD\", break, continue, interact, …", run: runLive}
}

// liveSub is one `adi live` subcommand: its usage and how its flags and arguments become params.
type liveSub struct {
	usage, summary, method string
	build                  func(fs *flag.FlagSet) func(args []string) (map[string]any, error)
}

var liveSubs = map[string]liveSub{
	"start":    {`"CMD" [--id ID] [-t SECONDS]`, "launch CMD under debugpy, paused before its first line", "live.start", buildLiveStart},
	"attach":   {`HOST:PORT [--allow-remote] [--id ID]`, "attach to python -m debugpy --listen HOST:PORT (close detaches)", "live.attach", buildLiveAttach},
	"break":    {`FILE:LINE [--cond EXPR] [--keep]`, "add a breakpoint (removed once hit unless --keep)", "live.set_breakpoint", buildLiveBreak},
	"clear":    {`[FILE:LINE]`, "remove a breakpoint (all without FILE:LINE)", "live.clear", buildLiveClear},
	"continue": {`[--background]`, "run to the next stop, the end, or the watchdog's limit (--background: return at once)", "live.continue", buildLiveContinue},
	"watch":    {`FUNC [--cond EXPR] [--max N]`, "record the FLT of every following call of FUNC as the program runs", "live.watch", buildLiveWatch},
	"unwatch":  {`[FUNC]`, "stop watching FUNC (every function without it); what was caught stays", "live.unwatch", buildLiveUnwatch},
	"caught":   {``, "what each watch caught (then: adi flt --session LIVE FUNC#N, call-tree, diff)", "live.caught", noLiveArgs},
	"flt":      {`[FUNC#N] [--finish]`, "FLT of a caught call, or of the paused one so far (--finish: to its end)", "live.flt", buildLiveFLT},
	"restart":  {``, "a fresh run with the same breakpoints", "live.restart", noLiveArgs},
	"interact": {`CODE... [--frame N] | -f FILE | -`, "run statements in the paused frame (- reads them from stdin)", "live.interact", buildLiveInteract},
	"stack":    {``, "the paused program's frames with their locals", "live.stack", noLiveArgs},
	"where":    {``, "the current line with the source around it", "live.where", noLiveArgs},
	"status":   {``, "the session's state, stack, breakpoints and new output", "live.status", noLiveArgs},
	"close":    {``, "end every process of the live session", "live.close", noLiveArgs},
	"list":     {``, "list the daemon's live sessions", "live.list", noLiveArgs},
}

// liveAliases are other names agents type for the subcommands.
var liveAliases = map[string]string{"set_breakpoint": "break", "set-breakpoint": "break", "b": "break", "c": "continue",
	"cont": "continue", "i": "interact", "exec": "interact", "bt": "stack", "w": "where", "sessions": "list"}

func runLive(ctx context.Context, g *Globals, args []string) error {
	if len(args) >= 2 && args[0] == "help" && !strings.HasPrefix(args[1], "-") {
		args = []string{args[1], "-h"} // adi live help break = adi live break -h
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		liveUsage(g.Stdout)
		return nil
	}
	name := args[0]
	if a, ok := liveAliases[name]; ok {
		name = a
	}
	sub, ok := liveSubs[name]
	if !ok {
		return UsageError("adi: unknown live command %q; run `adi live help` for the list", args[0])
	}
	fs := NewFlags("live "+name, sub.usage, g)
	live := fs.String("live", os.Getenv("ADI_LIVE"), "the live session (default $ADI_LIVE, else the last one adi live start opened here)")
	asJSON := fs.Bool("json", false, "print the JSON answer instead of the text")
	finish := sub.build(fs)
	pos, err := Parse(fs, g, args[1:])
	if err != nil {
		return err
	}
	params, err := finish(pos)
	if err != nil {
		return UsageError("adi: live %s: %v; usage: adi live %s %s", name, err, name, sub.usage)
	}
	env, err := cliEnv(g)
	if err != nil {
		return err
	}
	inv := LiveInvocation{Name: name, Method: sub.method, Params: params, Live: *live, JSON: *asJSON}
	if code := Live(ctx, env, inv); code != 0 {
		return exitCode(code)
	}
	return nil
}

func liveUsage(w io.Writer) {
	fmt.Fprintln(w, "adi live: debug a paused, live Python process under debugpy (states Start, Running, Runtime, RuntimeError,")
	fmt.Fprintln(w, "PostMortem, Done; a command invalid in the state is refused; every answer ends with a summary).")
	fmt.Fprintln(w, "\nUsage: adi live <command> [flags] [args]   (--live ID picks the session; default: the last started)\n\nCommands:")
	names := make([]string, 0, len(liveSubs))
	for n := range liveSubs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := liveSubs[n]
		fmt.Fprintf(w, "  %-9s %-34s %s\n", n, s.usage, s.summary)
	}
	fmt.Fprintln(w, "\nA typical loop: adi live start \"python -m pytest t.py -q\"; adi live break t.py:12; adi live continue;")
	fmt.Fprintln(w, "adi live interact 'print(total)'; adi live interact 'rate = 0.1'; adi live continue.")
	fmt.Fprintln(w, "\nA server or anything that cannot be re-run: adi live start \"python app.py\"; adi live watch handle;")
	fmt.Fprintln(w, "adi live continue --background; (requests arrive) adi live caught; adi live flt handle#2;")
	fmt.Fprintln(w, "every ADI command answers about the caught calls with --session LIVE_ID: adi diff --session LIVE_ID handle#1 handle#2.")
}

func noLiveArgs(*flag.FlagSet) func([]string) (map[string]any, error) {
	return func(args []string) (map[string]any, error) {
		if len(args) > 0 {
			return nil, fmt.Errorf("unexpected argument %q", args[0])
		}
		return map[string]any{}, nil
	}
}

func buildLiveContinue(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	bg := fs.Bool("background", false, "return at once and let the program run on (watches record; a later continue waits for a stop)")
	return func(args []string) (map[string]any, error) {
		if len(args) > 0 {
			return nil, fmt.Errorf("unexpected argument %q", args[0])
		}
		if *bg {
			return map[string]any{"background": true}, nil
		}
		return map[string]any{}, nil
	}
}

func buildLiveWatch(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	flagCond := condFlag(fs, "catch only the calls where this Python expression is true on entry (with the arguments), e.g. 'qty > 3'")
	maxN := fs.Int("max", 0, "stop watching after this many caught calls (default: no limit)")
	return func(args []string) (map[string]any, error) {
		if len(args) == 0 {
			return nil, fmt.Errorf("the function is missing, e.g. checkout or Cart.checkout")
		}
		cond, err := condition(*flagCond, args[1:], "function")
		if err != nil {
			return nil, err
		}
		p := map[string]any{"func": args[0]}
		if cond != "" {
			p["condition"] = cond
		}
		if *maxN != 0 {
			p["max"] = *maxN
		}
		return p, nil
	}
}

func buildLiveUnwatch(*flag.FlagSet) func([]string) (map[string]any, error) {
	return func(args []string) (map[string]any, error) {
		switch len(args) {
		case 0:
			return map[string]any{}, nil
		case 1:
			return map[string]any{"func": args[0]}, nil
		}
		return nil, fmt.Errorf("it takes at most one function")
	}
}

func buildLiveFLT(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	finish := fs.Bool("finish", false, "let the program run until the invocation returns, then show its whole FLT")
	return func(args []string) (map[string]any, error) {
		p := map[string]any{}
		switch len(args) {
		case 0:
		case 1:
			p["frame"] = args[0]
		default:
			return nil, fmt.Errorf("it takes at most one FUNC#N")
		}
		if *finish {
			p["finish"] = true
		}
		return p, nil
	}
}

func buildLiveStart(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	id := fs.String("id", "", "name the live session (default: derived from CMD and the directory)")
	var timeout int
	fs.IntVar(&timeout, "timeout", 0, "the watchdog's limit in seconds: a continue or interact running longer is paused (default 30)")
	fs.IntVar(&timeout, "t", 0, "short for --timeout")
	return func(args []string) (map[string]any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("give the target command as one quoted argument, e.g. \"python t.py\"")
		}
		p := map[string]any{"command": args[0]}
		if *id != "" {
			p["id"] = *id
		}
		if timeout > 0 {
			p["timeout_ms"] = timeout * 1000
		}
		return p, nil
	}
}

func buildLiveAttach(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	id := fs.String("id", "", "name the live session (default: --live, else derived from HOST:PORT and the directory)")
	var timeout int
	fs.IntVar(&timeout, "timeout", 0, "the watchdog's limit in seconds: a continue that does not stop within it answers (default 30)")
	fs.IntVar(&timeout, "t", 0, "short for --timeout")
	remote := fs.Bool("allow-remote", false, "allow a HOST that is not loopback (debugpy runs any code its client sends, unencrypted)")
	return func(args []string) (map[string]any, error) {
		if len(args) != 1 {
			return nil, fmt.Errorf("give the address debugpy listens on, e.g. 127.0.0.1:5678")
		}
		p := map[string]any{"address": args[0]}
		if *id != "" {
			p["id"] = *id
		}
		if timeout > 0 {
			p["timeout_ms"] = timeout * 1000
		}
		if *remote {
			p["allow_remote"] = true
		}
		return p, nil
	}
}

func buildLiveBreak(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	flagCond := condFlag(fs, "stop only when this Python expression is true there, e.g. 'i > 3'")
	keep := fs.Bool("keep", false, "keep the breakpoint after it is hit (default: removed once hit)")
	return func(args []string) (map[string]any, error) {
		if len(args) == 0 {
			return nil, fmt.Errorf("the location is missing")
		}
		cond, err := condition(*flagCond, args[1:], "location")
		if err != nil {
			return nil, err
		}
		p := map[string]any{"location": args[0]}
		if cond != "" {
			p["condition"] = cond
		}
		if *keep {
			p["keep"] = true
		}
		return p, nil
	}
}

func buildLiveClear(*flag.FlagSet) func([]string) (map[string]any, error) {
	return func(args []string) (map[string]any, error) {
		switch len(args) {
		case 0:
			return map[string]any{}, nil
		case 1:
			return map[string]any{"location": args[0]}, nil
		}
		return nil, fmt.Errorf("it takes at most one FILE:LINE")
	}
}

func buildLiveInteract(fs *flag.FlagSet) func([]string) (map[string]any, error) {
	frame := fs.Int("frame", 0, "the frame to run in: 0 is the innermost (as stack numbers them)")
	var file string
	fs.StringVar(&file, "f", "", "a file holding the code to run")
	fs.StringVar(&file, "file", "", "a file holding the code to run")
	return func(args []string) (map[string]any, error) {
		code := strings.Join(args, " ")
		switch {
		case file != "" && code != "":
			return nil, fmt.Errorf("give the code or -f, not both")
		case file != "":
			var err error
			if code, err = codeFile(file, "code"); err != nil {
				return nil, err
			}
		case code == "-":
			b, err := io.ReadAll(os.Stdin)
			if err != nil {
				return nil, fmt.Errorf("cannot read the code from stdin: %v", err)
			}
			code = string(b)
		}
		if strings.TrimSpace(code) == "" {
			return nil, fmt.Errorf("the code is missing")
		}
		p := map[string]any{"code": code}
		if *frame > 0 {
			p["frame"] = *frame
		}
		return p, nil
	}
}
