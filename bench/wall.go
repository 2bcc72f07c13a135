package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/adi-bridge/adi/bridge"
)

// WallTimes is one workload run whole, process start included, each way (best of Env.Reps).
type WallTimes struct {
	Workload *Workload
	Plain    time.Duration
	Recorder time.Duration // under bench/python/recorder.py's naive setprofile recorder
	CProfile time.Duration // python -m cProfile -o /dev/null
	Debugpy  time.Duration // under debugpy, no breakpoints (DebugpyRun)
	ADI      time.Duration // adi recording T: a new session, ready for commands
	Frames   int           // calls in adi's T
}

// Wall times w every way, repeating each Env.Reps times, interleaved (the machine's speed
// drifts), keeping the best.
func (e *Env) Wall(ctx context.Context, w *Workload) (*WallTimes, error) {
	r := &WallTimes{Workload: w}
	ways := []struct {
		dst *time.Duration
		run func() (time.Duration, error)
	}{
		{&r.Plain, func() (time.Duration, error) { return e.runPython(ctx, w, w.Argv...) }},
		{&r.Recorder, func() (time.Duration, error) {
			return e.runPython(ctx, w, append([]string{e.Script("recorder.py"), "--"}, w.Argv...)...)
		}},
		{&r.CProfile, func() (time.Duration, error) {
			return e.runPython(ctx, w, append([]string{"-m", "cProfile", "-o", os.DevNull}, w.Argv...)...)
		}},
		{&r.Debugpy, func() (time.Duration, error) { return e.DebugpyRun(ctx, w) }},
		{&r.ADI, func() (time.Duration, error) {
			d, frames, err := e.Record(ctx, w)
			r.Frames = frames
			return d, err
		}},
	}
	for i := 0; i < e.Reps; i++ {
		for _, way := range ways {
			d, err := way.run()
			if err != nil {
				return nil, err
			}
			if *way.dst == 0 || d < *way.dst {
				*way.dst = d
			}
		}
	}
	return r, nil
}

// runPython runs the benchmark's python with args in w's directory and returns its wall time.
// The workload must succeed (exit 0).
func (e *Env) runPython(ctx context.Context, w *Workload, args ...string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, e.Python.Path, args...)
	cmd.Dir = w.Dir
	cmd.Env = workloadEnv(w.Env)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("python %s: %w: %s", strings.Join(args, " "), err, lastLines(out.String(), 5))
	}
	return d, nil
}

// Record times adi recording w: a new session (checks, probe run, reading the recording), and
// returns how many calls T holds. The session is removed.
func (e *Env) Record(ctx context.Context, w *Workload) (time.Duration, int, error) {
	dir, err := os.MkdirTemp(e.Work, "session-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	s, err := bridge.NewSession(ctx, e.Options(w), bridge.SessionConfig{ID: "bench", Dir: filepath.Join(dir, "s"), Log: e.Log})
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("adi record %s: %w", w.Command(), err)
	}
	defer s.Close()
	if code := s.Base().ExitCode; code != 0 {
		return 0, 0, fmt.Errorf("adi record %s: the target exited with %d: %s", w.Command(), code, lastLines(string(s.Base().Stderr), 5))
	}
	return d, s.Info().Frames, nil
}

// Options are the session options adi records w with.
func (e *Env) Options(w *Workload) bridge.Options {
	return bridge.Options{Command: w.Command(), Dir: w.Dir, Include: w.Include, Env: append([]string{"PYTHONDONTWRITEBYTECODE=1"}, w.Env...),
		Python: e.Python.Path, Timeout: 5 * time.Minute}
}
