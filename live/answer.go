package live

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/internal/faces"
)

// Answer is what every live command returns: its own result, and the session's summary.
type Answer struct {
	Live    string `json:"live"`
	Command string `json:"command"`
	// Text is the whole answer for a language model: the result, then the summary.
	Text string `json:"text"`
	// Result is the command's own result as JSON (see the result types; nil for status).
	Result any `json:"result,omitempty"`
	Summary
}

// Summary is the session's state, attached to every answer.
type Summary struct {
	State State `json:"state"`
	// Why says how the session got into its state, in one line.
	Why string `json:"why"`
	// Run counts the runs: 1, then one more per restart.
	Run int `json:"run"`
	// Stack is the paused thread's frames, innermost first (empty unless paused).
	Stack []Frame `json:"stack"`
	// Exception is the exception the program is paused on (RuntimeError, PostMortem).
	Exception   *Exception   `json:"exception,omitempty"`
	Breakpoints []Breakpoint `json:"breakpoints"`
	// ExitCode is the exit status once Done (nil before, and when it is unknown).
	ExitCode *int `json:"exit_code,omitempty"`
	// Output is the target's output since the previous answer.
	Output Output `json:"output"`
	// Valid lists the commands valid now.
	Valid []string `json:"valid"`
	// Pid is the program's process id while it runs (0 before it is known and once Done).
	Pid int `json:"pid,omitempty"`
}

// Exception is the exception a session is paused on.
type Exception struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	// Mode is "leaving_user_code" (RuntimeError) or "uncaught" (PostMortem).
	Mode string `json:"mode"`
}

func (e *Exception) String() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// short is String on one line (a message's first line, at most 200 characters), for summaries.
func (e *Exception) short() string {
	s := e.String()
	first, _, more := strings.Cut(s, "\n")
	if r := []rune(first); len(r) > 200 {
		first, more = string(r[:200]), true
	}
	if more {
		first += " …"
	}
	return first
}

// result is a command's own part of an answer.
type result struct {
	text string
	json any
}

// answer builds the answer of cmd: res, then the summary (taking the output not yet shown).
func (s *Session) answer(cmd string, res result) *Answer {
	sum := s.summary()
	var b strings.Builder
	if res.text != "" {
		b.WriteString(strings.TrimRight(res.text, "\n"))
		b.WriteString("\n\n")
	}
	for _, l := range s.summaryLines(sum) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return &Answer{Live: s.ID, Command: cmd, Text: b.String(), Result: res.json, Summary: sum}
}

// summary takes a snapshot of the state, and the output not yet shown.
func (s *Session) summary() Summary {
	sum := Summary{State: s.state, Why: s.why, Run: s.runs, Stack: append([]Frame{}, s.stack...),
		Breakpoints: []Breakpoint{}, Output: s.out.take(), Valid: s.valid()}
	if s.closed.Load() {
		sum.Valid = []string{}
	}
	if s.state == RuntimeError || s.state == PostMortem {
		sum.Exception = s.exc
	}
	for _, b := range s.bps {
		sum.Breakpoints = append(sum.Breakpoints, b.info(s.prog.Dir))
	}
	if s.state == Done && s.run != nil {
		if code, ok := s.run.exit(); ok {
			sum.ExitCode = &code
		}
	} else if s.run != nil {
		sum.Pid = s.run.debuggeePid()
	}
	return sum
}

// summaryLines renders the summary in a few lines.
func (s *Session) summaryLines(sum Summary) []string {
	lines := []string{fmt.Sprintf("── live %s · %s · run %d: %s", s.ID, sum.State, sum.Run, sum.Why)}
	if len(sum.Stack) > 0 {
		lines = append(lines, "Stack (innermost last):")
		lines = append(lines, stackLines(s.prog.Dir, sum.Stack, maxSummaryFrames)...)
	}
	if len(s.bps) == 0 {
		lines = append(lines, "Breakpoints: none")
	} else {
		var bs []string
		for _, b := range s.bps {
			bs = append(bs, b.text(s.prog.Dir))
		}
		lines = append(lines, "Breakpoints: "+strings.Join(bs, "; "))
	}
	lines = append(lines, sum.Output.lines()...)
	if len(sum.Valid) > 0 {
		lines = append(lines, "Valid now: "+cmdList(sum.Valid))
	} else {
		lines = append(lines, "The session is closed; "+faces.Cmd("live.start")+" starts a new one.")
	}
	return lines
}
