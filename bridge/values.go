package bridge

import (
	"context"
	"fmt"
	"slices"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// A big program's first run would spend more on the values of its calls than the run itself
// costs, for calls no answer shows: sympy's repro makes 225,000 calls, a call tree shows forty. So
// a first run records its first bareAfter calls whole and, past them, records a plain call deeper
// than bareDepth frames whose caller is not stepped bare: its fid, caller and outcome, without
// values, fingerprint or caller line (adi.BareFP; probe config "bare_after"). A program that makes
// fewer calls (most scripts and test files) is recorded whole.
//
// An answer that would show a bare frame's values records them first: a call tree's frames, with
// one light re-run that records the values of exactly those invocations (probe config
// "values_of"); an FLT's frame and its callees, with the re-run that records the FLT. The values
// are taken for the frames the re-run made as the same invocations (a bare frame has no
// fingerprint to compare: its fid and callers, its outcome, its calls and its caller's; see
// sameBare), kept in T (adi.FilledFP) and on disk with the run (keptValues), so a restarted
// bridge has them.
const (
	bareAfter = 20000
	bareDepth = 3
)

// frameValues are the values a re-run recorded for a frame the recording holds bare.
type frameValues struct {
	Args     []adi.Arg `json:"args"`
	Return   *string   `json:"return,omitempty"` // for a frame that returned
	CallLine int32     `json:"call_line"`
}

// bareOf lists, in order and once each, the frames among frames that the recording holds bare.
func (s *Session) bareOf(frames []int) []int {
	var out []int
	for _, j := range frames {
		if f := s.trace.Frame(j); f != nil && f.Bare() {
			out = append(out, j)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// fltValues lists the frames whose values the re-run that records frame j's FLT records too: j
// and its callees, where the recording holds them bare (the FLT shows them).
func (s *Session) fltValues(j int) []int {
	frames := []int{j}
	for _, c := range s.trace.Callees(j) {
		frames = append(frames, int(c))
	}
	return s.bareOf(frames)
}

// withValues builds an answer; when the frames it shows (shown) include frames the recording holds
// bare, it records their values (fillValues: one re-run) and builds the answer again.
func withValues[R any](ctx context.Context, s *Session, build func() (R, error), shown func(R) []int) (R, error) {
	ans, err := build()
	if err != nil {
		return ans, err
	}
	if n, err := s.fillValues(ctx, shown(ans)); err != nil || n == 0 {
		return ans, err
	}
	return build()
}

// fillValues records the values of the frames among frames that the recording holds bare, with
// one light re-run, and keeps them; it reports how many it filled. A frame the re-run does not
// make as the same invocation keeps adi.NotRecorded, and the answer says so in a note, as it does
// when the re-run fails (the answer stands without those values); only a cancelled command
// returns an error. A live session's program cannot be re-run: nothing is filled.
func (s *Session) fillValues(ctx context.Context, frames []int) (int, error) {
	want := s.bareOf(frames)
	if len(want) == 0 || s.isLive || s.base == nil {
		return 0, nil
	}
	run, err := s.record(ctx, "record values", RunRequest{Light: true, ValuesOf: s.selectors(want), Only: s.onlyFor(want)})
	if err != nil {
		if ctx.Err() != nil {
			return 0, err
		}
		s.note(fmt.Sprintf("the values of %d frame(s) recorded without them show %s: the run that records them failed (%v)", len(want), adi.NotRecorded, err))
		return 0, nil
	}
	got := s.takeValues(run, want)
	s.keep(run, nil, got)
	if len(got) < len(want) {
		s.note(fmt.Sprintf("%d frame(s) show %s: the run that records values did not make them as recorded (%s)", len(want)-len(got), adi.NotRecorded, runSummary(run)))
	}
	return len(got), nil
}

// FillValues records the values of the frames among frames that the recording holds bare, for a
// reader that shows frames outside commands (the viewer's call tree): it is a command (it waits
// for the one running, and runs the program once when any frame is bare).
func (s *Session) FillValues(ctx context.Context, frames []int) error {
	var bare int
	s.ReadTrace(func(*adi.Trace) { bare = len(s.bareOf(frames)) }) // (a command may be filling T)
	if bare == 0 {
		return nil
	}
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	_, err = s.fillValues(ctx, frames)
	return err
}

// selectors names frames of T by fid, for probe config "values_of".
func (s *Session) selectors(frames []int) []probe.Selector {
	var out []probe.Selector
	for _, j := range frames {
		fid := s.trace.Frames[j].FID()
		out = append(out, probe.Selector{Func: fid.Func, Index: fid.Index})
	}
	return out
}

// takeValues copies into T the values a re-run whose trace is rt recorded for frames want of T
// (asked for with values_of): each frame the re-run made as the same invocation. A bare frame has
// no fingerprint, so that is its fid and its callers' fids, how it ended (a returned int, bool or
// None is in the recording), and the fids of the calls it and its caller made (sameBare). It
// returns what it took, by frame.
func (s *Session) takeValues(run *Run, want []int) map[int]frameValues {
	rt := run.Rec.Trace
	got := map[int]frameValues{}
	for _, j := range want {
		f := s.trace.Frame(j)
		if f == nil || !f.Bare() {
			continue
		}
		r, err := rt.Lookup(f.FID())
		if err != nil || s.sameInvocation(run, r, j) != "" || !s.sameBare(rt, r, j) {
			continue
		}
		b := &rt.Frames[r]
		if b.CallLine == 0 { // (a frame recorded with values_of has its caller's line)
			continue
		}
		v := frameValues{Args: b.Args, CallLine: b.CallLine}
		if b.Status == adi.Returned {
			ret := b.Return
			v.Return = &ret
		}
		s.fill(j, v)
		got[j] = v
	}
	return got
}

// sameBare reports whether a re-run's frame r (in rt) ended as bare frame j of T did and sits
// among the same calls: the same status, the same value when T holds the returned value itself
// (an int, bool or None), callees with the same fids in order, and so its caller's callees (a
// run whose loop went round once more calls f#N from the same caller with other arguments).
func (s *Session) sameBare(rt *adi.Trace, r, j int) bool {
	a, b := &s.trace.Frames[j], &rt.Frames[r]
	if a.Status != b.Status || (a.Status == adi.Returned && a.Return != adi.NotRecorded && a.Return != b.Return) {
		return false
	}
	if !s.sameCalls(rt, r, j) {
		return false
	}
	return a.Caller < 0 || s.sameCalls(rt, int(b.Caller), int(a.Caller))
}

// sameCalls reports whether frame r of rt and frame j of T made calls with the same fids, in order.
func (s *Session) sameCalls(rt *adi.Trace, r, j int) bool {
	ca, cb := s.trace.Callees(j), rt.Callees(r)
	if len(ca) != len(cb) {
		return false
	}
	for k := range ca {
		if s.trace.Frames[ca[k]].FID() != rt.Frames[cb[k]].FID() {
			return false
		}
	}
	return true
}

// fill gives frame j of T (held bare) the values a re-run recorded for it, under the lock of
// ReadTrace (the viewer reads T outside commands).
func (s *Session) fill(j int, v frameValues) {
	s.snap.Lock()
	defer s.snap.Unlock()
	f := &s.trace.Frames[j]
	if !f.Bare() {
		return
	}
	f.Arguments = &adi.Arguments{Code: f.Code, Args: v.Args, ArgsFP: adi.FilledFP}
	if v.Return != nil && f.Status == adi.Returned {
		f.Outcome = adi.Returning(*v.Return)
	}
	f.CallLine = v.CallLine
}
