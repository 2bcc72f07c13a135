package bridge

import (
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// A re-run of a real program is rarely an exact replay of the recording: ints from id(), tuples
// ordered by hash(), sets of functions and unseeded randomness differ from run to run. So a
// re-run is judged by what it answers: the FLT it recorded for frame X is taken when X is the
// same invocation in both runs (its fid, its callers' fids and its argument fingerprint), and
// when every call X made is, in the recording, a call of X (the FLT names its callees).
// Differences anywhere else do not matter; the answer says in one line where the run first
// differed.

// replay is what a re-run adds to the session: its FLTs that answer for frames of T, by index in
// T, the frames it was asked for but cannot answer for, with the reason, and where it first
// differed from the recording ("" when it replayed it exactly as far as both go).
type replay struct {
	flts    map[int]*adi.FLT
	refused map[int]string
	differ  string
}

// expect is the replay check for frame k: its caller chain and argument fingerprint (none for a
// frame recorded bare).
func (s *Session) expect(k int) probe.Expect {
	f := s.trace.Frames[k]
	var chain []string
	for c := f.Caller; c >= 0; c = s.trace.Frames[c].Caller {
		chain = append(chain, s.trace.Frames[c].FID().String())
	}
	for a, b := 0, len(chain)-1; a < b; a, b = a+1, b-1 {
		chain[a], chain[b] = chain[b], chain[a]
	}
	if chain == nil {
		chain = []string{}
	}
	fp := f.ArgsFP
	if f.Unchecked() {
		fp = adi.BareFP // the probe compares no fingerprint
	}
	return probe.Expect{Func: f.FID().Func, Index: f.FID().Index, Chain: chain, ArgsFP: fp}
}

// replayOf compares a re-run's trace and FLTs with the recording.
func (s *Session) replayOf(run *Run) *replay {
	rp := &replay{flts: map[int]*adi.FLT{}, refused: map[int]string{}}
	rt := run.Rec.Trace
	p := s.project(run.Only)
	k, n := s.replayedUpTo(rt, run.Light, p), p.len(s.trace)
	switch {
	case k < n && k < rt.Len():
		rp.differ = s.firstDifference(rt, k, p)
	case k < rt.Len() && !cut(s.trace): // more calls than a recording that went to the end
		rp.differ = s.firstDifference(rt, k, p)
	case k < n && !cut(rt): // fewer calls, in a re-run that went to the end
		rp.differ = s.firstDifference(rt, k, p)
	}
	for r, flt := range run.Rec.FLTs {
		j, err := s.trace.Lookup(rt.Frames[r].FID())
		if err != nil {
			continue
		}
		if why := s.sameInvocation(run, r, j); why != "" {
			rp.refused[j] = why
			continue
		}
		if fn, ok := run.Rec.Strays[r]; ok { // a call its FLT does not show (a function the run did not record)
			rp.refused[j] = fmt.Sprintf("in the re-run %s called %s, which the recording does not show as its call", rt.Frames[r].FID(), fn)
			continue
		}
		if s.trace.Frames[j].Bare() && !s.sameBare(rt, r, j) { // no fingerprint: its outcome and calls
			rp.refused[j] = fmt.Sprintf("%s was recorded without its arguments, and in the re-run it or its caller ended otherwise or made other calls", s.trace.Frames[j].FID())
			continue
		}
		if !s.fltComplete(rt, r, j) {
			continue
		}
		mapped, why := s.mapFLT(rt, flt, j)
		if why != "" {
			rp.refused[j] = why
			continue
		}
		rp.flts[j] = mapped
	}
	return rp
}

// projection is the recording as a re-run that recorded some functions only (Run.Only) sees it:
// at lists, in order, the frames of those functions and of module bodies, and caller holds, for
// each, the place in at of its nearest ancestor among them (-1 for none). The zero projection
// (a run that recorded every function) is the recording itself.
type projection struct {
	at, caller []int32
	on         bool
}

// project returns the recording's projection on the functions only (none when only is nil).
func (s *Session) project(only []string) projection {
	if only == nil {
		return projection{}
	}
	keep := make(map[string]bool, len(only))
	for _, fn := range only {
		keep[fn] = true
	}
	p := projection{on: true}
	byCode := map[*adi.Code]bool{}
	pos := make([]int32, s.trace.Len()) // each frame's place in at, -1 when it is not there
	for k := range s.trace.Frames {
		f := &s.trace.Frames[k]
		in, ok := byCode[f.Code]
		if !ok {
			in = keep[f.Func] || strings.HasSuffix(f.Func, ":<module>")
			byCode[f.Code] = in
		}
		if !in {
			pos[k] = -1
			continue
		}
		c := f.Caller
		for c >= 0 && pos[c] < 0 {
			c = s.trace.Frames[c].Caller
		}
		if c >= 0 {
			c = pos[c]
		}
		pos[k] = int32(len(p.at))
		p.at = append(p.at, int32(k))
		p.caller = append(p.caller, c)
	}
	return p
}

// len returns how many frames of t (the recording) the projection holds.
func (p projection) len(t *adi.Trace) int {
	if !p.on {
		return t.Len()
	}
	return len(p.at)
}

// frame returns the k-th frame of the projection of t (the recording) and its caller's place.
func (p projection) frame(t *adi.Trace, k int) (*adi.Frame, int32) {
	if !p.on {
		return &t.Frames[k], t.Frames[k].Caller
	}
	return &t.Frames[p.at[k]], p.caller[k]
}

// replayedUpTo returns the place of the first frame where t differs from the recording as the
// re-run sees it (projection p): caller, fid or argument fingerprint; or the length of the common
// prefix. A light re-run's trace holds argument fingerprints only for the functions it was asked
// about: light compares the others by fid and caller.
func (s *Session) replayedUpTo(t *adi.Trace, light bool, p projection) int {
	n := min(t.Len(), p.len(s.trace))
	for k := 0; k < n; k++ {
		a, caller := p.frame(s.trace, k)
		b := &t.Frames[k]
		if a.FID() != b.FID() || caller != b.Caller {
			return k
		}
		if a.ArgsFP != b.ArgsFP && !a.Unchecked() && (!light || len(b.Args) > 0 || len(a.Args) == 0) {
			return k
		}
	}
	return n
}

// cut reports whether a trace ends before its run did (a partial recording, a recording limit, or
// an editor's run still going): calls past its end are not differences.
func cut(t *adi.Trace) bool { return t.Partial || t.Limit != "" }

// why explains why the re-run has no FLT for frame j of T.
func (rp *replay) why(s *Session, run *Run, j int) string {
	if w, ok := rp.refused[j]; ok {
		return w
	}
	fid := s.trace.Frames[j].FID()
	rt := run.Rec.Trace
	r, err := rt.Lookup(fid)
	if err != nil {
		return fmt.Sprintf("the re-run made %d call(s) of %s (%s)", len(rt.Invocations(fid.Func)), fid.Func, runSummary(run))
	}
	if w := s.sameInvocation(run, r, j); w != "" {
		return w
	}
	return fmt.Sprintf("the re-run did not record it (%s)", runSummary(run))
}

// sameInvocation is sameFrame for a re-run: in a run that recorded some functions only, r is not
// the same invocation either when it or one of its callers was called through a function the run
// did not record (probe.Recording.Gaps): the recording's callers of frame j are all recorded.
func (s *Session) sameInvocation(run *Run, r, j int) string {
	rt := run.Rec.Trace
	for c := int32(r); c >= 0 && int(c) < rt.Len(); c = rt.Frames[c].Caller {
		if run.Rec.Gaps[int(c)] && rt.Frames[c].Caller >= 0 {
			return fmt.Sprintf("in the re-run %s was not called by %s directly, as in the recording", rt.Frames[c].FID(), rt.Frames[rt.Frames[c].Caller].FID())
		}
	}
	return s.sameFrame(rt, r, j)
}

// sameFrame says how invocation r of a re-run's trace rt differs from frame j of the recording:
// "" when it is the same invocation (fid, callers and argument fingerprint).
func (s *Session) sameFrame(rt *adi.Trace, r, j int) string {
	a, b := &s.trace.Frames[j], &rt.Frames[r]
	if a.FID() != b.FID() {
		return fmt.Sprintf("the re-run's %s is %s", b.FID(), a.FID())
	}
	ca, cb := s.callers(s.trace, j), s.callers(rt, r)
	if strings.Join(ca, " > ") != strings.Join(cb, " > ") {
		return fmt.Sprintf("in the re-run %s was called from %s, in the recording from %s", a.FID(), chainText(cb), chainText(ca))
	}
	if a.ArgsFP == b.ArgsFP || a.Unchecked() { // a bare frame has no fingerprint to compare
		return ""
	}
	return argsDifference(a, b)
}

// argsDifference says how the arguments of a re-run's frame b differ from the recording's a: the
// first one whose rendering differs, with both values.
func argsDifference(a, b *adi.Frame) string {
	if len(b.Args) == 0 && len(a.Args) > 0 { // a light re-run recorded no values for it
		return fmt.Sprintf("%s's arguments differ", a.FID())
	}
	for i := 0; i < len(a.Args) && i < len(b.Args); i++ {
		if a.Args[i].Value != b.Args[i].Value {
			return fmt.Sprintf("%s's argument %s is %s in the re-run, %s in the recording", a.FID(), a.Args[i].Name, b.Args[i].Value, a.Args[i].Value)
		}
	}
	return fmt.Sprintf("%s's arguments differ from the recording's in content that their rendering does not show", a.FID())
}

// callers lists the fids of frame j's callers in t, outermost first.
func (s *Session) callers(t *adi.Trace, j int) []string {
	var out []string
	for c := t.Frames[j].Caller; c >= 0 && int(c) < t.Len(); c = t.Frames[c].Caller {
		out = append(out, t.Frames[c].FID().String())
	}
	for a, b := 0, len(out)-1; a < b; a, b = a+1, b-1 {
		out[a], out[b] = out[b], out[a]
	}
	return out
}

func chainText(chain []string) string {
	if len(chain) == 0 {
		return "nowhere (an entry frame)"
	}
	return chain[len(chain)-1]
}

// mapFLT returns a re-run's FLT of frame j with its callees renumbered to indexes in T, or why it
// cannot be: a call it made is not, in the recording, a call of frame j.
func (s *Session) mapFLT(rt *adi.Trace, flt *adi.FLT, j int) (*adi.FLT, string) {
	out := *flt
	out.Frame = j
	out.Steps = make([]adi.Step, len(flt.Steps))
	for i, st := range flt.Steps {
		out.Steps[i] = st
		if len(st.Callees) == 0 {
			continue
		}
		out.Steps[i].Callees = make([]int, len(st.Callees))
		for k, c := range st.Callees {
			cf := rt.Frame(c)
			if cf == nil {
				return nil, fmt.Sprintf("its call at line %d is missing from the re-run's calls", st.Line)
			}
			t, err := s.trace.Lookup(cf.FID())
			if err != nil || int(s.trace.Frames[t].Caller) != j {
				return nil, fmt.Sprintf("at line %d it called %s in the re-run, which the recording does not show as its call", st.Line, cf.FID())
			}
			out.Steps[i].Callees[k] = t
		}
	}
	return &out, ""
}

// firstDifference describes the first frame k where a re-run's trace differs from the recording
// as the re-run sees it (projection p).
func (s *Session) firstDifference(rt *adi.Trace, k int, p projection) string {
	n, of := p.len(s.trace), ""
	if p.on {
		of = " of the functions it recorded"
	}
	b := rt.Frame(k)
	if k >= n {
		return fmt.Sprintf("it made more calls%s than the recording's %d (the first extra: %s)", of, n, b.FID())
	}
	a, caller := p.frame(s.trace, k)
	switch {
	case b == nil:
		return fmt.Sprintf("it made %d calls%s where the recording has %d", rt.Len(), of, n)
	case a.FID() != b.FID():
		return fmt.Sprintf("call %d%s is %s in the re-run, %s in the recording", k+1, of, b.FID(), a.FID())
	case caller != b.Caller:
		return fmt.Sprintf("%s has another caller in the re-run", a.FID())
	}
	return argsDifference(a, b)
}

// fltComplete reports whether a re-run whose trace is t recorded its frame r's FLT (frame j of
// T) to its end. A run cut off (killed, timed out, or stopped with its bridge) leaves unfinished
// the FLT of a frame it was still in, while the recording says that frame ended: such an FLT is
// not kept.
func (s *Session) fltComplete(t *adi.Trace, r, j int) bool {
	f := t.Frame(r)
	return f != nil && (f.Status != adi.Unfinished || s.trace.Frames[j].Status == adi.Unfinished)
}
