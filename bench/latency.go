package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/adi-bridge/adi/adi"
)

// How an adi command was answered.
const (
	FromRecording = "from the recording"
	ByRerun       = "one re-run (records the FLT and the next breakpoint hits)"
	ByExecRun     = "a run under the probe alone to the line"
	ByDebugRun    = "a run under debugpy to the line"
)

// The exec rows: a plain exec (the probe stops and runs the statement itself), an exec
// --then-continue (under debugpy; the session's first starts debugpy), and the next ones, which
// find a debug run kept ready.
const (
	ExecPlain = "exec"
	ExecCold  = "exec --then-continue (the session's first: starts debugpy)"
	ExecWarm  = "exec --then-continue (the next, 1 s later: a run kept ready)"
)

// Latency is one ADI command's time in an adi session and with the artifact's method.
type Latency struct {
	Command string
	ADI     time.Duration // median over the repetitions
	Reps    int
	How     string // FromRecording, ByRerun or ByDebugRun (what the answers did, by their events)
	Peer    time.Duration
	Mode    string // the peer mode it compares with
	Bar     string // the bar for this command, if any
	Kind    string // "navigation", "break-cached", "break-uncached" or ""
}

// Latencies is a workload's command latencies, with what the session's recording cost.
type Latencies struct {
	Workload *Workload
	Record   time.Duration
	Frames   int
	Rows     []Latency
	Peer     map[string]time.Duration // peer mode → median run time
	Notes    []string
}

