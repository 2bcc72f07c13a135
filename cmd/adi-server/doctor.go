package main

import (
	"context"
	"fmt"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// roundTripWarn is the round trip above which doctor warns: the NODELAY fix should keep it under a
// millisecond; tens of milliseconds mean Nagle's delay is back.
const roundTripWarn = 10 * time.Millisecond

func runDoctor(ctx context.Context, g *globals, args []string) error {
	fs := newFlags("doctor", "", g)
	if _, err := parse(fs, g, args); err != nil {
		return err
	}
	py, err := dap.FindPython(ctx, g.Python)
	if err != nil {
		return err
	}
	if err := py.Details(ctx); err != nil {
		return fmt.Errorf("adi: %s finds debugpy but cannot import it: %w", py.Path, err)
	}
	speed := "present"
	if !py.Speedups {
		speed = "missing (pydevd runs its pure-Python tracer: debugging is several times slower)"
	}
	fmt.Fprintf(g.Stdout, "python:    %s (%s, from %s)\n", py.Path, py.Version, py.Source)
	fmt.Fprintf(g.Stdout, "debugpy:   %s\n", py.Debugpy)
	fmt.Fprintf(g.Stdout, "pydevd:    %s, speedups %s\n", py.Pydevd, speed)
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	rt, err := dap.RoundTrip(ctx, py, false, 20)
	if err != nil {
		return fmt.Errorf("adi: DAP round trip failed: %w", err)
	}
	fmt.Fprintf(g.Stdout, "round trip: %.2f ms per DAP request (adapter ↔ debuggee, TCP_NODELAY forced)\n", float64(rt.Microseconds())/1000)
	if rt > roundTripWarn {
		fmt.Fprintf(g.Stdout, "warning: round trip above %v: Nagle's delay is probably back (the NODELAY sitecustomize did not load: check that PYTHONPATH is not overridden and that sitecustomize imports are enabled)\n", roundTripWarn)
	}
	return nil
}
