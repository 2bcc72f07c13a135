package bridge

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/faces"
)

// Answer is a command's result: the adi result (for JSON) and its text rendering (for models).
type Answer struct {
	Command string     `json:"command"`
	Result  adi.Result `json:"result"`
	Text    string     `json:"text"`
	// TargetFailed is set when the target did not exit cleanly: the answer is still useful, but an
	// agent should know (the CLI exits 1). It is always present in the JSON, false included.
	TargetFailed bool `json:"target_failed"`
	// Notes are what an agent should know about how the answer was made (a re-run that differed
	// from the recording elsewhere); the text ends with them as "Note: ..." lines.
	Notes []string `json:"notes,omitempty"`
}

// begin starts a command on the session: it takes the session's lock (commands run one at a
// time), refuses a closed session, and makes ctx the one Close cancels. The caller defers end,
// which undoes that, refreshes the session's Info and asks for freed memory to be returned.
func (s *Session) begin(ctx context.Context) (context.Context, func(), error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, adi.Errorf(ErrClosed, "session %s is closed; create a new one", s.ID)
	}
	ctx, cancel := context.WithCancel(ctx)
	s.stopMu.Lock()
	s.stop = cancel
	s.stopMu.Unlock()
	s.busy.Store(true)
	if s.rn != nil {
		s.rn.busy()
	}
	return ctx, func() {
		releaseSoon()
		s.refreshInfo()
		s.busy.Store(false)
		cancel()
		if s.rn != nil {
			s.rn.idleNow() // (ready.go)
		}
		s.mu.Unlock()
	}, nil
}

// Do runs one ADI command. Navigation answers from the recording; an FLT not cached yet costs one
// re-run, which also records the next breakpoint hits. A panic inside a command becomes an error
// and leaves the session usable.
func (s *Session) Do(ctx context.Context, cmd adi.Command, o adi.TextOptions) (ans *Answer, err error) {
	if s.live != nil {
		s.live.Sync(ctx) // the live program writes what its watches caught so far
	}
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer end()
	if err := s.refreshLive(); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("command panicked", "command", cmd.String(), "panic", r, "stack", string(debug.Stack()))
			ans, err = nil, fmt.Errorf("internal error in %s: %v (the session is still usable; please report this)", cmd.Name(), r)
		}
	}()
	s.notes = nil
	res, err := s.do(ctx, cmd)
	if err != nil {
		return nil, err
	}
	ans = &Answer{Command: cmd.Name(), Result: res, Text: res.Text(o), TargetFailed: s.base.Failed(), Notes: s.notes}
	for _, n := range s.notes {
		ans.Text += "Note: " + n + "\n"
	}
	if err := s.writeState(); err != nil {
		// The command took effect; only its record on disk is missing. Say so rather than lose it.
		ans.Text += "Warning: the session state (breakpoints, current frame) could not be saved, so a restarted adi will not have this change: " + err.Error() + "\n"
	}
	return ans, nil
}

