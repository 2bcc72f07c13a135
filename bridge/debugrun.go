package bridge

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/probe"
)

// debugRun is a probe run under debugpy: a dap.Run (the adapter, the launch, the event pump
// that files output into captures), the probe's run directory, and a watch on the debuggee.
type debugRun struct {
	run   *Run
	limit time.Duration // the Program's Timeout: what a timed-out run was stopped at
	dr    *dap.Run
	// cancelAd ends the context the adapter was started with (close calls it).
	cancelAd context.CancelFunc
	stdout   *capture
	stderr   *capture
	start    time.Time

	target targetWatch // sees the debuggee's process end before debugpy says so
	log    hclog.Logger
	mu     sync.Mutex
	failed error // why the event pump gave up (a panic): the run ends with this error
}

// startDebug launches the program under debugpy. configure runs between launch and
// configurationDone, where breakpoints are set. The caller must call close.
func (rn *runner) startDebug(ctx context.Context, req RunRequest, configure func(context.Context, *dap.Client) error) (*debugRun, error) {
	if err := rn.needDebugpy(ctx); err != nil {
		return nil, err
	}
	probeDir, dir, cfgPath, err := rn.prepare(req)
	if err != nil {
		return nil, err
	}
	d, err := rn.launchDebug(ctx, probeDir, []string{cfgPath}, req.Output, configure)
	if err != nil {
		return nil, err
	}
	d.run.Dir = dir
	return d, nil
}

// needDebugpy says why a debug run (exec --then-continue) cannot start, if it cannot: no python
// has debugpy for the adapter, or the program's interpreter has none for the debuggee.
func (rn *runner) needDebugpy(ctx context.Context) error {
	return NeedDebugpy(ctx, rn.prog, "exec --then-continue")
}

// NeedDebugpy says why prog cannot run under debugpy for what ("live mode"), if it cannot: no
// python with debugpy was found for the adapter, or the program's interpreter (the debuggee)
// has no debugpy. The check is cached per interpreter.
func NeedDebugpy(ctx context.Context, prog *Program, what string) error {
	if err := dap.NeedDebugpy(ctx, prog.Python, what); err != nil {
		return err
	}
	if prog.DebugPython(ctx) == nil {
		return fmt.Errorf("%s needs debugpy and no python with it was found (tried --python, $ADI_PYTHON, python3 on PATH, /usr/bin/python3); "+
			"run `make deps` (Debian's python3-debugpy) or `PYTHON -m pip install debugpy`, or pass --python", what)
	}
	return nil
}

// launchDebug starts debugpy's adapter and launches the probe script with args under it;
// configure runs between launch and configurationDone. The run's directory is the caller's to set.
func (rn *runner) launchDebug(ctx context.Context, probeDir string, args []string, output func(string, []byte), configure func(context.Context, *dap.Client) error) (*debugRun, error) {
	p := rn.prog
	adCtx, cancelAd := adapterContext(ctx)
	d := &debugRun{
		run: &Run{Debug: true}, limit: p.Timeout, cancelAd: cancelAd, start: time.Now(),
		stdout: &capture{category: "stdout", sink: output},
		stderr: &capture{category: "stderr", sink: output},
		target: newTargetWatch(),
		log:    rn.log,
	}
	dr, err := dap.StartRun(ctx, adCtx, dap.RunOptions{
		Adapter:    dap.AdapterOptions{Python: p.DebugPython(ctx), Env: p.Env, Dir: p.Dir, Log: rn.log},
		Launch:     p.LaunchArgs("adi", probe.Script(probeDir), args, probeDir),
		Exceptions: []string{},
		Configure:  configure,
		Hooks:      d.hooks(),
	})
	if err != nil {
		d.target.stop()
		cancelAd()
		return nil, fmt.Errorf("launch under debugpy: %w", err)
	}
	d.dr = dr
	if err := dr.ConfigurationDone(ctx); err != nil {
		d.close()
		return nil, fmt.Errorf("launch under debugpy: %w", err)
	}
	return d, nil
}

