package adi

import (
	"fmt"
	"strings"
)

// ExecResult is what execute(fid, stmt, lineno, k) gave, and where it ran. Neither the source nor
// T changes.
type ExecResult struct {
	FID   string `json:"fid"`
	Line  int    `json:"line"`
	Visit int    `json:"visit"`
	Stmt  string `json:"stmt"`
	// Output is what the statement printed (stdout and stderr).
	Output string `json:"output"`
	// Value is the repr of the statement's value when it is an expression.
	Value *string `json:"value,omitempty"`
	// Exception is set when the statement raised; its Line counts within the statement.
	Exception *Exception `json:"exception,omitempty"`
	// Traceback lists the frames of the exception from the statement's own line on.
	Traceback []string `json:"traceback,omitempty"`
	// Changed lists the names the statement bound or rebound (in the frame or its module), with
	// the repr of their new values.
	Changed []Assignment `json:"changed,omitempty"`
	// Downstream is what happened after the statement when the program was let run on.
	Downstream *Downstream `json:"downstream,omitempty"`
}

// Assignment is a name a statement bound, and the repr of its new value.
type Assignment struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Downstream is the outcome of letting a program run on after exec --then-continue: how the frame
// the statement ran in ended, and how the program ended.
type Downstream struct {
	// Frame is how the frame ended: its return value or exception.
	FrameStatus    Status     `json:"frame_status"`
	FrameReturn    string     `json:"frame_return,omitempty"`
	FrameException *Exception `json:"frame_exception,omitempty"`
	// ExitCode is the program's exit status (for a test run: 0 passed, non-zero failed).
	ExitCode int `json:"exit_code"`
	// Before is the exit status of the recorded run, for comparison.
	Before int `json:"exit_code_before"`
	// Tail is the end of what the program printed after the statement.
	Tail string `json:"output_tail,omitempty"`
}

// Text renders where the statement ran, then its output, value or exception.
func (r *ExecResult) Text(o TextOptions) string {
	return fitText(o, []shrink{shrinkValues}, func(d detail) doc {
		first, _, _ := strings.Cut(r.Stmt, "\n")
		if first != r.Stmt {
			first += " …"
		}
		dc := doc{unit: "output line", indent: "  ",
			head: []string{fmt.Sprintf("Exec at %s, line %d, visit %d: %s", r.FID, r.Line, r.Visit, first)}}
		out := strings.TrimSuffix(CutOutput(r.Output), "\n")
		switch {
		case out == "" && len(r.Changed) > 0:
		case out == "":
			dc.head = append(dc.head, "Output: (none)")
		default:
			dc.head = append(dc.head, "Output:")
			for i, l := range strings.Split(out, "\n") {
				dc.total++
				dc.add(chunk{lines: []string{"  " + l}, first: i + 1, last: i + 1})
			}
		}
		if len(r.Changed) > 0 {
			cs := make([]string, len(r.Changed))
			for i, c := range r.Changed {
				cs[i] = c.Name + " = " + d.val(c.Value)
			}
			dc.foot = append(dc.foot, "Changed: "+strings.Join(cs, ", "))
		}
		switch {
		case r.Exception != nil:
			dc.foot = append(dc.foot, "Raised: "+d.val(r.Exception.String()))
			for _, l := range r.Traceback {
				dc.foot = append(dc.foot, "  "+l)
			}
		case r.Value != nil:
			dc.foot = append(dc.foot, "Value: "+d.val(*r.Value))
		}
		if ds := r.Downstream; ds != nil {
			dc.foot = append(dc.foot, ds.lines(d)...)
		}
		return dc
	})
}

// lines renders the downstream outcome.
func (ds *Downstream) lines(d detail) []string {
	var frame string
	switch ds.FrameStatus {
	case Returned:
		frame = "returned " + d.val(ds.FrameReturn)
	case Raised:
		frame = "raised " + d.val(ds.FrameException.String())
	default:
		frame = "did not finish"
	}
	verdict := "the same as before"
	switch {
	case ds.ExitCode == 0 && ds.Before != 0:
		verdict = fmt.Sprintf("it now succeeds (exit 0; it exited %d before)", ds.Before)
	case ds.ExitCode != 0 && ds.Before == 0:
		verdict = fmt.Sprintf("it now fails (exit %d; it exited 0 before)", ds.ExitCode)
	case ds.ExitCode != ds.Before:
		verdict = fmt.Sprintf("exit %d (it exited %d before)", ds.ExitCode, ds.Before)
	default:
		verdict = fmt.Sprintf("exit %d, %s", ds.ExitCode, verdict)
	}
	out := []string{"Then continued: the frame " + frame + "; the program ended: " + verdict + "."}
	if t := strings.TrimRight(ds.Tail, "\n"); t != "" {
		out = append(out, "Output after the statement (tail):")
		for _, l := range strings.Split(t, "\n") {
			out = append(out, "  "+l)
		}
	}
	return out
}

// OutputTextLimit is how many characters of what code run in a frame printed an answer's text
// shows (exec and live interact): the result keeps up to a million (the probe's evaluator), the
// text for a reader its start and end.
const OutputTextLimit = 16000

// CutOutput returns output as an answer's text shows it: whole up to OutputTextLimit characters,
// else its start and end with how much was cut between.
func CutOutput(output string) string {
	r := []rune(output)
	if len(r) <= OutputTextLimit {
		return output
	}
	half := OutputTextLimit / 2
	return string(r[:half]) + fmt.Sprintf("\n[... %d characters cut ...]\n", len(r)-OutputTextLimit) + string(r[len(r)-half:])
}
