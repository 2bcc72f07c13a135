package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// debugLaunch is one launch of a workload under debugpy through adi's dap.Run; the pump's
// output hook collects the program's output with the time each piece came.
type debugLaunch struct {
	r     *dap.Run
	start time.Time

	mu     sync.Mutex
	out    []timedOutput
	signal chan struct{} // signalled when output came
}

// timedOutput is one output event and when it came, from the launch's start.
type timedOutput struct {
	text string
	at   time.Duration
}

// launch starts the adapter (stock leaves out adi's TCP_NODELAY fix) and launches w; configure
// runs before configurationDone (set breakpoints there; may be nil). The time counts from
// before the adapter starts. The caller must close it.
func (e *Env) launch(ctx context.Context, w *Workload, stock bool, configure func(context.Context, *dap.Client) error) (*debugLaunch, error) {
	return e.launchWith(ctx, w, stock, nil, configure)
}

// launchWith is launch with exception breakpoints on the filters in exceptions (none when empty).
func (e *Env) launchWith(ctx context.Context, w *Workload, stock bool, exceptions []string, configure func(context.Context, *dap.Client) error) (*debugLaunch, error) {
	l := &debugLaunch{start: time.Now(), signal: make(chan struct{}, 1)}
	r, err := dap.StartRun(ctx, ctx, dap.RunOptions{
		Adapter:    dap.AdapterOptions{Python: e.Python, Stock: stock, Env: workloadEnv(w.Env), Dir: w.Dir, Log: e.Log},
		Launch:     launchArgs(w),
		Exceptions: exceptions,
		Configure:  configure,
		Hooks:      dap.PumpHooks{Output: l.output, Log: e.Log},
	})
	if err != nil {
		return nil, fmt.Errorf("launch %s under debugpy: %w", w.Command(), err)
	}
	l.r = r
	if err := r.ConfigurationDone(ctx); err != nil {
		l.close()
		return nil, fmt.Errorf("launch %s under debugpy: %w", w.Command(), err)
	}
	return l, nil
}

// output files one output event of the program (debugpy's telemetry left out).
func (l *debugLaunch) output(category, text string) {
	if category == "telemetry" {
		return
	}
	at := time.Since(l.start)
	l.mu.Lock()
	l.out = append(l.out, timedOutput{text, at})
	l.mu.Unlock()
	select {
	case l.signal <- struct{}{}:
	default:
	}
}

// outputFrom returns the output events from the i-th on.
func (l *debugLaunch) outputFrom(i int) []timedOutput {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]timedOutput(nil), l.out[min(i, len(l.out)):]...)
}

func launchArgs(w *Workload) map[string]any {
	args := map[string]any{
		"name": "adi-bench", "type": "python", "request": "launch", "cwd": w.Dir,
		"console": "internalConsole", "redirectOutput": true, "justMyCode": true, "subProcess": false,
	}
	if w.Argv[0] == "-m" {
		args["module"], args["args"] = w.Argv[1], w.Argv[2:]
	} else {
		args["program"], args["args"] = filepath.Join(w.Dir, w.Argv[0]), w.Argv[1:]
	}
	return args
}

// waitStopped waits for the next stopped event and returns its thread.
func (l *debugLaunch) waitStopped(ctx context.Context) (int, error) {
	select {
	case b := <-l.r.Stops():
		return b.ThreadId, nil
	case <-l.r.Ended():
		return 0, fmt.Errorf("the program exited before it stopped")
	case <-ctx.Done():
		return 0, fmt.Errorf("waiting for a debugpy event: %w", ctx.Err())
	}
}

// waitEnd waits for debugpy's exited event (its terminated event comes about 0.85 s after the
// program ends). It returns the time from the launch to the exited event, the exit code, and the
// program's output as one text (debugpy splits a line written in pieces into several output
// events).
func (l *debugLaunch) waitEnd(ctx context.Context) (exited time.Duration, code int, output string, err error) {
	text := func() string {
		var out strings.Builder
		for _, o := range l.outputFrom(0) {
			out.WriteString(o.text)
		}
		return out.String()
	}
	select {
	case <-l.r.Ended():
	case <-ctx.Done():
		return 0, 0, text(), fmt.Errorf("waiting for a debugpy event: %w", ctx.Err())
	}
	exited = time.Since(l.start)
	code, ok := l.r.Exit()
	if !ok {
		return 0, code, text(), fmt.Errorf("debugpy ended the session without an exited event")
	}
	return exited, code, text(), nil
}

// quietGap is how long waitLines waits for more output once some has come.
const quietGap = 3 * time.Second

// waitLines reads output until n lines starting with prefix have come, or until none has come
// for quietGap after the first; it returns the time from the launch to the last such line and
// how many came. The program ending first is an error.
func (l *debugLaunch) waitLines(ctx context.Context, prefix string, n int) (time.Duration, int, error) {
	var partial string
	var last time.Duration
	seen, read := 0, 0
	for {
		for _, o := range l.outputFrom(read) {
			read++
			lines := strings.Split(partial+o.text, "\n")
			partial = lines[len(lines)-1]
			for _, line := range lines[:len(lines)-1] {
				if strings.HasPrefix(line, prefix) {
					seen++
					last = o.at
				}
			}
			if seen >= n {
				return last, seen, nil
			}
		}
		quiet := time.NewTimer(quietGap)
		if seen == 0 {
			quiet.Stop()
		}
		select {
		case <-l.signal:
			quiet.Stop()
		case <-quiet.C:
			return last, seen, nil
		case <-l.r.Ended():
			quiet.Stop()
			if len(l.outputFrom(read)) > 0 {
				continue
			}
			return 0, seen, fmt.Errorf("the program ended after %d of %d lines starting %q", seen, n, prefix)
		case <-ctx.Done():
			quiet.Stop()
			return 0, seen, fmt.Errorf("waiting for a debugpy event: %w", ctx.Err())
		}
	}
}

// close ends the adapter and every process of the launch.
func (l *debugLaunch) close() { l.r.Close() }

// DebugpyRun times one whole run of w under debugpy with no breakpoints: from starting the
// adapter to debugpy's exited event (its terminated event, about 0.85 s later, is not counted).
func (e *Env) DebugpyRun(ctx context.Context, w *Workload) (time.Duration, error) {
	l, err := e.launch(ctx, w, false, nil)
	if err != nil {
		return 0, err
	}
	defer l.close()
	d, code, _, err := l.waitEnd(ctx)
	if err != nil {
		return 0, err
	}
	if code != 0 {
		return 0, fmt.Errorf("%s exited with %d under debugpy", w.Command(), code)
	}
	return d, nil
}