// hooks are what the run's event pump calls: output into the captures, the debuggee's pid into
// the target watch. A panic there (a bug in reading the debuggee's output) ends this run with an
// error, not the process: collect returns it.
func (d *debugRun) hooks() dap.PumpHooks {
	return dap.PumpHooks{
		Event: func(m *dap.Message) {
			if testHookEvent != nil {
				testHookEvent(m)
			}
		},
		Output: func(category, text string) {
			switch category {
			case "stdout":
				_, _ = d.stdout.Write([]byte(text))
			case "stderr":
				_, _ = d.stderr.Write([]byte(text))
			}
		},
		Process: d.target.watch,
		Panicked: func(v any) {
			d.mu.Lock()
			d.failed = fmt.Errorf("internal error while reading debugpy's events: %v (please report this)", v)
			d.mu.Unlock()
		},
		Log: d.log,
	}
}

// testHookEvent, when set (by tests), sees every event the event pump reads, before it is handled.
var testHookEvent func(m *dap.Message)

// waitStop waits for the next stop. It returns ok=false when the debuggee ended first.
func (d *debugRun) waitStop(ctx context.Context) (godap.StoppedEventBody, bool, error) {
	select {
	case s := <-d.dr.Stops():
		return s, true, nil
	case <-d.dr.Ended():
		return godap.StoppedEventBody{}, false, nil
	case <-d.target.gone:
		return godap.StoppedEventBody{}, false, nil
	case <-ctx.Done():
		return godap.StoppedEventBody{}, false, ctx.Err()
	}
}

// alive reports whether the run's debuggee and debugpy's adapter are both still there.
func (d *debugRun) alive() bool {
	select {
	case <-d.dr.Ended():
		return false
	case <-d.target.gone:
		return false
	case <-d.dr.Client.Done():
		return false
	default:
		return true
	}
}

// lostAdapter reports whether the DAP connection ended before debugpy said the debuggee exited:
// then the adapter died (or was killed), not the program. The debuggee's end can be seen a
// moment before either (a killed adapter takes the program with it, and on a busy machine the
// connection's end is read later), so it waits up to lostAdapterWait for one of them.
func (d *debugRun) lostAdapter() bool {
	deadline := time.Now().Add(lostAdapterWait)
	for {
		if _, exited := d.dr.Exit(); exited {
			return false
		}
		select {
		case <-d.dr.Client.Done():
			_, exited := d.dr.Exit()
			return !exited
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// lostAdapterWait bounds how long lostAdapter waits for debugpy's word on a debuggee that ended.
const lostAdapterWait = time.Second

// finish waits for the debuggee to end (or ctx) and reads what the probe wrote. When ctx ends
// first (the run's time is up), the debuggee is asked to stop before it is killed.
func (d *debugRun) finish(ctx context.Context) (*Run, error) {
	select {
	case <-d.dr.Ended():
	case <-d.target.gone:
		d.target.grace(d.dr.Ended())
	case <-ctx.Done():
		d.run.TimedOut, d.run.TimeLimit = true, d.limit
		d.target.askStop(d.dr.Ended())
	}
	return d.collect()
}

// collect ends every process of the run and reads its output.
func (d *debugRun) collect() (*Run, error) {
	d.close()
	r := d.run
	r.Elapsed = time.Since(d.start)
	r.ExitCode, _ = d.dr.Exit()
	d.mu.Lock()
	failed := d.failed
	d.mu.Unlock()
	if failed != nil {
		return nil, failed
	}
	r.Stdout, r.Stderr = d.stdout.bytes(), d.stderr.bytes()
	if err := saveOutput(r); err != nil {
		return nil, err
	}
	rec, err := probe.Read(r.Dir)
	if err != nil {
		return nil, err
	}
	releaseSoon() // the garbage of decoding the recording
	if rec.Result != nil && r.ExitCode == -1 {
		r.ExitCode = rec.Result.Exit.Code
	}
	r.Rec = rec
	markTimedOut(r)
	return r, nil
}

// close ends the adapter and every process of the run.
func (d *debugRun) close() {
	d.target.stop()
	d.dr.Close()
	d.cancelAd()
}

// adapterContext returns the context to start a run's adapter with: it ends with ctx, except
// that when ctx's deadline passes (the run's time is up) it ends only stopGrace+exitGrace later
// (or when cancel is called), so that finish can ask the debuggee to stop before the adapter's
// end kills every process of the run.
func adapterContext(ctx context.Context) (context.Context, context.CancelFunc) {
	adCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	go func() {
		select {
		case <-ctx.Done():
		case <-adCtx.Done():
			return
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			grace := time.NewTimer(stopGrace + exitGrace)
			defer grace.Stop()
			select {
			case <-grace.C:
			case <-adCtx.Done():
			}
		}
		cancel()
	}()
	return adCtx, cancel
}
