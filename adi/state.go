package adi

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/internal/faces"
)

// State is the session state Σ = (B, T, i): the breakpoints in the order they were set, the
// recording, and the index in T of the frame under inspection. Its methods are the commands'
// transitions; read-only commands live on Trace.
type State struct {
	Breakpoints []Breakpoint `json:"breakpoints"`
	Trace       *Trace       `json:"-"`
	Cur         int          `json:"current"`
	// Conditions are what evaluating the breakpoints' conditions on T found, for those that
	// raised (the bridge evaluates them): state and list report them with the breakpoints, so
	// that a program shown them again (the viewer, reloaded) still sees which never stop.
	Conditions map[Breakpoint]ConditionStatus `json:"-"`
}

// NewState returns the initial state for a recording: B = ∅, i = 0.
func NewState(t *Trace) *State { return &State{Trace: t} }

// curFID names the frame under inspection, or "(no frames)" for an empty recording.
func (s *State) curFID() string {
	if f := s.Trace.Frame(s.Cur); f != nil {
		return f.FID().String()
	}
	return "(no frames)"
}

// BreakResult answers break(func, cond): B′ = B ∪ {(func, cond)}.
type BreakResult struct {
	Breakpoint  BreakpointView   `json:"breakpoint"`
	Added       bool             `json:"added"`       // false when it was already set
	Invocations int              `json:"invocations"` // recorded invocations of the function
	Breakpoints []BreakpointView `json:"breakpoints"` // B′
}

// Break adds the breakpoint (fn, cond) to B. fn is a full function name (see ResolveFunc); cond is
// trimmed, and "" means True.
func (s *State) Break(fn, cond string) *BreakResult {
	return s.AddBreakpoint(Breakpoint{Func: fn, Cond: cond})
}

// AddBreakpoint adds b to B (its condition trimmed; see Breakpoint for when it is checked).
func (s *State) AddBreakpoint(b Breakpoint) *BreakResult {
	b.Cond = trimSpace(b.Cond)
	fn := b.Func
	added := true
	for _, x := range s.Breakpoints {
		if x == b {
			added = false
		}
	}
	if added {
		s.Breakpoints = append(s.Breakpoints, b)
	}
	return &BreakResult{Breakpoint: viewBreakpoint(b), Added: added,
		Invocations: len(s.Trace.Invocations(fn)), Breakpoints: viewBreakpoints(s.Breakpoints)}
}

// Text renders the result in one line.
func (r *BreakResult) Text(TextOptions) string {
	verb := "Breakpoint set"
	if !r.Added {
		verb = "Breakpoint already set"
	}
	return fmt.Sprintf("%s: %s; %s was called %d time(s); %d breakpoint(s) in all.\n",
		verb, r.Breakpoint.describe(), r.Breakpoint.Func, r.Invocations, len(r.Breakpoints))
}

// ClearScope says which breakpoints a clear removed.
type ClearScope string

// The scopes of clear.
const (
	ClearAll  ClearScope = "all"  // clear: every breakpoint
	ClearFunc ClearScope = "func" // clear FUNC: every breakpoint of the function
	ClearOne  ClearScope = "one"  // clear FUNC COND: that breakpoint
)

// ClearResult answers clear(func, cond): B′ = B \ {(func, cond)}.
type ClearResult struct {
	Scope       ClearScope       `json:"scope"`
	Func        string           `json:"func,omitempty"`
	Cond        string           `json:"cond,omitempty"`
	Removed     []BreakpointView `json:"removed"`
	Breakpoints []BreakpointView `json:"breakpoints"` // B′
}