// CommandLatency drives an adi session on w through every ADI command and times each (cached
// answers reps times, the median counts), then times the artifact's method for the same
// commands: one re-run of w with peer_standin.py per command (median of reps runs per mode).
func (e *Env) CommandLatency(ctx context.Context, s *Server, w *Workload, reps int) (*Latencies, error) {
	r, rec, frames, err := e.open(ctx, s, w, fmt.Sprintf("lat-%d", time.Now().UnixNano()))
	if err != nil {
		return nil, err
	}
	defer r.c.Close()
	out := &Latencies{Workload: w, Record: rec, Frames: frames, Peer: map[string]time.Duration{}}
	samples := map[string][]time.Duration{}
	how := map[string]string{}
	var order []string
	note := func(label string, d time.Duration, rerun bool, exec string) {
		if _, ok := samples[label]; !ok {
			order = append(order, label)
		}
		samples[label] = append(samples[label], d)
		h := FromRecording
		switch {
		case exec != "":
			h = exec
		case rerun:
			h = ByRerun
		}
		if prev, ok := how[label]; ok && !strings.Contains(prev, h) {
			h = prev + "; " + h
		} else if ok {
			h = prev
		}
		how[label] = h
	}
	do := func(label, method string, params map[string]any) (*answer, error) {
		a, d, rerun, err := r.call(ctx, method, params)
		if err != nil {
			return nil, err
		}
		how := ""
		if method == "adi.execute" {
			how = ByExecRun
			if params["then_continue"] == true {
				how = ByDebugRun
			}
		}
		note(label, d, rerun, how)
		return a, nil
	}

	fn := w.Func
	invocations, err := e.count(ctx, r, fn)
	if err != nil {
		return nil, err
	}
	if _, err := do("break FUNC (set a breakpoint)", "adi.break", map[string]any{"func": fn}); err != nil {
		return nil, err
	}
	if _, err := do("continue to the first hit (FLT not recorded yet)", "adi.continue", nil); err != nil {
		return nil, err
	}
	for i := 0; i < reps; i++ {
		if _, err := do("continue", "adi.continue", nil); err != nil {
			return nil, err
		}
		if _, err := do("prev", "adi.prev", nil); err != nil {
			return nil, err
		}
		if _, err := do("call-tree", "adi.call_tree", nil); err != nil {
			return nil, err
		}
		if _, err := do("flt", "adi.flt", nil); err != nil {
			return nil, err
		}
	}
	// step-into a callee of FUNC#1 and back out; the first step-into may need a re-run.
	kid, err := e.firstCallee(ctx, r, fn+"#1")
	if err != nil {
		return nil, err
	}
	if kid == "" {
		out.Notes = append(out.Notes, fn+"#1 calls no recorded function: step-into and step-out not measured")
	} else {
		if _, err := do("step-into (callee's FLT not recorded yet)", "adi.step_into", map[string]any{"frame": kid}); err != nil {
			return nil, err
		}
		for i := 0; i < reps; i++ {
			if _, err := do("step-out", "adi.step_out", nil); err != nil {
				return nil, err
			}
			if _, err := do("step-into", "adi.step_into", map[string]any{"frame": kid}); err != nil {
				return nil, err
			}
		}
	}
	for i := 0; i < reps; i++ {
		if _, err := do("break FUNC#2 (frame recorded)", "adi.break", map[string]any{"func": fn + "#2"}); err != nil {
			return nil, err
		}
	}
	// Frames past the batch a re-run records (the next 24 hits), each its own re-run.
	uncached := []int{40, 80, 120}
	if invocations < 40 && invocations > 26 {
		uncached = []int{invocations}
	}
	for _, n := range uncached {
		if n > invocations {
			break
		}
		if _, err := do("break FUNC#N (frame not recorded)", "adi.break", map[string]any{"func": fmt.Sprintf("%s#%d", fn, n)}); err != nil {
			return nil, err
		}
	}
	if invocations <= 26 {
		out.Notes = append(out.Notes, fmt.Sprintf("%s has %d invocations: an uncached break is not measured", fn, invocations))
	}
	// A plain exec is a run under the probe alone. The session's first exec --then-continue starts
	// debugpy; after it the session keeps a run ready for the next one (bridge/standby.go), which
	// an agent's next exec finds after its model's turn (a second here, not timed).
	exec := map[string]any{"frame": fn + "#2", "line": w.Line, "stmt": w.Stmt}
	for i := 0; i < min(reps, 3); i++ {
		if _, err := do(ExecPlain, "adi.execute", exec); err != nil {
			return nil, err
		}
	}
	cont := map[string]any{"frame": fn + "#2", "line": w.Line, "stmt": w.Stmt, "then_continue": true}
	if _, err := do(ExecCold, "adi.execute", cont); err != nil {
		return nil, err
	}
	for i := 0; i < min(reps, 3); i++ {
		time.Sleep(time.Second)
		if _, err := do(ExecWarm, "adi.execute", cont); err != nil {
			return nil, err
		}
	}

	for _, mode := range []string{PeerFLT, PeerCallTree, PeerExec} {
		d, err := e.peer(ctx, w, mode, min(reps, 3))
		if err != nil {
			return nil, err
		}
		out.Peer[mode] = d
	}
	for _, label := range order {
		row := Latency{Command: label, ADI: median(samples[label]), Reps: len(samples[label]), How: how[label], Mode: PeerFLT}
		switch label {
		case "call-tree":
			row.Mode = PeerCallTree
		case ExecPlain, ExecCold, ExecWarm:
			row.Mode = PeerExec
		}
		switch label {
		case "continue", "prev", "step-into", "step-out", "call-tree", "flt":
			row.Kind, row.Bar = "navigation", "≤ 0.05x one re-run"
		case "break FUNC#2 (frame recorded)":
			row.Kind, row.Bar = "break-cached", "≤ 5 ms"
		case "break FUNC#N (frame not recorded)":
			row.Kind, row.Bar = "break-uncached", "≤ 1 re-run"
		}
		row.Peer = out.Peer[row.Mode]
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// count returns how many times fn was called in the session's recording.
func (e *Env) count(ctx context.Context, r *rpc, fn string) (int, error) {
	a, _, _, err := r.call(ctx, "adi.list_frames", map[string]any{"func": fn, "limit": 1})
	if err != nil {
		return 0, err
	}
	var res struct {
		Total int `json:"total"`
	}
	if err := json.Unmarshal(a.Result, &res); err != nil {
		return 0, fmt.Errorf("list_frames result: %w", err)
	}
	return res.Total, nil
}

// firstCallee returns the fid of the first function frame calls, or "" when it calls none.
func (e *Env) firstCallee(ctx context.Context, r *rpc, frame string) (string, error) {
	var res struct {
		Frames []adi.FrameJSON `json:"frames"`
	}
	if err := r.c.Call(ctx, "trace.children", map[string]any{"session": r.id, "frame": frame}, &res); err != nil {
		return "", err
	}
	if len(res.Frames) == 0 {
		return "", nil
	}
	return res.Frames[0].FID.String(), nil
}

// median returns the median of xs (the lower middle for an even count; 0 for none).
func median[T cmp.Ordered](xs []T) T {
	var zero T
	if len(xs) == 0 {
		return zero
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
