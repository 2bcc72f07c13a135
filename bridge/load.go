package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
)

// LoadSession reopens a session from its directory (after a bridge restart): T from its first
// run, Σ and the condition results from state.json, and the FLTs of every later run that replayed
// the recording. Nothing is re-run.
func LoadSession(ctx context.Context, dir string, log hclog.Logger, events func(Event)) (*Session, error) {
	var meta sessionMeta
	b, err := os.ReadFile(filepath.Join(dir, "session.json"))
	if err != nil {
		return nil, fmt.Errorf("%s is not a session directory: %w", dir, err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return nil, fmt.Errorf("%s/session.json is corrupt: %w", dir, err)
	}
	prog, tg, err := NewProgram(ctx, meta.Options)
	if err != nil {
		return nil, fmt.Errorf("cannot reopen session %s: %w", meta.ID, err)
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	if events == nil {
		events = func(Event) {}
	}
	s := &Session{
		ID: meta.ID, Dir: dir, Opts: meta.Options, log: log, prog: prog, target: tg, emit: events,
		flts: map[int]*adi.FLT{}, hits: adi.Hits{}, condErr: map[adi.Breakpoint]string{},
		created: meta.Created,
	}
	runsDir := filepath.Join(dir, "runs")
	runs, err := listRuns(runsDir)
	if err != nil || len(runs) == 0 {
		return nil, fmt.Errorf("session %s has no recording on disk", meta.ID)
	}
	s.rn = &runner{prog: prog, dir: runsDir, log: log, next: runs[len(runs)-1] + 1}
	base, err := loadRun(filepath.Join(runsDir, fmt.Sprintf("%04d", runs[0])))
	if err != nil {
		return nil, err
	}
	s.base = base
	s.trace = base.Rec.Trace
	s.trace.Root = prog.Root
	s.state = adi.NewState(s.trace)
	for k, flt := range base.Rec.FLTs {
		s.flts[k] = flt
	}
	for _, n := range runs[1:] {
		dir := filepath.Join(runsDir, fmt.Sprintf("%04d", n))
		kept, ok, err := loadKept(dir)
		if !ok && err == nil { // a run of an older adi, or one cut before it was adopted
			var r *Run
			if r, err = loadRun(dir); err == nil {
				kept = s.replayOf(r).flts
			}
		}
		if err != nil {
			log.Warn("skipping unreadable run", "run", n, "error", err)
			continue
		}
		for k, flt := range kept {
			if s.trace.Frame(k) != nil {
				s.flts[k] = flt
			}
		}
	}
	var st stateFile
	if b, err := os.ReadFile(filepath.Join(dir, "state.json")); err == nil && json.Unmarshal(b, &st) == nil {
		s.state.Breakpoints = st.Breakpoints
		if s.trace.Frame(st.Current) != nil {
			s.state.Cur = st.Current
		}
		for _, h := range st.Hits {
			s.hits[h.Breakpoint] = h.Frames
		}
	}
	s.refreshInfo()
	return s, nil
}
