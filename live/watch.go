package live

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/probe"
)

// Watching: every run of a live session starts the program with the probe's watch recorder in
// place but idle (probe/PROTOCOL.md, "Watching in a live process"). `watch FUNC` makes it record
// every following invocation of FUNC, and everything it calls, as the program runs, without
// pausing it; what it catches is the session's recording (bridge.Session: T and the FLTs), so
// every ADI command answers about it. The bridge talks to the recorder over a unix socket (one
// JSON object per line); watches set before the program starts are in a file the launcher reads.

// watch is one watched function: it outlives runs, like a breakpoint.
type watch struct {
	Func   string   `json:"func"`
	Cond   string   `json:"cond,omitempty"`
	Max    int      `json:"max,omitempty"`
	id     int      // the recorder's id of it in the current run (-1: not sent yet)
	Caught int      `json:"caught"`
	Errors []string `json:"cond_errors,omitempty"`
	Active bool     `json:"active"`
}

// WatchInfo is a watch in an answer: what it watches and what it caught in the current run.
type WatchInfo struct {
	Func    string   `json:"func"`
	Cond    string   `json:"cond,omitempty"`
	Max     int      `json:"max,omitempty"`
	Matches []string `json:"matches,omitempty"`
	// Caught lists the caught invocations, as fids (checkout#1), oldest first.
	Caught []string `json:"caught"`
	// Running counts the caught invocations still running.
	Running    int      `json:"running,omitempty"`
	Done       bool     `json:"done,omitempty"` // it caught its max
	CondErrors []string `json:"cond_errors,omitempty"`
	// Watching is false for a function no longer watched whose caught invocations stay.
	Watching bool `json:"watching"`
}

// watchLaunch is the launcher's "watch" config: where the recorder of one run writes and listens.
type watchLaunch struct {
	Out      string   `json:"out"`
	Socket   string   `json:"socket"`
	Root     string   `json:"root"`
	Include  []string `json:"include"`
	Exclude  []string `json:"exclude"`
	Watches  string   `json:"watches_file"`
	MaxSteps int      `json:"max_steps"`
}

