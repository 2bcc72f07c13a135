package bridge

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	godap "github.com/google/go-dap"
	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/probe"
)

// debugRun is a probe run under debugpy: the adapter, the launch, and a goroutine that consumes
// the session's events (output into captures, stops into a channel, exit into the run).
type debugRun struct {
	run   *Run
	limit time.Duration // the Program's Timeout: what a timed-out run was stopped at
	ad    *dap.Adapter
	// cancelAd ends the context the adapter was started with (close calls it).
	cancelAd context.CancelFunc
	stdout   *capture
	stderr   *capture
	start    time.Time

	stops  chan godap.StoppedEventBody
	ended  chan struct{} // closed when the debuggee has exited or the session ended
	target targetWatch   // sees the debuggee's process end before debugpy says so
	log    hclog.Logger
	mu     sync.Mutex
	failed error // why consume gave up (a panic): the run ends with this error
	exit   int
	exited bool
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
	if prog.Debugpy == nil {
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
	ad, err := dap.StartAdapter(adCtx, dap.AdapterOptions{Python: p.Debugpy, Env: p.Env, Dir: p.Dir, Log: rn.log})
	if err != nil {
		cancelAd()
		return nil, err
	}
	d := &debugRun{
		run: &Run{Debug: true}, limit: p.Timeout, ad: ad, cancelAd: cancelAd, start: time.Now(),
		stdout: &capture{category: "stdout", sink: output},
		stderr: &capture{category: "stderr", sink: output},
		stops:  make(chan godap.StoppedEventBody, 16),
		ended:  make(chan struct{}),
		target: newTargetWatch(),
		exit:   -1,
		log:    rn.log,
	}
	events := ad.Client.Subscribe()
	go d.consume(events)
	c := ad.Client
	if _, err := c.Initialize(ctx); err != nil {
		d.close()
		return nil, fmt.Errorf("start debugpy: %w", err)
	}
	launch := p.LaunchArgs("adi", probe.Script(probeDir), args, probeDir)
	err = c.Launch(ctx, launch, func(ctx context.Context) error {
		if err := c.SetExceptionBreakpoints(ctx, nil); err != nil {
			return err
		}
		if configure != nil {
			return configure(ctx, c)
		}
		return nil
	})
	if err != nil {
		d.close()
		return nil, fmt.Errorf("launch under debugpy: %w", err)
	}
	return d, nil
}

// consume files the session's events. A panic here (a bug in reading the debuggee's output) ends
// this run with an error, not the process: it is logged with its stack, and collect returns it.
func (d *debugRun) consume(events *dap.Subscription) {
	defer close(d.ended)
	defer events.Close()
	defer func() {
		if v := recover(); v != nil {
			d.log.Error("reading debugpy's events panicked; ending the run", "panic", v, "stack", string(debug.Stack()))
			d.mu.Lock()
			d.failed = fmt.Errorf("internal error while reading debugpy's events: %v (please report this)", v)
			d.mu.Unlock()
		}
	}()
	for {
		m, err := events.Next(context.Background())
		if err != nil {
			return
		}
		if testHookEvent != nil {
			testHookEvent(m)
		}
		switch m.Event {
		case "process":
			var b godap.ProcessEventBody
			if m.Body(&b) == nil && b.SystemProcessId > 0 {
				d.target.watch(b.SystemProcessId)
			}
		case "output":
			var b godap.OutputEventBody
			if m.Body(&b) == nil {
				switch b.Category {
				case "stdout":
					_, _ = d.stdout.Write([]byte(b.Output))
				case "stderr":
					_, _ = d.stderr.Write([]byte(b.Output))
				}
			}
		case "stopped":
			var b godap.StoppedEventBody
			if m.Body(&b) == nil {
				select {
				case d.stops <- b:
				default:
				}
			}
		case "exited":
			var b godap.ExitedEventBody
			if m.Body(&b) == nil {
				d.mu.Lock()
				d.exit, d.exited = b.ExitCode, true
				d.mu.Unlock()
			}
			return
		case "terminated":
			return
		}
	}
}

// testHookEvent, when set (by tests), sees every event consume reads, before it is handled.
var testHookEvent func(m *dap.Message)

// waitStop waits for the next stop. It returns ok=false when the debuggee ended first.
func (d *debugRun) waitStop(ctx context.Context) (godap.StoppedEventBody, bool, error) {
	select {
	case s := <-d.stops:
		return s, true, nil
	case <-d.ended:
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
	case <-d.ended:
		return false
	case <-d.target.gone:
		return false
	case <-d.ad.Client.Done():
		return false
	default:
		return true
	}
}

// lostAdapter reports whether the DAP connection ended before debugpy said the debuggee exited:
// then the adapter died (or was killed), not the program.
func (d *debugRun) lostAdapter() bool {
	d.mu.Lock()
	exited := d.exited
	d.mu.Unlock()
	if exited {
		return false
	}
	select {
	case <-d.ad.Client.Done():
		return true
	default:
		return false
	}
}

// finish waits for the debuggee to end (or ctx) and reads what the probe wrote. When ctx ends
// first (the run's time is up), the debuggee is asked to stop before it is killed.
func (d *debugRun) finish(ctx context.Context) (*Run, error) {
	select {
	case <-d.ended:
	case <-d.target.gone:
		d.target.grace(d.ended)
	case <-ctx.Done():
		d.run.TimedOut, d.run.TimeLimit = true, d.limit
		d.target.askStop(d.ended)
	}
	return d.collect()
}

// collect ends every process of the run and reads its output.
func (d *debugRun) collect() (*Run, error) {
	d.close()
	r := d.run
	r.Elapsed = time.Since(d.start)
	d.mu.Lock()
	r.ExitCode = d.exit
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
	d.ad.Close()
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
