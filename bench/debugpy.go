package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/adi-bridge/adi/dap"
)

// debugLaunch is one launch of a workload under debugpy through adi's dap client.
type debugLaunch struct {
	ad     *dap.Adapter
	events *dap.Subscription
	start  time.Time
}

// launch starts the adapter (stock leaves out adi's TCP_NODELAY fix) and launches w; configure
// runs before configurationDone (set breakpoints there; may be nil). The time counts from
// before the adapter starts. The caller must close it.
func (e *Env) launch(ctx context.Context, w *Workload, stock bool, configure func(context.Context, *dap.Client) error) (*debugLaunch, error) {
	start := time.Now()
	ad, err := dap.StartAdapter(ctx, dap.AdapterOptions{Python: e.Python, Stock: stock, Env: workloadEnv(w.Env), Dir: w.Dir, Log: e.Log})
	if err != nil {
		return nil, err
	}
	l := &debugLaunch{ad: ad, events: ad.Client.Subscribe("stopped", "exited", "terminated", "output"), start: start}
	c := ad.Client
	if _, err := c.Initialize(ctx); err != nil {
		l.close()
		return nil, fmt.Errorf("initialize debugpy: %w", err)
	}
	var cfg func(context.Context) error
	if configure != nil {
		cfg = func(ctx context.Context) error { return configure(ctx, c) }
	}
	if err := c.Launch(ctx, launchArgs(w), cfg); err != nil {
		l.close()
		return nil, fmt.Errorf("launch %s under debugpy: %w", w.Command(), err)
	}
	return l, nil
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
	for {
		m, err := l.events.Next(ctx)
		if err != nil {
			return 0, err
		}
		switch m.Event {
		case "stopped":
			var b godap.StoppedEventBody
			if err := m.Body(&b); err != nil {
				return 0, err
			}
			return b.ThreadId, nil
		case "exited":
			return 0, fmt.Errorf("the program exited before it stopped")
		}
	}
}

// waitEnd reads the launch's events until debugpy's terminated event (about 0.85 s after the
// program ends; output can still arrive after exited). It returns the time from the launch to
// the exited event and to the terminated event, the exit code, and the program's output as one
// text (debugpy splits a line written in pieces into several output events).
func (l *debugLaunch) waitEnd(ctx context.Context) (exited, terminated time.Duration, code int, output string, err error) {
	var out strings.Builder
	for {
		m, err := l.events.Next(ctx)
		if err != nil {
			return 0, 0, 0, out.String(), err
		}
		switch m.Event {
		case "output":
			var b godap.OutputEventBody
			if m.Body(&b) == nil && b.Category != "telemetry" {
				out.WriteString(b.Output)
			}
		case "exited":
			exited = time.Since(l.start)
			var b godap.ExitedEventBody
			_ = m.Body(&b)
			code = b.ExitCode
		case "terminated":
			if exited == 0 {
				return 0, 0, code, out.String(), fmt.Errorf("debugpy ended the session without an exited event")
			}
			return exited, time.Since(l.start), code, out.String(), nil
		}
	}
}

// quietGap is how long waitLines waits for more output once some has come.
const quietGap = 3 * time.Second

// waitLines reads output until n lines starting with prefix have come, or until none has come
// for quietGap after the first; it returns the time from the launch to the last such line and
// how many came. The program ending first is an error.
func (l *debugLaunch) waitLines(ctx context.Context, prefix string, n int) (time.Duration, int, error) {
	var partial string
	var last time.Duration
	seen := 0
	for {
		wait := ctx
		var cancel context.CancelFunc = func() {}
		if seen > 0 {
			wait, cancel = context.WithTimeout(ctx, quietGap)
		}
		m, err := l.events.Next(wait)
		cancel()
		if err != nil {
			if seen > 0 && ctx.Err() == nil {
				return last, seen, nil
			}
			return 0, seen, err
		}
		switch m.Event {
		case "output":
			var b godap.OutputEventBody
			if m.Body(&b) != nil || b.Category == "telemetry" {
				continue
			}
			lines := strings.Split(partial+b.Output, "\n")
			partial = lines[len(lines)-1]
			for _, line := range lines[:len(lines)-1] {
				if strings.HasPrefix(line, prefix) {
					seen++
					last = time.Since(l.start)
				}
			}
			if seen >= n {
				return last, seen, nil
			}
		case "exited", "terminated":
			return 0, seen, fmt.Errorf("the program ended after %d of %d lines starting %q", seen, n, prefix)
		}
	}
}

// close ends the adapter and every process of the launch.
func (l *debugLaunch) close() {
	l.events.Close()
	l.ad.Close()
}

// DebugpyRun times one whole run of w under debugpy with no breakpoints: from starting the
// adapter to debugpy's exited event (its terminated event, about 0.85 s later, is not counted).
func (e *Env) DebugpyRun(ctx context.Context, w *Workload) (time.Duration, error) {
	l, err := e.launch(ctx, w, false, nil)
	if err != nil {
		return 0, err
	}
	defer l.close()
	d, _, code, _, err := l.waitEnd(ctx)
	if err != nil {
		return 0, err
	}
	if code != 0 {
		return 0, fmt.Errorf("%s exited with %d under debugpy", w.Command(), code)
	}
	return d, nil
}