func (s *Session) do(ctx context.Context, cmd adi.Command) (adi.Result, error) {
	t := s.trace
	switch c := cmd.(type) {
	case adi.BreakCmd:
		fn, err := t.ResolveFunc(c.Func)
		if err != nil {
			return nil, err
		}
		bp := c.Breakpoint(fn)
		if err := bp.Check(); err != nil {
			return nil, err
		}
		var res adi.Result
		if c.Func.Pinned() { // the peer's "break FILE:FUNC#N": set it and show that frame
			j, err := t.ResolveFrame(c.Func)
			if err != nil {
				return nil, err
			}
			nav, err := s.state.BreakAt(t.Frames[j].FID(), bp)
			if err != nil {
				return nil, err
			}
			res = nav
		} else {
			br := s.state.AddBreakpoint(bp)
			res = &breakAnswer{BreakResult: br}
		}
		if err := s.ensureConditions(ctx); err != nil {
			s.state.Clear(fn, c.Cond)
			return nil, err
		}
		if nav, ok := res.(*adi.NavResult); ok {
			return s.withFLT(ctx, nav)
		}
		ba := res.(*breakAnswer)
		b := ba.Breakpoint.Breakpoint
		var first int
		first, ba.Hits, ba.Matches, ba.Ahead, ba.Behind = s.hitList(b, maxHitsListed)
		ba.CondError = s.condErr[b]
		if b.Cond != "" && ba.Matches > 0 && ba.CondError == "" {
			// a condition picks the invocations worth reading: show the first, as the reference
			// CLI's break does (one command fewer than break, then continue)
			return s.withFLT(ctx, s.state.FirstMatch(b, first, ba.Matches))
		}
		if f := t.Frame(s.state.Cur); f != nil {
			ba.Current = f.FID().String()
		}
		return ba, nil
	case adi.ClearCmd:
		if c.Func == nil {
			return s.state.Clear("", ""), nil
		}
		fn, err := t.ResolveFunc(*c.Func)
		if err != nil {
			return nil, err
		}
		return s.state.Clear(fn, c.Cond), nil
	case adi.ContinueCmd:
		if err := s.ensureConditions(ctx); err != nil {
			return nil, err
		}
		return s.withFLT(ctx, s.state.Continue(s.hits))
	case adi.PrevCmd:
		if err := s.ensureConditions(ctx); err != nil {
			return nil, err
		}
		return s.withFLT(ctx, s.state.Prev(s.hits))
	case adi.StepIntoCmd:
		j, err := t.ResolveFrame(c.Frame)
		if err != nil {
			return nil, err
		}
		if t.Frames[j].Bare() { // its FLT's re-run records its caller's line, which the answer names
			if _, err := s.FLT(ctx, j); err != nil {
				return nil, err
			}
		}
		nav, err := s.state.StepInto(t.Frames[j].FID())
		if err != nil {
			return nil, err
		}
		return s.withFLT(ctx, nav)
	case adi.StepOutCmd:
		return s.withFLT(ctx, s.state.StepOut())
	case adi.CallTreeCmd:
		tree := func() (*adi.CallTree, error) {
			if c.Frame == nil && s.state.Cur == 0 && t.Len() > 0 { // nothing asked, nothing navigated: the whole run
				return t.RunTree(c.Options, s.IsTestRun())
			}
			j, err := s.frameOrCurrent(c.Frame)
			if err != nil {
				return nil, err
			}
			return t.CallTree(j, c.Options)
		}
		return withValues(ctx, s, tree, (*adi.CallTree).Frames)
	case adi.ListFramesCmd:
		fn, err := t.ResolveFunc(c.Func)
		if err != nil {
			return nil, err
		}
		list := func() (*adi.FrameList, error) { return t.ListFrames(fn, c.Filter), nil }
		return withValues(ctx, s, list, func(l *adi.FrameList) []int {
			shown := make([]int, len(l.Frames))
			for i, f := range l.Frames {
				shown[i] = f.Frame
			}
			return shown
		})
	case adi.DiffCmd:
		a, err := s.refFLT(ctx, c.A)
		if err != nil {
			return nil, err
		}
		b, err := s.refFLT(ctx, c.B)
		if err != nil {
			return nil, err
		}
		return t.Diff(a, b), nil
	case adi.StateCmd:
		s.state.Conditions = s.conditionStatus()
		return s.state.Summary(), nil
	case adi.ListCmd:
		s.state.Conditions = s.conditionStatus()
		return s.state.ListBreakpoints(), nil
	case adi.FLTCmd:
		j, err := s.frameOrCurrent(c.Frame)
		if err != nil {
			return nil, err
		}
		if t.Len() == 0 {
			return nil, s.noFrames("; check the target's output")
		}
		flt, err := s.FLT(ctx, j)
		if err != nil {
			return nil, err
		}
		return t.FLTView(flt), nil
	case adi.ExecCmd:
		return s.exec(ctx, c)
	}
	return nil, adi.BadInputf("command %q is not supported here", cmd.Name())
}

func (s *Session) frameOrCurrent(r *adi.Ref) (int, error) {
	if r == nil {
		if s.trace.Len() == 0 {
			return 0, s.noFrames("")
		}
		return s.state.Cur, nil
	}
	return s.trace.ResolveFrame(*r)
}

// noFrames is the error of a command that needs a frame when T has none; hint ends a recorded
// session's message. A live session's T is what its watches caught: it says so.
func (s *Session) noFrames(hint string) error {
	if s.isLive {
		return adi.NotFoundf("live session %s's watches caught nothing yet; watch a function (%s FUNC) and let the program call it (%s lists what was caught)",
			s.ID, faces.Cmd("live.watch"), faces.Cmd("live.caught"))
	}
	return adi.NotFoundf("the recording has no frames (%s)%s", runSummary(s.base), hint)
}

