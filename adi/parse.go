package adi

import (
	"fmt"
	"strings"
)

// usages gives the form of every command, for usage errors.
var usages = map[string]string{
	"break":       "break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]",
	"clear":       "clear [FUNC [CONDITION]]",
	"continue":    "continue",
	"prev":        "prev",
	"step-into":   "step-into FUNC#N",
	"step-out":    "step-out",
	"call-tree":   "call-tree [FUNC#N] [--depth N] [--width N]",
	"list-frames": "list-frames FUNC [--caller TEXT] [--limit N]",
	"diff":        "diff FUNC#N FUNC#M",
	"state":       "state",
	"list":        "list",
	"flt":         "flt [FUNC#N]",
	"exec":        "exec FUNC#N [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue] STATEMENT",
}

// bareCommands are the commands that take no arguments.
var bareCommands = map[string]Command{"continue": ContinueCmd{}, "prev": PrevCmd{}, "step-out": StepOutCmd{},
	"state": StateCmd{}, "list": ListCmd{}}

// commandNames lists the commands in the order help shows them.
const commandNames = "break, clear, continue, prev, step-into, step-out, call-tree, list-frames, flt, diff, exec, state, list"

// ParseCommand parses one command line as an agent types it, e.g. "break t:f x > 3" (or, as the
// CLI takes it, "break t:f --cond 'x > 3'"), "step-into t:g#2", "call-tree --depth 2",
// "exec t:f#1 -l 12 print(x)". A condition or statement is the rest of the line as typed (one pair
// of quotes around all of it is removed). Errors wrap ErrBadInput and give the command's usage.
func ParseCommand(line string) (Command, error) {
	w := &words{s: line}
	name, err := w.next()
	if err != nil {
		return nil, BadInputf("%s; use one of: %s", err.Error(), commandNames)
	}
	switch name {
	case "":
		return nil, BadInputf("empty command; use one of: %s", commandNames)
	case "continue", "prev", "step-out", "state", "list":
		if w.more() {
			return nil, usageErr(name, "it takes no arguments")
		}
		return bareCommands[name], nil
	case "break":
		return parseBreak(w)
	case "clear":
		return parseClear(w)
	case "step-into", "step-in":
		return parseStepInto(w)
	case "call-tree":
		return parseCallTree(w)
	case "list-frames":
		return parseListFrames(w)
	case "diff":
		return parseDiff(w)
	case "flt":
		return parseFLT(w)
	case "exec":
		return parseExec(w)
	}
	return nil, BadInputf("unknown command %q; use one of: %s", name, commandNames)
}

func usageErr(cmd, problem string) error {
	return BadInputf("%s: %s; usage: %s", cmd, problem, usages[cmd])
}

// ref reads a reference; frame says whether it must name a frame (FUNC#N) or a function (FUNC).
func ref(cmd string, w *words, frame bool) (Ref, error) {
	word, err := w.next()
	if err != nil {
		return Ref{}, usageErr(cmd, err.Error())
	}
	if strings.HasPrefix(word, "-") {
		return Ref{}, usageErr(cmd, fmt.Sprintf("unknown option %q", word))
	}
	r, err := ParseRef(word)
	switch {
	case err != nil:
		return Ref{}, fmt.Errorf("%s: %w", cmd, err)
	case frame && !r.NamesFrame():
		return Ref{}, usageErr(cmd, fmt.Sprintf("%s names a function; add the invocation index, e.g. %s#1", r, r))
	case !frame && r.Pinned():
		return Ref{}, usageErr(cmd, fmt.Sprintf("%s names a frame, but %s takes a function (to inspect that frame: step-into %s)", r, cmd, r))
	}
	return r, nil
}

// number reads the value of a numeric option: from "--opt=N" or the next word.
func number(cmd, opt, inline string, w *words) (int, error) {
	v := inline
	if v == "" {
		var err error
		if v, err = w.next(); err != nil {
			return 0, usageErr(cmd, err.Error())
		}
	}
	n, ok := parseCount(v)
	if !ok {
		return 0, usageErr(cmd, fmt.Sprintf("%s takes a whole number from 1 (got %q)", opt, v))
	}
	return n, nil
}

func parseBreak(w *words) (Command, error) {
	if !w.more() {
		return nil, usageErr("break", "the function is missing")
	}
	r, err := ref("break", w, false)
	if err != nil {
		return nil, err
	}
	c := BreakCmd{Func: r}
	for w.more() {
		start := w.pos
		word, err := w.next()
		if err != nil { // not an option: the condition is raw Python text, quotes and all
			w.pos = start
			break
		}
		opt, inline, _ := strings.Cut(word, "=")
		switch opt {
		case "--on-entry":
			c.When = AtEntry
			continue
		case "--on-return":
			c.When = AtExit
			continue
		case "--if-eval-lineno":
			if c.Line, err = number("break", opt, inline, w); err != nil {
				return nil, err
			}
			continue
		}
		w.pos = start
		break
	}
	if c.Cond, err = condition(w); err != nil {
		return nil, err
	}
	if err := c.Breakpoint(r.String()).Check(); err != nil {
		return nil, fmt.Errorf("break: %w", err)
	}
	return c, nil
}

// condOptions are the options that may name a breakpoint's condition, as the CLI's break takes it.
var condOptions = []string{"--cond", "--condition", "-c"}

