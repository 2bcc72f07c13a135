package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/adi-bridge/adi/adi"
)

// FLTSize is the size of one FLT as adi answers it, in tokens of adi.CharsPerToken characters,
// and the size the same statements take written one line each with their changes, unfolded.
type FLTSize struct {
	Workload string
	Frame    string
	Steps    int
	Tokens   int // adi's text answer (adi.flt, default budget)
	Unfolded int // one line per statement and per change
	Time     time.Duration
}

// fltSize asks the session for frame's FLT and measures it.
func (e *Env) fltSize(ctx context.Context, r *rpc, w *Workload, frame string) (*FLTSize, error) {
	a, d, _, err := r.call(ctx, "adi.flt", map[string]any{"frame": frame})
	if err != nil {
		return nil, err
	}
	var v adi.FLTView
	if err := json.Unmarshal(a.Result, &v); err != nil {
		return nil, fmt.Errorf("flt result: %w", err)
	}
	unfolded := 0
	for _, st := range v.Steps {
		unfolded += len(fmt.Sprintf("%5d | %s\n", st.Line, st.Stmt))
		for _, c := range st.Changes {
			unfolded += len(fmt.Sprintf("      |   %s = %s (was %s)\n", c.Name, c.New, c.Old))
		}
	}
	return &FLTSize{Workload: w.Name, Frame: frame, Steps: len(v.Steps), Tokens: adi.Tokens(a.Text),
		Unfolded: (unfolded + adi.CharsPerToken - 1) / adi.CharsPerToken, Time: d}, nil
}

// FLTSizeOf records w in a new session of s and measures frame's FLT.
func (e *Env) FLTSizeOf(ctx context.Context, s *Server, w *Workload, frame string) (*FLTSize, error) {
	r, _, _, err := e.open(ctx, s, w, fmt.Sprintf("tok-%d", time.Now().UnixNano()))
	if err != nil {
		return nil, err
	}
	defer r.c.Close()
	return e.fltSize(ctx, r, w, frame)
}