// Clear removes breakpoints: all of them when fn is "", every breakpoint of fn when cond is "",
// otherwise the breakpoint (fn, cond).
func (s *State) Clear(fn, cond string) *ClearResult {
	cond = trimSpace(cond)
	r := &ClearResult{Scope: ClearOne, Func: fn, Cond: cond, Removed: []BreakpointView{}}
	switch {
	case fn == "":
		r.Scope, r.Cond = ClearAll, ""
	case cond == "":
		r.Scope = ClearFunc
	}
	var kept []Breakpoint
	for _, b := range s.Breakpoints {
		drop := r.Scope == ClearAll || (b.Func == fn && (r.Scope == ClearFunc || b.Cond == cond))
		if drop {
			r.Removed = append(r.Removed, viewBreakpoint(b))
		} else {
			kept = append(kept, b)
		}
	}
	s.Breakpoints = kept
	r.Breakpoints = viewBreakpoints(kept)
	return r
}

// Text renders the result in one line.
func (r *ClearResult) Text(TextOptions) string {
	var what string
	switch r.Scope {
	case ClearAll:
		what = "all breakpoints"
	case ClearFunc:
		what = "every breakpoint of " + r.Func
	default:
		what = Breakpoint{Func: r.Func, Cond: r.Cond}.String()
	}
	left := fmt.Sprintf("%d breakpoint(s) left", len(r.Breakpoints))
	if len(r.Breakpoints) > 0 {
		left += ": " + joinBreakpoints(r.Breakpoints)
	}
	if len(r.Removed) == 0 {
		return fmt.Sprintf("Nothing cleared: no breakpoint matches %s; %s.\n", what, left)
	}
	return fmt.Sprintf("Cleared %s (%d removed: %s); %s.\n", what, len(r.Removed), joinBreakpoints(r.Removed), left)
}

func joinBreakpoints(bs []BreakpointView) string {
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.String()
	}
	return strings.Join(parts, ", ")
}

// BreakpointList answers list: B.
type BreakpointList struct {
	Breakpoints []BreakpointView `json:"breakpoints"`
}

// ListBreakpoints returns B in the order the breakpoints were set.
func (s *State) ListBreakpoints() *BreakpointList {
	return &BreakpointList{Breakpoints: s.conditionViews()}
}

// Text renders one breakpoint a line.
func (r *BreakpointList) Text(TextOptions) string {
	return strings.Join(breakpointLines(r.Breakpoints), "\n") + "\n"
}

func breakpointLines(bs []BreakpointView) []string {
	if len(bs) == 0 {
		return []string{"Breakpoints: none. Set one with: " + setOne}
	}
	lines := []string{fmt.Sprintf("Breakpoints (%d):", len(bs))}
	for i, b := range bs {
		lines = append(lines, fmt.Sprintf("  %d. %s", i+1, b.describe()))
		if b.ConditionError != "" {
			what := fmt.Sprintf("it held on %d call(s)", b.Matches)
			if b.Matches == 0 {
				what = "it never stops"
			}
			lines = append(lines, fmt.Sprintf("     its condition failed: %s; %s", b.ConditionError, what))
		}
	}
	return lines
}

// StateSummary answers state: Σ in short.
type StateSummary struct {
	Breakpoints []BreakpointView `json:"breakpoints"`
	Current     string           `json:"current"`       // fid of T[i]
	Frame       int              `json:"current_frame"` // i
	Frames      int              `json:"frames"`        // |T|
	Recording   Coverage         `json:"recording"`
}

// Summary returns Σ in short.
func (s *State) Summary() *StateSummary {
	return &StateSummary{Breakpoints: s.conditionViews(), Current: s.curFID(), Frame: s.Cur,
		Frames: s.Trace.Len(), Recording: s.Trace.Coverage()}
}

// Text renders the breakpoints, the frame under inspection, |T| and what the recording lacks.
func (r *StateSummary) Text(TextOptions) string {
	lines := breakpointLines(r.Breakpoints)
	lines = append(lines, fmt.Sprintf("Inspecting: %s (T[%d]; the recording has %d call(s))", r.Current, r.Frame, r.Frames))
	lines = append(lines, r.Recording.notes()...)
	return strings.Join(lines, "\n") + "\n"
}

// setOne says how to set a breakpoint, in the words of the face that shows it (package faces).
var setOne = faces.Cmd("adi.break") + " " + faces.Param("adi.break", "func") + " [" + faces.Param("adi.break", "cond") + "]"
