package bridge

import (
	"context"
	"fmt"
	"github.com/adi-bridge/adi/internal/faces"
	"sort"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// setHitAt records where a line condition held in each of its hits (Session.hitAt).
func (s *Session) setHitAt(b adi.Breakpoint, at map[int][2]int) {
	if len(at) == 0 {
		delete(s.hitAt, b)
		return
	}
	if s.hitAt == nil {
		s.hitAt = map[adi.Breakpoint]map[int][2]int{}
	}
	s.hitAt[b] = at
}

// ensureConditions evaluates, in one re-run, every condition of B not evaluated yet, recording the
// FLTs of their first hits at the same time.
func (s *Session) ensureConditions(ctx context.Context) error {
	req := RunRequest{Light: true}
	var pending []adi.Breakpoint
	for _, b := range s.state.Breakpoints {
		if b.Cond == "" {
			continue
		}
		if _, ok := s.hits[b]; ok {
			continue
		}
		if _, ok := s.condErr[b]; ok {
			continue
		}
		id := len(pending)
		pending = append(pending, b)
		req.Conditions = append(req.Conditions, probe.Condition{ID: id, Func: b.Func, Cond: b.Cond, At: string(b.At()), Line: b.Line})
		if b.Line == 0 { // a line condition's hits are known only at the line: their FLTs are recorded when shown
			req.Trace = append(req.Trace, probe.Selector{Func: b.Func, Cond: b.Cond, At: string(b.At()), Max: batchMax})
		}
	}
	if len(pending) == 0 {
		return nil
	}
	if s.isLive {
		return adi.BadInputf("a condition over the caught invocations (%s) needs a re-run, and live session %s's program cannot be re-run; "+
			"watch with the condition instead (%s FUNC %s): the live program evaluates it at each call", pending[0].Cond, s.ID,
			faces.Cmd("live.watch"), faces.Param("live.watch", "condition"))
	}
	run, err := s.record(ctx, "evaluate conditions", req)
	if err != nil {
		return err
	}
	rt := run.Rec.Trace
	s.adopt(run, nil)
	res := run.Rec.Result
	if res == nil {
		return adi.BadInputf("the run that evaluates the conditions ended early (%s)", runSummary(run))
	}
	for _, cr := range res.Conditions {
		if cr.ID < 0 || cr.ID >= len(pending) {
			continue
		}
		b := pending[cr.ID]
		inv := s.trace.Invocations(b.Func)
		var hits []int
		at := map[int][2]int{}
		for k, n := range cr.Hits {
			if n < 1 || n > len(inv) {
				continue
			}
			// a hit counts for the recording's b.Func#n when the re-run's is the same invocation
			if r, err := rt.Lookup(adi.FID{Func: b.Func, Index: n}); err == nil && s.sameFrame(rt, r, int(inv[n-1])) == "" {
				hits = append(hits, int(inv[n-1]))
				if k < len(cr.Visits) {
					at[int(inv[n-1])] = cr.Visits[k]
				}
			}
		}
		s.setHitAt(b, at)
		sort.Ints(hits)
		s.hits[b] = nonNil(hits)
		if errs := cr.DecodedErrors(); len(errs) > 0 {
			fid := adi.FID{Func: b.Func, Index: errs[0].N}
			s.condErr[b] = fmt.Sprintf("%s (at %s, counted as false; %d evaluation(s) failed)", errs[0].Error, fid, len(errs))
		}
	}
	return nil
}
