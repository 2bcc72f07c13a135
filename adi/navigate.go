package adi

import (
	"fmt"
	"sort"
	"strings"

	"github.com/adi-bridge/adi/internal/faces"
)

// Oracle knows which invocations satisfied a breakpoint's condition. The bridge builds it from the
// probe's condition results (conditions are evaluated against live values in the run).
type Oracle interface {
	// Holds reports whether b.Cond held for frame (an index in T) when it was evaluated.
	Holds(b Breakpoint, frame int) bool
}

// Hits is an Oracle given by, for each conditional breakpoint, the frames (indexes in T, in
// ascending order) where its condition held.
type Hits map[Breakpoint][]int

// Holds reports whether frame is among the hits of b.
func (h Hits) Holds(b Breakpoint, frame int) bool {
	s := h[b]
	k := sort.SearchInts(s, frame)
	return k < len(s) && s[k] == frame
}

// NavResult answers a navigation (continue, prev, step-into, step-out): where i moved, or why it
// did not. The bridge attaches the FLT of the new T[i] before rendering.
type NavResult struct {
	Command    string          `json:"command"`
	Moved      bool            `json:"moved"`
	From       string          `json:"from"`  // fid of T[i]
	To         string          `json:"to"`    // fid of T[i′]
	Frame      int             `json:"frame"` // i′
	Breakpoint *BreakpointView `json:"breakpoint,omitempty"`
	Hit        int             `json:"hit,omitempty"`  // for continue/prev: i′ is the Hit-th of Hits frames matching B
	Hits       int             `json:"hits,omitempty"` // frames matching B in all
	Message    string          `json:"message"`
	FLT        *FLTView        `json:"flt,omitempty"`
}

// Text renders the message and then, when attached, the FLT of T[i′].
func (r *NavResult) Text(o TextOptions) string {
	if r.FLT == nil {
		return r.Message + "\n"
	}
	o.Budget = max(o.budget()-Tokens(r.Message)-1, 1)
	return r.Message + "\n\n" + r.FLT.Text(o)
}

// Continue moves i to the first later frame matching a breakpoint:
// i′ = min { j > i : (T[j].func, cond) ∈ B and cond holds for T[j] }, or i when there is none.
// o answers for conditional breakpoints; a nil o holds for none of them.
func (s *State) Continue(o Oracle) *NavResult { return s.seek("continue", 1, o) }

// Prev mirrors Continue: i′ = max { j < i : … }, or i when there is none.
func (s *State) Prev(o Oracle) *NavResult { return s.seek("prev", -1, o) }

func (s *State) seek(cmd string, dir int, o Oracle) *NavResult {
	r := &NavResult{Command: cmd, From: s.curFID(), To: s.curFID(), Frame: s.Cur}
	if o == nil {
		o = Hits(nil)
	}
	if len(s.Breakpoints) == 0 {
		r.Message = fmt.Sprintf("%s: no breakpoints are set; still at %s. Set one with: %s", cmd, r.From, setOne)
		return r
	}
	best, bestBP := -1, -1
	var all []int
	for k, b := range s.Breakpoints {
		for _, inv := range s.Trace.Invocations(b.Func) {
			j := int(inv)
			if b.Cond != "" && !o.Holds(b, j) {
				continue
			}
			all = append(all, j)
			if (dir > 0 && j > s.Cur && (best < 0 || j < best)) || (dir < 0 && j < s.Cur && j > best) {
				best, bestBP = j, k
			}
		}
	}
	sort.Ints(all)
	all = compactInts(all)
	names := make([]string, len(s.Breakpoints))
	for k, b := range s.Breakpoints {
		names[k] = b.String()
	}
	if best < 0 {
		where := "further"
		if dir < 0 {
			where = "earlier"
		}
		r.Message = fmt.Sprintf("%s: no %s hit of %s (%d hit(s) in all); still at %s.",
			cmd, where, strings.Join(names, ", "), len(all), r.From)
		c := s.Trace.Coverage()
		if dir > 0 && c.Incomplete() {
			r.Message += " The recording is incomplete: later calls may be missing."
		}
		if c.Forks > 0 {
			note := ForkNote(c.Forks, c.ForkedIn)
			r.Message += " " + strings.ToUpper(note[:1]) + note[1:]
		}
		return r
	}
	bp := viewBreakpoint(s.Breakpoints[bestBP])
	r.Breakpoint = &bp
	r.Hit, r.Hits = sort.SearchInts(all, best)+1, len(all)
	s.move(r, best)
	if len(s.Breakpoints) == 1 && bp.Cond == "" {
		// the only breakpoint, on every call of the function the line names
		r.Message = fmt.Sprintf("%s → %s  (hit %d of %d)", cmd, s.ref(best), r.Hit, r.Hits)
	} else {
		r.Message = fmt.Sprintf("%s → %s  (breakpoint %s; hit %d of %d)", cmd, s.ref(best), s.shortBreakpoint(bp.Breakpoint), r.Hit, r.Hits)
	}
	return r
}

