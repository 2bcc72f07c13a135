package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// tinyScript is the tiny script of the CLI's first-command figures: two calls, no imports.
const tinyScript = `def f(x):
    y = x + 1
    return y * 2


print(f(1))
`

// TinyCLI is adi's CLI on a tiny script, each command timed as a whole process (medians of N):
// Cold is the first command (`call-tree "python3 tiny.py"`) with no daemon and a fresh state
// directory, so it starts the daemon, which finds the interpreter and records the script; Warm is
// a new session's first command on the running daemon (it records); Reused is the same command
// again on the recorded session (nothing runs).
type TinyCLI struct {
	Cold, Warm, Reused time.Duration
	N                  int
}

// TinyCLI measures TinyCLI with the adi binary exe, reps times.
func (e *Env) TinyCLI(ctx context.Context, exe string, reps int) (*TinyCLI, error) {
	dir := filepath.Join(e.Work, "tiny")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny.py"), []byte(tinyScript), 0o644); err != nil {
		return nil, err
	}
	var cold, warm, reused []time.Duration
	for i := 0; i < max(reps, 1); i++ {
		state, err := os.MkdirTemp(e.Work, "state-tiny-")
		if err != nil {
			return nil, err
		}
		c := &cli{exe: exe, state: state, dir: dir}
		for _, step := range []struct {
			into *[]time.Duration
			args []string
		}{
			{&cold, []string{"call-tree", "python3 tiny.py"}},
			{&warm, []string{"call-tree", "--session", "warm", "python3 tiny.py"}},
			{&reused, []string{"call-tree", "python3 tiny.py"}},
		} {
			res, err := c.run(ctx, "", step.args...)
			if err == nil && res.Code != 0 {
				err = fmt.Errorf("%s", res.Error())
			}
			if err != nil {
				c.stop(ctx)
				return nil, err
			}
			*step.into = append(*step.into, res.Time)
		}
		c.stop(ctx)
	}
	return &TinyCLI{Cold: median(cold), Warm: median(warm), Reused: median(reused), N: len(cold)}, nil
}
