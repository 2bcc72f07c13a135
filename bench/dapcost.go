package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/adi-bridge/adi/dap"
)

// loopBodyLine is the line of loopSource inside the loop (`s += i`).
const loopBodyLine = 8

// StepCost launches the loop workload under debugpy, stops at the loop's body, and steps with
// DAP `next` steps times through adi's dap client, each time waiting for the stopped event. It
// returns the mean time of one step. stock leaves out adi's TCP_NODELAY fix.
func (e *Env) StepCost(ctx context.Context, stock bool, steps int) (time.Duration, error) {
	w, err := e.Loop(50000)
	if err != nil {
		return 0, err
	}
	l, err := e.launch(ctx, w, stock, func(ctx context.Context, c *dap.Client) error {
		_, err := c.SetBreakpoints(ctx, w.File, []godap.SourceBreakpoint{{Line: loopBodyLine}})
		return err
	})
	if err != nil {
		return 0, err
	}
	defer l.close()
	thread, err := l.waitStopped(ctx)
	if err != nil {
		return 0, err
	}
	// The breakpoint would stop every iteration: clear it, so that each `next` is one step.
	if _, err := l.r.Client.SetBreakpoints(ctx, w.File, []godap.SourceBreakpoint{}); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 0; i < steps; i++ {
		if err := l.r.Client.Next(ctx, thread); err != nil {
			return 0, err
		}
		if thread, err = l.waitStopped(ctx); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(steps), nil
}

// LogpointCost runs the loop workload (iterations times round the loop, then a pause) under
// debugpy twice: with a logpoint on the loop's body, until its messages have reached adi's dap
// client, and without, until the line the program prints after the loop has. It returns the
// difference per message that arrived, and how many did: pydevd sends them from a queue, and
// may lose some.
func (e *Env) LogpointCost(ctx context.Context, iterations int) (time.Duration, int, error) {
	w, err := e.Loop(iterations)
	if err != nil {
		return 0, 0, err
	}
	w.Argv = append(w.Argv, "30")
	run := func(logpoint bool) (time.Duration, int, error) {
		l, err := e.launch(ctx, w, false, func(ctx context.Context, c *dap.Client) error {
			if !logpoint {
				return nil
			}
			_, err := c.SetBreakpoints(ctx, w.File, []godap.SourceBreakpoint{{Line: loopBodyLine, LogMessage: "lp {i}"}})
			return err
		})
		if err != nil {
			return 0, 0, err
		}
		defer l.close()
		if logpoint {
			return l.waitLines(ctx, "lp ", iterations)
		}
		return l.waitLines(ctx, "loop-done", 1)
	}
	base, _, err := run(false)
	if err != nil {
		return 0, 0, err
	}
	with, got, err := run(true)
	if err != nil {
		return 0, 0, err
	}
	return (with - base) / time.Duration(got), got, nil
}

// fibTimeSource times fib(25) inside the program, so that a debugger's start is not counted.
const fibTimeSource = `import time


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


t0 = time.perf_counter()
fib(25)
print("adi-bench-seconds", time.perf_counter() - t0)
`

// DebugpyInProcess runs fib(25) under debugpy with no breakpoints and returns the time the
// program itself measured (best of Env.Reps).
func (e *Env) DebugpyInProcess(ctx context.Context) (time.Duration, error) {
	dir := filepath.Join(e.Work, "fibtime")
	if err := writeFile(dir, "fibtime.py", fibTimeSource); err != nil {
		return 0, err
	}
	w := &Workload{Name: "fib(25) timed inside", Dir: dir, Argv: []string{"fibtime.py"}}
	best := time.Duration(0)
	for i := 0; i < e.Reps; i++ {
		l, err := e.launch(ctx, w, false, nil)
		if err != nil {
			return 0, err
		}
		_, _, out, err := l.waitEnd(ctx)
		l.close()
		if err != nil {
			return 0, err
		}
		var got time.Duration
		for _, line := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(line), "adi-bench-seconds "); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					got = time.Duration(f * float64(time.Second))
				}
			}
		}
		if got == 0 {
			return 0, fmt.Errorf("fibtime.py printed no time under debugpy: %q", lastLines(out, 3))
		}
		if best == 0 || got < best {
			best = got
		}
	}
	return best, nil
}