// condition reads a breakpoint's condition: the rest of the line, or what follows --cond
// (--condition, -c; also --cond=EXPR), so that "break f --cond 'x > 3'" reads as the CLI does.
// A condition that itself starts with "-" must be given after --cond.
func condition(w *words) (string, error) {
	w.skip()
	rest := w.s[w.pos:]
	for _, opt := range condOptions {
		var c string
		switch {
		case rest == opt || strings.HasPrefix(rest, opt) && isSpace(rest[len(opt)]):
			c = rest[len(opt):]
		case strings.HasPrefix(rest, opt+"="):
			c = rest[len(opt)+1:]
		default:
			continue
		}
		w.pos = len(w.s)
		if c = unwrap(trimSpace(c)); c == "" {
			return "", usageErr("break", fmt.Sprintf("%s needs a condition, e.g. %s 'x > 3'", opt, opt))
		}
		return c, nil
	}
	return unwrap(w.rest()), nil
}

func parseClear(w *words) (Command, error) {
	if !w.more() {
		return ClearCmd{}, nil
	}
	r, err := ref("clear", w, false)
	if err != nil {
		return nil, err
	}
	return ClearCmd{Func: &r, Cond: unwrap(w.rest())}, nil
}

func parseStepInto(w *words) (Command, error) {
	if !w.more() {
		return nil, usageErr("step-into", "the frame is missing")
	}
	r, err := ref("step-into", w, true)
	if err != nil {
		return nil, err
	}
	if w.more() {
		return nil, usageErr("step-into", "it takes one frame")
	}
	return StepIntoCmd{Frame: r}, nil
}

func parseCallTree(w *words) (Command, error) {
	var c CallTreeCmd
	for w.more() {
		start := w.pos
		word, err := w.next()
		if err != nil {
			return nil, usageErr("call-tree", err.Error())
		}
		opt, inline, hasInline := strings.Cut(word, "=")
		if hasInline && inline == "" {
			return nil, usageErr("call-tree", fmt.Sprintf("%s= needs a number", opt))
		}
		switch {
		case opt == "--depth":
			if c.Options.Depth, err = number("call-tree", opt, inline, w); err != nil {
				return nil, err
			}
		case opt == "--width":
			if c.Options.Width, err = number("call-tree", opt, inline, w); err != nil {
				return nil, err
			}
		case c.Frame != nil:
			return nil, usageErr("call-tree", fmt.Sprintf("it takes one frame (got %q too)", word))
		default:
			w.pos = start
			r, err := ref("call-tree", w, true)
			if err != nil {
				return nil, err
			}
			c.Frame = &r
		}
	}
	return c, nil
}

func parseListFrames(w *words) (Command, error) {
	var c ListFramesCmd
	seen := false
	for w.more() {
		start := w.pos
		word, err := w.next()
		if err != nil {
			return nil, usageErr("list-frames", err.Error())
		}
		opt, inline, hasInline := strings.Cut(word, "=")
		if hasInline && inline == "" && opt == "--limit" {
			return nil, usageErr("list-frames", "--limit= needs a number")
		}
		switch {
		case opt == "--caller":
			if !hasInline {
				if inline, err = w.next(); err != nil {
					return nil, usageErr("list-frames", err.Error())
				}
			}
			if inline == "" {
				return nil, usageErr("list-frames", "--caller takes a text to look for in the caller's fid or file")
			}
			c.Filter.Caller = inline
		case opt == "--limit":
			if c.Filter.Limit, err = number("list-frames", opt, inline, w); err != nil {
				return nil, err
			}
		case seen:
			return nil, usageErr("list-frames", fmt.Sprintf("it takes one function (got %q too)", word))
		default:
			w.pos = start
			if c.Func, err = ref("list-frames", w, false); err != nil {
				return nil, err
			}
			seen = true
		}
	}
	if !seen {
		return nil, usageErr("list-frames", "the function is missing")
	}
	return c, nil
}

func parseDiff(w *words) (Command, error) {
	var refs []Ref
	for w.more() {
		if len(refs) == 2 {
			return nil, usageErr("diff", "it takes two frames")
		}
		r, err := ref("diff", w, true)
		if err != nil {
			return nil, err
		}
		refs = append(refs, r)
	}
	if len(refs) != 2 {
		return nil, usageErr("diff", "it takes two frames")
	}
	return DiffCmd{A: refs[0], B: refs[1]}, nil
}

func parseFLT(w *words) (Command, error) {
	if !w.more() {
		return FLTCmd{}, nil
	}
	r, err := ref("flt", w, true)
	if err != nil {
		return nil, err
	}
	if w.more() {
		return nil, usageErr("flt", "it takes one frame")
	}
	return FLTCmd{Frame: &r}, nil
}

func parseExec(w *words) (Command, error) {
	if !w.more() {
		return nil, usageErr("exec", "the frame is missing")
	}
	r, err := ref("exec", w, true)
	if err != nil {
		return nil, err
	}
	c := ExecCmd{Frame: r, Visit: 1}
	for w.more() {
		start := w.pos
		// A word that cannot be read (an unbalanced quote) starts the statement.
		word, err := w.next()
		if err != nil || (word != "-l" && word != "-k" && word != "-t" && word != "-s" && word != "--then-continue") {
			w.pos = start
			break
		}
		if word == "-s" {
			break
		}
		if word == "--then-continue" {
			c.ThenContinue = true
			continue
		}
		n, err := number("exec", word, "", w)
		if err != nil {
			return nil, err
		}
		switch word {
		case "-l":
			c.Line = n
		case "-t":
			c.Timeout = n
		default:
			c.Visit = n
		}
	}
	if c.Stmt = unwrap(w.rest()); c.Stmt == "" {
		return nil, usageErr("exec", "the statement is missing")
	}
	return c, nil
}
