package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Peer modes: what one command of the artifact costs (see bench/python/peer_standin.py).
const (
	PeerFLT      = "flt"
	PeerCallTree = "calltree"
	PeerExec     = "exec"
)

// peer times the artifact's method for one mode on w (FUNC#2; the call tree of FUNC#1): the
// median of reps re-runs of w under peer_standin.py.
func (e *Env) peer(ctx context.Context, w *Workload, mode string, reps int) (time.Duration, error) {
	n := 2
	if mode == PeerCallTree {
		n = 1
	}
	return e.peerFrame(ctx, w, mode, n, reps)
}

// peerFrame times the artifact's method for one mode on w's FUNC#n: the median of reps re-runs of
// w under peer_standin.py, each of which must find the frame (and in exec mode reach w.Line).
func (e *Env) peerFrame(ctx context.Context, w *Workload, mode string, n, reps int) (time.Duration, error) {
	out := filepath.Join(e.Work, "peer.json")
	args := []string{e.Script("peer_standin.py"), "--out", out}
	target := w.PeerTarget(n)
	switch mode {
	case PeerExec:
		args = append(args, "--line", fmt.Sprint(w.Line), "--stmt", w.Stmt)
	}
	args = append(append(args, mode, target, "--"), w.Argv...)
	var ds []time.Duration
	for i := 0; i < max(reps, 1); i++ {
		_ = os.Remove(out)
		d, err := e.runPython(ctx, w, args...)
		if err != nil {
			return 0, err
		}
		var res struct {
			Found bool    `json:"found"`
			Exec  *string `json:"exec"`
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return 0, fmt.Errorf("peer stand-in wrote no result: %w", err)
		}
		if err := json.Unmarshal(b, &res); err != nil || !res.Found {
			return 0, fmt.Errorf("peer stand-in did not find %s (%s)", target, b)
		}
		if mode == PeerExec && res.Exec == nil {
			return 0, fmt.Errorf("peer stand-in did not reach line %d of %s", w.Line, target)
		}
		ds = append(ds, d)
	}
	return median(ds), nil
}