// ref is how the text names T[j] (Trace.Ref).
func (s *State) ref(j int) string { return s.Trace.Ref(s.Trace.Frames[j].FID()) }

// shortBreakpoint writes b as String does, its function named as Trace.Ref names it.
func (s *State) shortBreakpoint(b Breakpoint) string {
	b.Func = s.Trace.RefFunc(b.Func)
	return b.String()
}

func compactInts(s []int) []int {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// move sets i′ = j and records it in r.
func (s *State) move(r *NavResult, j int) {
	s.Cur = j
	r.Frame, r.To, r.Moved = j, s.curFID(), r.From != s.curFID()
}

// StepInto moves i to the frame fid (any frame of T, as in the spec). When T has no such frame,
// i is unchanged and the error (wrapping ErrNotFound) says which indexes exist.
func (s *State) StepInto(fid FID) (*NavResult, error) {
	j, err := s.Trace.Lookup(fid)
	if err != nil {
		return nil, err
	}
	r := &NavResult{Command: "step-into", From: s.curFID()}
	s.move(r, j)
	f := s.Trace.Frame(j)
	if c := s.Trace.Frame(int(f.Caller)); c != nil {
		r.Message = fmt.Sprintf("step-into → %s  (called by %s at line %d)", s.ref(j), s.ref(int(f.Caller)), f.CallLine)
	} else {
		r.Message = fmt.Sprintf("step-into → %s  (an entry frame)", s.ref(j))
	}
	return r, nil
}

// BreakAt is the peer's "break FILE:FUNC#N": it adds the breakpoint bp, for fid's function, to B
// and moves i to the frame fid, so the answer shows that frame.
func (s *State) BreakAt(fid FID, bp Breakpoint) (*NavResult, error) {
	j, err := s.Trace.Lookup(fid)
	if err != nil {
		return nil, err
	}
	bp.Func = fid.Func
	b := s.AddBreakpoint(bp)
	r := &NavResult{Command: "break", From: s.curFID(), Breakpoint: &b.Breakpoint}
	s.move(r, j)
	if bp.Cond == "" {
		r.Message = fmt.Sprintf("break → %s  (breakpoint on every call; %s moves to the next)", s.ref(j), faces.Cmd("adi.continue"))
	} else {
		r.Message = fmt.Sprintf("break → %s  (breakpoint %s set; %s moves to its next hit)", s.ref(j), b.Breakpoint.describe(), faces.Cmd("adi.continue"))
	}
	return r, nil
}

// FirstMatch is a conditional "break FUNC COND" that matched: the breakpoint b is in B, and i
// moves to j, the first of the matches invocations where its condition held, so the answer shows
// it (as a hit of b: its FLT marks where a condition checked at a line held).
func (s *State) FirstMatch(b Breakpoint, j, matches int) *NavResult {
	bp := viewBreakpoint(b)
	r := &NavResult{Command: "break", From: s.curFID(), Breakpoint: &bp, Hit: 1, Hits: matches}
	s.move(r, j)
	if matches == 1 {
		r.Message = fmt.Sprintf("break → %s  (the only invocation where the condition held)", s.ref(j))
	} else {
		r.Message = fmt.Sprintf("break → %s  (the first of %d invocations where the condition held; %s moves to the next)", s.ref(j), matches, faces.Cmd("adi.continue"))
	}
	return r
}

// StepOut moves i to the caller of T[i]; at an entry frame i is unchanged and the result says so.
func (s *State) StepOut() *NavResult {
	r := &NavResult{Command: "step-out", From: s.curFID(), To: s.curFID(), Frame: s.Cur}
	f := s.Trace.Frame(s.Cur)
	switch {
	case f == nil:
		r.Message = "step-out: the recording has no frames."
	case f.Caller < 0:
		r.Message = fmt.Sprintf("step-out: %s is an entry frame (no caller); still at %s.", r.From, r.From)
	default:
		from := s.ref(s.Cur)
		s.move(r, int(f.Caller))
		r.Message = fmt.Sprintf("step-out → %s  (the caller of %s, at line %d)", s.ref(s.Cur), from, f.CallLine)
	}
	return r
}