// watchFor is the watch config of run n of the session: its output is the session's current live
// run directory, its socket and watches file are in the session's temporary directory.
func (s *Session) watchFor(n int) watchLaunch {
	p := s.prog
	return watchLaunch{Out: s.rec.LiveRunDir(), Socket: filepath.Join(s.tmp, fmt.Sprintf("w%d.sock", n)),
		Root: p.Root, Include: nonNil(p.Include), Exclude: nonNil(p.Exclude),
		Watches: filepath.Join(s.tmp, fmt.Sprintf("watches-%d.json", n)), MaxSteps: 200000}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// writeWatches writes the watches file of the run about to start (the launcher reads it before
// the program runs a line).
func (s *Session) writeWatches(w watchLaunch) error {
	list := make([]map[string]any, 0, len(s.watches))
	for _, x := range s.watches {
		m := map[string]any{"func": x.Func}
		if x.Cond != "" {
			m["cond"] = x.Cond
		}
		if x.Max > 0 {
			m["max"] = x.Max
		}
		list = append(list, m)
	}
	b, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := os.WriteFile(w.Watches, b, 0o600); err != nil {
		return fmt.Errorf("write the watches of live session %s: %w", s.ID, err)
	}
	return nil
}

// recorderUp reports whether the current run's program is running with its recorder listening
// (it started: the launcher runs before the program's first line).
func (s *Session) recorderUp() bool {
	return s.run != nil && s.run.probe != nil && s.state != Start && s.state != Done
}

// addWatch sends a watch to the current run's recorder and fills in its id and the functions
// that match it now.
func (s *Session) addWatch(ctx context.Context, w *watch) ([]string, error) {
	params := map[string]any{"func": w.Func}
	if w.Cond != "" {
		params["cond"] = w.Cond
	}
	if w.Max > 0 {
		params["max"] = w.Max
	}
	var res struct {
		Watch   int      `json:"watch"`
		Matches []string `json:"matches"`
	}
	if err := s.run.probe.Call(ctx, "add", params, &res); err != nil {
		return nil, err
	}
	w.id = res.Watch
	return res.Matches, nil
}

// watchCmd is `watch FUNC [--cond EXPR] [--max N]`.
func (s *Session) watchCmd(ctx context.Context, c Cmd) (result, error) {
	fn := strings.TrimSpace(c.Func)
	if fn == "" {
		return result{}, adi.BadInputf("%s needs the function to watch (%s), e.g. checkout or shop.Cart.checkout", cmdMark(CmdWatch), faces.Param("live.watch", "func"))
	}
	if c.Max < 0 {
		return result{}, adi.BadInputf("%s must be a whole number from 1 (got %d); leave it out to watch every invocation", faces.Param("live.watch", "max"), c.Max)
	}
	for _, w := range s.watches {
		if w.Func == fn && w.Cond == c.Condition {
			return result{}, adi.BadInputf("%s is already watched; %s %s first to change it", probe.WatchText(fn, w.Cond, 0), cmdMark(CmdUnwatch), fn)
		}
	}
	w := &watch{Func: fn, Cond: c.Condition, Max: c.Max, id: -1, Active: true}
	var matches []string
	if s.attach != "" && s.state != Done {
		if err := s.installRecorder(ctx); err != nil {
			return result{}, err
		}
	}
	if s.recorderUp() {
		m, err := s.addWatch(ctx, w)
		if err != nil {
			return result{}, err
		}
		matches = m
	} else if err := checkCond(c.Condition); err != nil {
		return result{}, err
	}
	s.watches = append(s.watches, w)
	s.nwatch.Store(int32(len(s.watches)))
	if !s.recorderUp() && s.state == Start {
		if err := s.writeWatches(s.watchFor(s.runs)); err != nil {
			return result{}, err
		}
	}
	text := fmt.Sprintf("Watching %s: every following invocation is recorded (its FLT and the calls below it) as the program runs, without pausing it.",
		probe.WatchText(fn, w.Cond, w.Max))
	switch {
	case s.state == Start:
		text += " The program has not started: the watch is in place before its first line."
	case len(matches) == 0:
		text += fmt.Sprintf(" No loaded function is named %s yet; it is caught once its module is loaded and it runs.", fn)
	default:
		text += " It matches " + strings.Join(matches, ", ") + "."
	}
	text += fmt.Sprintf(" %s lists what it caught; %s FUNC#N shows one.", cmdMark(CmdCaught), faces.Cmd("adi.flt"))
	return result{text: text, json: WatchInfo{Func: fn, Cond: w.Cond, Max: w.Max, Matches: matches, Caught: []string{}}}, nil
}

// unwatchCmd is `unwatch [FUNC]`: stop watching FUNC (every function without one). What was
// caught stays in the recording.
func (s *Session) unwatchCmd(ctx context.Context, c Cmd) (result, error) {
	fn := strings.TrimSpace(c.Func)
	var keep, gone []*watch
	for _, w := range s.watches {
		if fn == "" || w.Func == fn {
			gone = append(gone, w)
		} else {
			keep = append(keep, w)
		}
	}
	if len(gone) == 0 {
		if fn == "" {
			return result{text: "No function is watched."}, nil
		}
		return result{}, adi.NotFoundf("%s is not watched; the watched functions are: %s", fn, s.watchNames())
	}
	if s.recorderUp() {
		s.syncWatches(ctx)
		for _, w := range gone {
			if w.id >= 0 {
				if err := s.run.probe.Call(ctx, "remove", map[string]any{"watch": w.id}, nil); err != nil {
					return result{}, err
				}
			}
		}
	}
	s.watches = keep
	s.nwatch.Store(int32(len(s.watches)))
	if s.state == Start {
		if err := s.writeWatches(s.watchFor(s.runs)); err != nil {
			return result{}, err
		}
	}
	names := make([]string, len(gone))
	for i, w := range gone {
		names[i] = w.Func
	}
	return result{text: fmt.Sprintf("No longer watching %s; what was caught stays (%s).", strings.Join(names, ", "), cmdMark(CmdCaught))}, nil
}

// caughtCmd is `caught`: each watch with the invocations it caught in the current run.
func (s *Session) caughtCmd(ctx context.Context) (result, error) {
	infos, err := s.watchInfos(ctx)
	if err != nil {
		return result{}, err
	}
	if len(infos) == 0 {
		return result{text: fmt.Sprintf("No function is watched; %s FUNC records its invocations as the program runs.", cmdMark(CmdWatch)), json: infos}, nil
	}
	var b strings.Builder
	for _, in := range infos {
		fmt.Fprintf(&b, "%s: ", probe.WatchText(in.Func, in.Cond, in.Max))
		switch {
		case len(in.Caught) == 0:
			b.WriteString("nothing caught yet")
		default:
			fmt.Fprintf(&b, "%d caught: %s", len(in.Caught), strings.Join(in.Caught, ", "))
		}
		if in.Running > 0 {
			fmt.Fprintf(&b, " (%d still running)", in.Running)
		}
		if in.Done {
			b.WriteString("; it caught its max and watches no more")
		}
		if !in.Watching {
			b.WriteString(" (no longer watched)")
		}
		for _, e := range in.CondErrors {
			b.WriteString("; the condition raised " + e)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "Every ADI command answers about them: %s FUNC#N, %s FUNC#N, %s A B.", faces.Cmd("adi.flt"), faces.Cmd("adi.call_tree"), faces.Cmd("adi.diff"))
	return result{text: b.String(), json: infos}, nil
}

// watchInfos reads the recorder's counts (when it runs) and the recording, and says what each
// watch caught in the current run.
func (s *Session) watchInfos(ctx context.Context) ([]WatchInfo, error) {
	s.syncWatches(ctx)
	if err := s.rec.RefreshLive(); err != nil {
		return nil, err
	}
	t := s.rec.Trace()
	out := []WatchInfo{}
	for _, w := range s.watches {
		out = append(out, WatchInfo{Func: w.Func, Cond: w.Cond, Max: w.Max, Caught: []string{}, CondErrors: w.Errors,
			Done: w.Max > 0 && w.Caught >= w.Max, Watching: true})
	}
	// every caught invocation (a root of the recording) under the first watch that names it, or
	// under its function when no watch does any more
	for _, f := range t.Frames {
		if f.Caller >= 0 {
			continue
		}
		fid := f.FID()
		k := -1
		for i := range out {
			if out[i].Watching && matchesFunc(fid.Func, out[i].Func) || !out[i].Watching && out[i].Func == fid.Func {
				k = i
				break
			}
		}
		if k < 0 {
			out = append(out, WatchInfo{Func: fid.Func, Caught: []string{}})
			k = len(out) - 1
		}
		out[k].Caught = append(out[k].Caught, fid.String())
		if f.Status == adi.Unfinished {
			out[k].Running++
		}
	}
	return out, nil
}

// syncWatches reads the recorder's watches (when it runs): their ids (the ones the launcher gave
// it from the watches file have none here yet), what each caught and the errors of conditions.
func (s *Session) syncWatches(ctx context.Context) {
	if !s.recorderUp() {
		return
	}
	var res struct {
		Watches []struct {
			Watch  int      `json:"watch"`
			Func   string   `json:"func"`
			Cond   *string  `json:"cond"`
			Caught int      `json:"caught"`
			Active bool     `json:"active"`
			Errors []string `json:"cond_errors"`
		} `json:"watches"`
	}
	if err := s.run.probe.Call(ctx, "list", nil, &res); err != nil {
		return
	}
	for _, w := range s.watches {
		for _, r := range res.Watches {
			cond := ""
			if r.Cond != nil {
				cond = *r.Cond
			}
			if r.Watch == w.id || w.id < 0 && r.Func == w.Func && cond == w.Cond {
				w.id, w.Caught, w.Active, w.Errors = r.Watch, r.Caught, r.Active, r.Errors
				break
			}
		}
	}
}

// matchesFunc reports whether the recorded function fn (module:qualname) is what a watch named
// as the user typed it: exactly, by qualname, or by the qualname's last part.
func matchesFunc(fn, name string) bool {
	if fn == name {
		return true
	}
	_, qual, _ := strings.Cut(fn, ":")
	return qual == name || strings.HasSuffix(qual, "."+name)
}

func (s *Session) watchNames() string {
	if len(s.watches) == 0 {
		return "none"
	}
	names := make([]string, len(s.watches))
	for i, w := range s.watches {
		names[i] = w.Func
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// checkCond refuses an empty condition before the program starts (its recorder compiles a
// condition when it gets it, and reports one that is not a Python expression in caught).
func checkCond(cond string) error {
	if strings.TrimSpace(cond) == "" && cond != "" {
		return adi.BadInputf("the condition is empty; leave %s out to watch every invocation", faces.Param("live.watch", "condition"))
	}
	return nil
}

// Sync asks the current run's recorder to write what its watches recorded so far (bridge.Live).
// It never waits long and never fails: a program that does not answer leaves the recording as
// the last write left it.
func (s *Session) Sync(ctx context.Context) {
	if s.closed.Load() {
		return
	}
	p := s.probe.Load()
	if p == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_ = p.Call(ctx, "flush", nil, nil)
}

// FLTResult is live flt's result: the FLT (as the ADI face renders it) of a caught invocation or
// of the paused one so far.
type FLTResult struct {
	Frame string `json:"frame"`
	// SoFar is set when the invocation was still running when the FLT was read.
	SoFar bool            `json:"so_far,omitempty"`
	FLT   json.RawMessage `json:"flt"`
}

// fltCmd is `flt [FUNC#N] [--finish]`: the FLT of a caught invocation, or with no frame of the
// invocation the program is paused in, so far (the statements it ran, their changes and the calls
// they made up to the pause). With finish the program runs on (as with continue's background)
// until that invocation returns, and the FLT is its whole lifetime.
func (s *Session) fltCmd(ctx context.Context, c Cmd) (result, error) {
	ref := strings.TrimSpace(c.Frame2)
	if ref == "" {
		if !s.state.paused() || len(s.stack) == 0 {
			return result{}, adi.BadInputf("%s with no frame shows the invocation the program is paused in, and it is not paused (state %s); name a caught invocation (%s lists them)",
				cmdMark(CmdFLT), s.state, cmdMark(CmdCaught))
		}
		idx, err := s.pausedIdx(ctx)
		if err != nil {
			return result{}, err
		}
		if idx < 0 {
			f := s.stack[0]
			return result{}, adi.NotFoundf("the paused invocation (%s) is not being recorded: only invocations that start while a watch on their function is on are; %s %s, then let the program call it again",
				s.frameText(f), cmdMark(CmdWatch), f.Function)
		}
		if err := s.rec.RefreshLive(); err != nil {
			return result{}, err
		}
		fr := s.rec.Trace().Frame(idx)
		if fr == nil {
			return result{}, fmt.Errorf("the recording has no frame %d yet (the program's recorder did not write it); try again", idx)
		}
		ref = fr.FID().String()
	}
	r, err := adi.ParseRef(ref)
	if err != nil {
		return result{}, err
	}
	if c.Finish {
		if err := s.finishFrame(ctx, r); err != nil {
			return result{}, err
		}
	}
	ans, err := s.rec.Do(ctx, adi.FLTCmd{Frame: &r}, adi.TextOptions{})
	if err != nil {
		return result{}, err
	}
	res := FLTResult{Frame: ref}
	if b, err := json.Marshal(ans.Result); err == nil {
		res.FLT = b
	}
	text := ans.Text
	if j, err := s.rec.Trace().ResolveFrame(r); err == nil && s.rec.Trace().Frames[j].Status == adi.Unfinished {
		res.SoFar = true
		text = fmt.Sprintf("%s so far (it is still running; %s %s records it to its end):\n%s", ref, cmdMark(CmdFLT), faces.Param("live.flt", "finish"), text)
	}
	return result{text: text, json: res}, nil
}

// pausedIdx asks the recorder, in the paused frame, which recorded invocation it is (-1: none).
func (s *Session) pausedIdx(ctx context.Context) (int, error) {
	ectx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	body, err := s.run.c.Evaluate(ectx, "__import__('adi_probe.watch').watch.current()", s.stack[0].id, "clipboard")
	if err != nil {
		return 0, fmt.Errorf("cannot ask the program which invocation it is paused in: %w", err)
	}
	var idx int
	if _, err := fmt.Sscan(strings.TrimSpace(body.Result), &idx); err != nil {
		return 0, fmt.Errorf("the program's recorder gave an unreadable answer (%.60q)", body.Result)
	}
	return idx, nil
}

// finishFrame lets the paused program run on its own until the invocation r has returned (its
// FLT is then whole), it stops at a breakpoint, it ends, or the watchdog's limit passes.
func (s *Session) finishFrame(ctx context.Context, r adi.Ref) error {
	if s.state.paused() {
		if err := s.resume(ctx); err != nil {
			return err
		}
		s.setState(Running, "it runs on its own until "+r.String()+" returns ("+cmdMark(CmdFLT)+" "+faces.Param("live.flt", "finish")+")")
	}
	deadline := time.Now().Add(s.opts.Timeout)
	for time.Now().Before(deadline) {
		s.Sync(ctx)
		if err := s.rec.RefreshLive(); err != nil {
			return err
		}
		t := s.rec.Trace()
		if j, err := t.ResolveFrame(r); err == nil && t.Frames[j].Status != adi.Unfinished {
			return nil // its FLT is whole: a snapshot has an ended frame's FLT end (probe.Tail)
		}
		s.pollRunning(ctx)
		if s.state != Running {
			return nil // it stopped (a breakpoint) or ended first: the FLT says how far it got
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		case <-s.life.Done():
			return errClosed(s.ID)
		}
	}
	return nil
}

// followEvery is how often a run with watches re-reads what they recorded, so that every face
// (the viewer, a subscriber) sees each caught invocation soon after it returned.
const followEvery = 200 * time.Millisecond

// follow re-reads the run's recording while the run lasts and the session watches something:
// the recording part announces each growth (a trace_updated event). It is the run's goroutine
// for that and ends with the run or the session.
func (s *Session) follow(r *run) {
	tick := time.NewTicker(followEvery)
	defer tick.Stop()
	refresh := func() {
		if s.nwatch.Load() > 0 {
			if err := s.rec.RefreshLive(); err != nil {
				s.log.Debug("re-reading the watches' recording", "error", err)
			}
		}
	}
	for {
		select {
		case <-tick.C:
		case <-r.ended:
			// what the program wrote as it ended (its last flush) is read once more, so that the
			// session's T and its listing (adi sessions) count it without waiting for a command
			refresh()
			return
		case <-s.life.Done():
			return
		}
		refresh()
	}
}
