package dap

import (
	"context"
	"fmt"
	"time"
)

// Pinger is a debugpy session on a program that sleeps, for timing requests. Each Ping is a
// `threads` request, which debugpy's adapter forwards to pydevd in the debuggee and back: the path
// every DAP request of a debug session takes.
type Pinger struct {
	r *Run
}

// StartPinger launches the sleeping program. stock leaves out the TCP_NODELAY fix, to show what
// the fix saves.
func StartPinger(ctx context.Context, py *Python, stock bool) (*Pinger, error) {
	args := map[string]any{
		"name": "adi-ping", "type": "python", "request": "launch",
		"code": "import time; time.sleep(600)", "console": "internalConsole",
		"justMyCode": true, "subProcess": false,
	}
	r, err := StartRun(ctx, ctx, RunOptions{Adapter: AdapterOptions{Python: py, Stock: stock}, Launch: args})
	if err != nil {
		return nil, fmt.Errorf("start pinger: %w", err)
	}
	p := &Pinger{r: r}
	if err := r.ConfigurationDone(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("start pinger: %w", err)
	}
	for i := 0; i < 3; i++ { // warm both processes up
		if err := p.Ping(ctx); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// Ping makes one round trip to the debuggee.
func (p *Pinger) Ping(ctx context.Context) error {
	if _, err := p.r.Client.Threads(ctx); err != nil {
		return fmt.Errorf("ping debugpy: %w", err)
	}
	return nil
}

// Close ends the session and its processes.
func (p *Pinger) Close() { p.r.Close() }

// RoundTrip returns the mean time of n round trips (see Pinger).
func RoundTrip(ctx context.Context, py *Python, stock bool, n int) (time.Duration, error) {
	p, err := StartPinger(ctx, py, stock)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	start := time.Now()
	for i := 0; i < n; i++ {
		if err := p.Ping(ctx); err != nil {
			return 0, err
		}
	}
	return time.Since(start) / time.Duration(n), nil
}
