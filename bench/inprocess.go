package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
)

// InProcess is what bench/python/inprocess.py measured inside one python process.
type InProcess struct {
	Python    string `json:"python"`
	Rounds    int    `json:"rounds"`
	FibCalls  int    `json:"fib_calls"`
	Fib       []Cost `json:"fib"`
	FLT       FLTRun `json:"flt"`
	DebugpyMS float64
}

// Cost is one way of running fib(25) in-process.
type Cost struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Extra   *struct {
		Bytes  int64  `json:"bytes"`
		Engine string `json:"engine"`
	} `json:"extra"`
}

// FLTRun is the probe recording the FLT of one frame of Steps statements.
type FLTRun struct {
	Engine        string  `json:"engine"`
	Steps         int     `json:"steps"`
	PlainSeconds  float64 `json:"plain_seconds"`
	TracedSeconds float64 `json:"traced_seconds"`
	Bytes         int64   `json:"bytes"`
}

// PerStatement is the probe's cost per statement in microseconds.
func (f FLTRun) PerStatement() float64 {
	return (f.TracedSeconds - f.PlainSeconds) / float64(f.Steps) * 1e6
}

// InProcessCosts runs inprocess.py (rounds rounds, the best counts) with the probe's benchmark
// module from the repository.
func (e *Env) InProcessCosts(ctx context.Context, rounds int) (*InProcess, error) {
	out, err := e.pyOutput(ctx, e.Work, e.Script("inprocess.py"),
		"--probe-bench", filepath.Join(e.Repo, "probe", "python", "bench"), "--rounds", strconv.Itoa(rounds))
	if err != nil {
		return nil, err
	}
	var r InProcess
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		return nil, fmt.Errorf("inprocess.py printed %q: %w", lastLines(out, 3), err)
	}
	return &r, nil
}