func (s *Session) refFLT(ctx context.Context, r adi.Ref) (*adi.FLT, error) {
	j, err := s.trace.ResolveFrame(r)
	if err != nil {
		return nil, err
	}
	return s.FLT(ctx, j)
}

// withFLT attaches the FLT of the new T[i] to a navigation answer. A continue, prev or step-out
// that could not move answers without it: the agent has already seen that frame.
func (s *Session) withFLT(ctx context.Context, nav *adi.NavResult) (adi.Result, error) {
	stayed := !nav.Moved && nav.Command != "step-into" && nav.Command != "break"
	if s.trace.Frame(nav.Frame) == nil || stayed {
		return nav, nil
	}
	flt, err := s.FLT(ctx, nav.Frame)
	if err != nil {
		return nil, err
	}
	nav.FLT = s.trace.FLTView(flt)
	if bp := nav.Breakpoint; bp != nil && bp.Line > 0 {
		if at, ok := s.hitAt[bp.Breakpoint][nav.Frame]; ok {
			nav.FLT.MarkVisit(at[0], at[1])
		}
	}
	return nav, nil
}

// maxHitsListed bounds the frames a break answer names (its JSON; the text names 10): a breakpoint
// on a function called 200,000 times must not answer with megabytes.
const maxHitsListed = 100

// hitList names the first limit frames a breakpoint matches (first is the index of the first, -1
// for none), counts them all, and counts those after the frame under inspection (where continue
// goes) and before it (where prev goes).
func (s *Session) hitList(b adi.Breakpoint, limit int) (first int, fids []string, total, ahead, behind int) {
	first = -1
	for _, inv := range s.trace.Invocations(b.Func) {
		j := int(inv)
		if b.Cond == "" || s.hits.Holds(b, j) {
			if first < 0 {
				first = j
			}
			if total < limit {
				fids = append(fids, s.trace.Frames[j].FID().String())
			}
			total++
			switch {
			case j > s.state.Cur:
				ahead++
			case j < s.state.Cur:
				behind++
			}
		}
	}
	return first, fids, total, ahead, behind
}

// conditionStatus returns what evaluating the conditions on T found for those that raised (their
// first error and the calls where they held), for state and list to report.
func (s *Session) conditionStatus() map[adi.Breakpoint]adi.ConditionStatus {
	out := make(map[adi.Breakpoint]adi.ConditionStatus, len(s.condErr))
	for b, e := range s.condErr {
		out[b] = adi.ConditionStatus{Error: e, Matches: len(s.hits[b])}
	}
	return out
}

// breakAnswer is break's result with the frames the breakpoint matches: Matches counts them,
// Hits names the first maxHitsListed in order.
type breakAnswer struct {
	*adi.BreakResult
	Matches   int      `json:"matches"`
	Hits      []string `json:"hits"`
	CondError string   `json:"condition_error,omitempty"`
	// Ahead and Behind count the matches after and before the frame under inspection, Current:
	// continue reaches the first, prev the others.
	Ahead   int    `json:"ahead"`
	Behind  int    `json:"behind"`
	Current string `json:"current,omitempty"`
}

// Text renders the break result, the hits, and any condition error.
func (b *breakAnswer) Text(o adi.TextOptions) string {
	out := b.BreakResult.Text(o)
	switch {
	case b.CondError != "":
		out += "Condition error: " + b.CondError + "\n"
	}
	if b.Matches == 0 {
		return out + "No invocation matches it; " + faces.Cmd("adi.continue") + " will stay where it is.\n"
	}
	shown := b.Hits
	more := ""
	if len(shown) > 10 {
		shown = shown[:10]
	}
	if b.Matches > len(shown) {
		more = fmt.Sprintf(" … and %d more", b.Matches-len(shown))
	}
	next := fmt.Sprintf("Next: %s.", faces.Cmd("adi.continue"))
	switch {
	case b.Ahead == 0 && b.Behind > 0:
		next = fmt.Sprintf("They ran before the frame under inspection (%s), so %s finds none. Next: %s.", b.Current, faces.Cmd("adi.continue"), faces.Cmd("adi.prev"))
	case b.Ahead == 0:
		next = fmt.Sprintf("It is the frame under inspection (%s): %s and %s find no other.", b.Current, faces.Cmd("adi.continue"), faces.Cmd("adi.prev"))
	}
	return out + fmt.Sprintf("Matches %d invocation(s): %s%s. %s\n", b.Matches, strings.Join(shown, ", "), more, next)
}
