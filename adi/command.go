package adi

import (
	"strconv"
	"strings"
)

// Command is one command as an agent typed it, parsed by ParseCommand. Its concrete type says
// which command it is; String writes it back in the canonical form ParseCommand reads.
type Command interface {
	// Name is the command's canonical name ("break", "step-into", …).
	Name() string
	String() string
}

// BreakCmd is "break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]"; When and Line
// are those of Breakpoint.
type BreakCmd struct {
	Func Ref    `json:"func"`
	Cond string `json:"cond,omitempty"`
	When CondAt `json:"when,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Breakpoint is the breakpoint the command adds, for the function fn it resolved to.
func (c BreakCmd) Breakpoint(fn string) Breakpoint {
	return Breakpoint{Func: fn, Cond: trimSpace(c.Cond), When: c.When, Line: c.Line}
}

// ClearCmd is "clear [FUNC [CONDITION]]"; a nil Func clears every breakpoint.
type ClearCmd struct {
	Func *Ref   `json:"func,omitempty"`
	Cond string `json:"cond,omitempty"`
}

// ContinueCmd is "continue".
type ContinueCmd struct{}

// PrevCmd is "prev".
type PrevCmd struct{}

// StepIntoCmd is "step-into FUNC#N" (alias "step-in").
type StepIntoCmd struct {
	Frame Ref `json:"frame"`
}

// StepOutCmd is "step-out".
type StepOutCmd struct{}

// CallTreeCmd is "call-tree [FUNC#N] [--depth N] [--width N]"; a nil Frame means T[i].
type CallTreeCmd struct {
	Frame   *Ref        `json:"frame,omitempty"`
	Options TreeOptions `json:"options"`
}

// ListFramesCmd is "list-frames FUNC [--caller TEXT] [--limit N]".
type ListFramesCmd struct {
	Func   Ref         `json:"func"`
	Filter FrameFilter `json:"filter"`
}

// DiffCmd is "diff FUNC#N FUNC#M".
type DiffCmd struct {
	A Ref `json:"a"`
	B Ref `json:"b"`
}

// StateCmd is "state".
type StateCmd struct{}

// ListCmd is "list" (the breakpoints).
type ListCmd struct{}

// FLTCmd is "flt [FUNC#N]"; a nil Frame means T[i].
type FLTCmd struct {
	Frame *Ref `json:"frame,omitempty"`
}

// ExecCmd is "exec FUNC#N [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue] STATEMENT". Line 0
// means the frame's last executed line (the one it returned or raised from), and Visit is 1 unless
// given (with Line 0: the last visit). ThenContinue lets the program run on to its end after the
// statement and reports what happened downstream, so a fix hypothesis can be checked without
// editing a file. Timeout is how many seconds the statement may run (0: DefaultExecTimeout).
type ExecCmd struct {
	Frame        Ref    `json:"frame"`
	Line         int    `json:"line,omitempty"`
	Visit        int    `json:"visit"`
	ThenContinue bool   `json:"then_continue,omitempty"`
	Timeout      int    `json:"timeout,omitempty"`
	Stmt         string `json:"stmt"`
}

// DefaultExecTimeout is how many seconds an exec statement may run when the command gives no
// limit: well under the 60 s after which MCP clients give a call up.
const DefaultExecTimeout = 10

// Name returns "break".
func (BreakCmd) Name() string { return "break" }

// Name returns "clear".
func (ClearCmd) Name() string { return "clear" }

// Name returns "continue".
func (ContinueCmd) Name() string { return "continue" }

// Name returns "prev".
func (PrevCmd) Name() string { return "prev" }

// Name returns "step-into".
func (StepIntoCmd) Name() string { return "step-into" }

// Name returns "step-out".
func (StepOutCmd) Name() string { return "step-out" }

// Name returns "call-tree".
func (CallTreeCmd) Name() string { return "call-tree" }

// Name returns "list-frames".
func (ListFramesCmd) Name() string { return "list-frames" }

// Name returns "diff".
func (DiffCmd) Name() string { return "diff" }

// Name returns "state".
func (StateCmd) Name() string { return "state" }

// Name returns "list".
func (ListCmd) Name() string { return "list" }

// Name returns "flt".
func (FLTCmd) Name() string { return "flt" }

// Name returns "exec".
func (ExecCmd) Name() string { return "exec" }

// String writes "break FUNC [--on-entry|--on-return|--if-eval-lineno L] [CONDITION]", with
// "--cond" before a condition that starts with "-".
func (c BreakCmd) String() string {
	when := map[CondAt]string{AtEntry: "--on-entry", AtExit: "--on-return"}[c.When]
	marker := ""
	if first, err := (&words{s: c.Cond}).next(); err == nil && strings.HasPrefix(first, "-") {
		marker = "--cond" // a condition starting with "-" would read as an option
	}
	return join("break", quoteWord(c.Func.String()), when, numFlag("--if-eval-lineno", c.Line), marker, quoteRest(c.Cond))
}

// String writes "clear [FUNC [CONDITION]]".
func (c ClearCmd) String() string {
	if c.Func == nil {
		return "clear"
	}
	return join("clear", quoteWord(c.Func.String()), quoteRest(c.Cond))
}

// String writes "continue".
func (ContinueCmd) String() string { return "continue" }

// String writes "prev".
func (PrevCmd) String() string { return "prev" }

// String writes "step-into FUNC#N".
func (c StepIntoCmd) String() string { return join("step-into", quoteWord(c.Frame.String())) }

// String writes "step-out".
func (StepOutCmd) String() string { return "step-out" }

// String writes "call-tree [FUNC#N] [--depth N] [--width N]".
func (c CallTreeCmd) String() string {
	return join("call-tree", optRef(c.Frame), numFlag("--depth", c.Options.Depth), numFlag("--width", c.Options.Width))
}

// String writes "list-frames FUNC [--caller TEXT] [--limit N]".
func (c ListFramesCmd) String() string {
	caller := ""
	if c.Filter.Caller != "" {
		caller = "--caller " + quoteWord(c.Filter.Caller)
	}
	return join("list-frames", quoteWord(c.Func.String()), caller, numFlag("--limit", c.Filter.Limit))
}

// String writes "diff FUNC#N FUNC#M".
func (c DiffCmd) String() string {
	return join("diff", quoteWord(c.A.String()), quoteWord(c.B.String()))
}

// String writes "state".
func (StateCmd) String() string { return "state" }

// String writes "list".
func (ListCmd) String() string { return "list" }

// String writes "flt [FUNC#N]".
func (c FLTCmd) String() string { return join("flt", optRef(c.Frame)) }

// String writes "exec FUNC#N [-l LINE] [-k VISIT] [-t SECONDS] [--then-continue] [-s] STATEMENT"; -s
// marks a statement that starts with '-'.
func (c ExecCmd) String() string {
	visit := 0
	if c.Visit != 1 {
		visit = c.Visit
	}
	marker := ""
	if first, err := (&words{s: c.Stmt}).next(); err == nil && strings.HasPrefix(first, "-") {
		marker = "-s"
	}
	then := ""
	if c.ThenContinue {
		then = "--then-continue"
	}
	return join("exec", quoteWord(c.Frame.String()), numFlag("-l", c.Line), numFlag("-k", visit), numFlag("-t", c.Timeout), then, marker, quoteRest(c.Stmt))
}

// join joins the non-empty parts with spaces.
func join(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " ")
}

func optRef(r *Ref) string {
	if r == nil {
		return ""
	}
	return quoteWord(r.String())
}

func numFlag(flag string, n int) string {
	if n == 0 {
		return ""
	}
	return flag + " " + strconv.Itoa(n)
}

// quoteWord quotes a word so the command scanner reads it back unchanged.
func quoteWord(s string) string {
	if s != "" && !strings.ContainsAny(s, "'\"\\ \t\n\r\v\f") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// quoteRest writes a condition or statement so that parsing the rest of a line gives it back:
// text that parsing would unwrap (it is wholly inside one pair of quotes) is wrapped once more.
func quoteRest(s string) string {
	if !wrapped(s) {
		return s
	}
	for _, q := range []string{`"`, `'`} {
		if !strings.Contains(s, q) {
			return q + s + q
		}
	}
	return s
}

// wrapped reports whether s is wholly inside one pair of quotes that does not occur within it.
func wrapped(s string) bool {
	n := len(s)
	return n >= 2 && (s[0] == '\'' || s[0] == '"') && s[n-1] == s[0] && !strings.ContainsRune(s[1:n-1], rune(s[0]))
}

// unwrap removes the quotes around a condition or statement typed as one quoted string, as in
// break f "x > 3" (a quoted Python string would otherwise always be true).
func unwrap(s string) string {
	if wrapped(s) {
		return trimSpace(s[1 : len(s)-1])
	}
	return s
}
