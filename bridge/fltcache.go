package bridge

import (
	"context"
	"path/filepath"
	"slices"
	"sort"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// batchMax bounds how many FLTs one re-run records besides the one asked for: the next hits of
// the breakpoints, so that the next continue answers from the cache.
const batchMax = 24

// FLT returns the FLT of T[j], recording it (with the next breakpoint hits) when it is not cached.
func (s *Session) FLT(ctx context.Context, j int) (*adi.FLT, error) {
	if flt, ok := s.flts.get(j); ok {
		return flt, nil
	}
	f := s.trace.Frame(j)
	if f == nil {
		return nil, adi.NotFoundf("no frame %d in the recording", j)
	}
	if s.isLive {
		return nil, adi.NotFoundf("%s has no FLT: its watch recorded its call but not its statements (it started past the watch's "+
			"step limit), and live session %s's program cannot be re-run; watch %s itself to record its next invocations", f.FID(), s.ID, f.FID().Func)
	}
	sel := []int{j}
	for _, k := range s.nextHits(j, batchMax) {
		if !s.flts.has(k) {
			sel = append(sel, k)
		}
	}
	req, values := s.fltRequest(sel)
	run, err := s.record(ctx, "record FLT of "+f.FID().String(), req)
	if err != nil {
		return nil, err
	}
	rp := s.adopt(run, values)
	flt, ok := s.flts.get(j)
	if !ok {
		return nil, adi.NotFoundf("cannot record the FLT of %s: %s; the program does not run the same way twice (it depends on time, input or the environment, or on randomness adi does not seed)", f.FID(), rp.why(s, run, j))
	}
	return flt, nil
}

// nextHits lists up to n frames after j (then before it) that match B, for batching.
func (s *Session) nextHits(j, n int) []int {
	var after, before []int
	seen := map[int]bool{j: true}
	for _, b := range s.state.Breakpoints {
		for _, inv := range s.trace.Invocations(b.Func) {
			k := int(inv)
			if seen[k] || (b.Cond != "" && !s.hits.Holds(b, k)) {
				continue
			}
			seen[k] = true
			if k > j {
				after = append(after, k)
			} else {
				before = append(before, k)
			}
		}
	}
	sort.Ints(after)
	sort.Sort(sort.Reverse(sort.IntSlice(before)))
	out := append(after, before...)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// fltRequest is the light re-run that records the FLTs of frames (indexes in T), each with its
// replay check, and the values of the frames those FLTs show that the recording holds bare
// (values.go), which it returns too, for adopt.
func (s *Session) fltRequest(frames []int) (RunRequest, []int) {
	req := RunRequest{Light: true}
	var values []int
	for _, k := range frames {
		fid := s.trace.Frames[k].FID()
		req.Trace = append(req.Trace, probe.Selector{Func: fid.Func, Index: fid.Index})
		req.Expect = append(req.Expect, s.expect(k))
		values = append(values, s.fltValues(k)...)
	}
	values = s.bareOf(values)
	req.ValuesOf = s.selectors(values)
	req.Only = s.onlyFor(append(slices.Clone(frames), values...))
	return req, values
}

// onlyFor lists the functions a re-run that answers for frames (indexes in T) records (probe
// config "only"): each frame's, its callers', its callees' and its caller's callees', which the
// replay check compares (replay.go, values.go); the program's other calls cost the re-run next
// to nothing.
func (s *Session) onlyFor(frames []int) []string {
	set := map[string]bool{}
	add := func(k int32) { set[s.trace.Frames[k].Func] = true }
	for _, j := range frames {
		add(int32(j))
		for _, c := range s.trace.Callees(j) {
			add(c)
		}
		caller := s.trace.Frames[j].Caller
		for c := caller; c >= 0; c = s.trace.Frames[c].Caller {
			add(c)
		}
		if caller >= 0 {
			for _, c := range s.trace.Callees(int(caller)) {
				add(c)
			}
		}
	}
	out := make([]string, 0, len(set))
	for fn := range set {
		out = append(out, fn)
	}
	slices.Sort(out)
	return out
}

// adopt takes into the cache the FLTs of a re-run that answer for frames of T (replay.go) and the
// values it recorded for the frames values of T, held bare (values.go), keeps only those on disk,
// and notes where the re-run differed from the recording, for the answer.
func (s *Session) adopt(run *Run, values []int) *replay {
	rp := s.replayOf(run)
	got := s.takeValues(run, values)
	s.flts.putAll(rp.flts)
	if len(rp.flts) > 0 {
		s.emit(Event{Session: s.ID, Kind: "flt_ready", FLTs: s.flts.len()})
	}
	if rp.differ != "" {
		s.log.Debug("re-run differed from the recording", "run", filepath.Base(run.Dir), "where", rp.differ)
		if len(rp.flts) > 0 {
			s.note("this re-run differed from the recording (" + rp.differ + "); the frames shown are the same invocations as recorded")
		}
	}
	s.keep(run, rp.flts, got)
	return rp
}

// recordFLTs records the FLTs of frames (indexes in T) with one re-run, as a command does: under
// the session's lock, cancelled by Close.
func (s *Session) recordFLTs(ctx context.Context, frames []int, purpose string) error {
	ctx, end, err := s.begin(ctx)
	if err != nil {
		return err
	}
	defer end()
	var want []int
	for _, j := range frames {
		if !s.flts.has(j) && s.trace.Frame(j) != nil {
			want = append(want, j)
		}
	}
	if len(want) == 0 {
		return nil
	}
	req, values := s.fltRequest(want)
	run, err := s.record(ctx, purpose, req)
	if err != nil {
		return err
	}
	rp := s.adopt(run, values)
	sort.Ints(want)
	for _, j := range want {
		if !s.flts.has(j) {
			return adi.NotFoundf("cannot record the FLT of %s: %s; the editor's run cannot be replayed", s.trace.Frames[j].FID(), rp.why(s, run, j))
		}
	}
	return nil
}
