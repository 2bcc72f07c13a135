package live

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/errkind"
)

// interactGrace is how much longer than the watchdog's limit adi waits for an interact before it
// concludes that the code cannot be interrupted.
const interactGrace = 5 * time.Second

// InteractResult is what interact's code did.
type InteractResult struct {
	Frame  Frame   `json:"frame"`
	Output string  `json:"output"`
	Value  *string `json:"value,omitempty"`
	// Exception is set when the code raised (Line counts within the code); the program stays
	// paused where it was. Traceback lists the frames from the code's own line on.
	Exception *adi.Exception `json:"exception,omitempty"`
	Traceback []string       `json:"traceback,omitempty"`
	// TimedOut is set when the code ran past the watchdog's limit and was interrupted.
	TimedOut bool `json:"timed_out,omitempty"`
	// Changed lists the names the code bound or rebound, with the repr of their new values.
	Changed   []Variable `json:"changed,omitempty"`
	ElapsedMS float64    `json:"elapsed_ms"`
}

// helperAnswer is what adi_live.interact returns, base64-encoded: the answer of the probe's
// evaluator (probe/python/adi_probe/evaluate.py), the one exec uses too.
type helperAnswer struct {
	Output    string         `json:"output"`
	Value     *string        `json:"value"`
	Exception *adi.Exception `json:"exception"`
	Traceback []string       `json:"traceback"`
	TimedOut  bool           `json:"timed_out"`
	Changed   [][2]string    `json:"changed"`
}

// interact runs code in a frame of the paused program (one DAP evaluate of the launcher's
// helper): its output is captured, an expression's value shown, an exception reported while the
// program stays paused, and assignments persist.
func (s *Session) interact(ctx context.Context, code string, index int) (result, error) {
	if strings.TrimSpace(code) == "" {
		return result{}, adi.BadInputf("%s needs code to run, e.g. print(total) or x = 3", cmdMark(CmdInteract))
	}
	if len(s.stack) == 0 {
		return result{}, adi.NotFoundf("the program is paused with no frame of its own code to run in; %s or %s", cmdMark(CmdContinue), cmdMark(CmdRestart))
	}
	if index < 0 || index >= len(s.stack) {
		return result{}, adi.NotFoundf("frame %d does not exist; the stack has frames 0 to %d (0 is the innermost)", index, len(s.stack)-1)
	}
	f := s.stack[index]
	lit, _ := json.Marshal(code) // a JSON string is a valid Python string literal
	limit := s.opts.Timeout
	expr := fmt.Sprintf("__import__('adi_live').interact(%s, %g)", lit, limit.Seconds())
	if s.run.attached {
		expr = s.run.helperImport() + " or " + expr
	}
	started := time.Now()
	ectx, cancel := context.WithTimeout(ctx, limit+interactGrace)
	body, err := s.run.c.Evaluate(ectx, expr, f.id, "clipboard")
	cancel()
	elapsed := ms(time.Since(started))
	if err != nil {
		var re *dap.ResponseError
		switch {
		case s.closed.Load():
			return result{}, errClosed(s.ID)
		case errors.As(err, &re):
			return result{}, fmt.Errorf("debugpy could not run the code in %s: %s; the program is still paused", s.frameText(f), errkind.OneLine(re.Message))
		case ectx.Err() != nil && ctx.Err() == nil:
			why := fmt.Sprintf("interact did not return within %s and could not be interrupted (it runs outside the main thread or blocks outside Python code); adi ended the program", seconds(ms(limit+interactGrace)))
			s.endRun(why)
			return result{text: "interact: " + why + ". " + cmdMark(CmdRestart) + " runs it again.", json: InteractResult{Frame: f, TimedOut: true, ElapsedMS: elapsed}}, nil
		}
		return result{}, s.lost(err)
	}
	h, err := decodeHelper(body.Result)
	if err != nil {
		return result{}, err
	}
	res := InteractResult{Frame: f, Output: h.Output, Value: h.Value, Exception: h.Exception, Traceback: h.Traceback, TimedOut: h.TimedOut, ElapsedMS: elapsed}
	for _, c := range h.Changed {
		res.Changed = append(res.Changed, Variable{Name: c[0], Value: c[1]})
	}
	return result{text: s.interactText(res), json: res}, nil
}

// decodeHelper reads the helper's answer as debugpy shows it: the repr of a base64 string.
func decodeHelper(shown string) (*helperAnswer, error) {
	raw := strings.Trim(strings.TrimSpace(shown), `'"`)
	b, err := base64.StdEncoding.DecodeString(raw)
	if err != nil {
		return nil, fmt.Errorf("adi's interact helper gave an unreadable answer (%.80q); the program is still paused", shown)
	}
	var h helperAnswer
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("adi's interact helper gave an unreadable answer: %w", err)
	}
	return &h, nil
}

func (s *Session) interactText(r InteractResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "interact in frame #%d, %s:\n", r.Frame.Index, s.frameText(r.Frame))
	out := strings.TrimSuffix(adi.CutOutput(r.Output), "\n")
	switch {
	case out == "" && len(r.Changed) > 0:
	case out == "":
		b.WriteString("Output: (none)\n")
	default:
		b.WriteString("Output:\n")
		for _, l := range strings.Split(out, "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	if len(r.Changed) > 0 {
		var cs []string
		for _, c := range r.Changed {
			cs = append(cs, c.Name+" = "+c.Value)
		}
		b.WriteString("Changed: " + strings.Join(cs, ", ") + " (the program runs on with the new values)\n")
	}
	switch {
	case r.TimedOut:
		fmt.Fprintf(&b, "Interrupted: the code ran longer than the watchdog's limit of %s. Nothing after the interruption ran; the program is still paused at %s.\n",
			seconds(ms(s.opts.Timeout)), s.frameText(r.Frame))
	case r.Exception != nil:
		fmt.Fprintf(&b, "Raised: %s\n", r.Exception)
		for _, l := range r.Traceback {
			b.WriteString("  " + l + "\n")
		}
		fmt.Fprintf(&b, "The exception stayed inside interact: the program is still paused at %s; what ran before it (assignments) is kept.\n", s.frameText(s.current()))
	case r.Value != nil:
		fmt.Fprintf(&b, "Value: %s\n", *r.Value)
	}
	return b.String()
}

// current is the frame the program is paused in.
func (s *Session) current() Frame {
	for _, f := range s.stack {
		if f.Current {
			return f
		}
	}
	if len(s.stack) > 0 {
		return s.stack[0]
	}
	return Frame{}
}
