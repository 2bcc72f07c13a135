package live

import "github.com/adi-bridge/adi/internal/faces"

// State is where a live session is, as InspectWare names it.
type State string

// The states of a live session.
const (
	// Start: the program is launched under debugpy but has not run a line yet; breakpoints set
	// now are in place before it starts. continue starts it.
	Start State = "Start"
	// Runtime: paused in the program's code, at a breakpoint or by the watchdog.
	Runtime State = "Runtime"
	// RuntimeError: paused on an exception that is leaving the program's own code (a test
	// framework or the interpreter will handle it next); the frames are live.
	RuntimeError State = "RuntimeError"
	// PostMortem: the program is ending by an uncaught exception; it is kept paused there so the
	// frames of the traceback stay inspectable. continue lets it exit.
	PostMortem State = "PostMortem"
	// Running: the program runs on its own (continue with background, or attached to with
	// live.attach): watches record, breakpoints stop it; continue waits for the next stop.
	Running State = "Running"
	// Done: the program has exited (or was ended); only its output and exit status remain.
	Done State = "Done"
)

// The commands of a live session, as the API names them.
const (
	CmdSetBreakpoint = "set_breakpoint"
	CmdClear         = "clear"
	CmdContinue      = "continue"
	CmdRestart       = "restart"
	CmdInteract      = "interact"
	CmdStack         = "stack"
	CmdWhere         = "where"
	CmdStatus        = "status"
	CmdClose         = "close"
	CmdWatch         = "watch"
	CmdUnwatch       = "unwatch"
	CmdCaught        = "caught"
	CmdFLT           = "flt"
)

// Commands lists every command in a stable order.
var Commands = []string{CmdSetBreakpoint, CmdClear, CmdContinue, CmdRestart, CmdInteract, CmdStack, CmdWhere, CmdStatus, CmdClose,
	CmdWatch, CmdUnwatch, CmdCaught, CmdFLT}

// paused reports whether the program is stopped with frames to look at.
func (s State) paused() bool { return s == Runtime || s == RuntimeError || s == PostMortem }

// Valid lists the commands that are valid in state s, in the order of Commands.
func Valid(s State) []string {
	var out []string
	for _, c := range Commands {
		if refusal(s, c) == "" {
			out = append(out, c)
		}
	}
	return out
}

// refusal says why cmd is invalid in state s ("" when it is valid).
func refusal(s State, cmd string) string {
	switch cmd {
	case CmdInteract, CmdStack, CmdWhere:
		switch s {
		case Start:
			return "the program has not started yet, so nothing is paused; set a breakpoint (" + cmdMark(CmdSetBreakpoint) + "), then " + cmdMark(CmdContinue)
		case Done:
			return "the program has ended, so there is no frame left; " + cmdMark(CmdRestart) + " runs it again"
		case Running:
			return "the program is running, so nothing is paused; " + cmdMark(CmdContinue) + " waits until it stops (set a breakpoint first with " + cmdMark(CmdSetBreakpoint) + ")"
		}
	case CmdWatch:
		if s == Done {
			return "the program has ended; " + cmdMark(CmdRestart) + " runs it again (watches stay set across restarts)"
		}
	case CmdContinue:
		if s == Done {
			return "the program has ended; " + cmdMark(CmdRestart) + " runs it again"
		}
	}
	return ""
}

// cmd is the marker of a live command in a message (package faces): each face renders it in its
// own name, e.g. "restart" as `adi live restart`, live_restart or live.restart.
func cmdMark(name string) string { return faces.Cmd("live." + name) }
