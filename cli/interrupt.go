package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// SignalDelay is how long a command of the thin adi runs before Ctrl-C (SIGINT) and SIGTERM
// cancel it (the daemon's call is cancelled and the command says so in one line) instead of
// ending the process, as they do any program's. Catching a signal costs a Go program a thread
// of its own, blocked for the signals, started at once, and the scheduling around it: a
// noticeable share of a navigation command, which answers from the recording in a few
// milliseconds in all. A command answered sooner never pays it; one interrupted within it ends at
// once, and what its call started in the daemon runs to its end or its limit there, as after a
// killed command.
const SignalDelay = 50 * time.Millisecond

// InterruptContext returns a context that SIGINT and SIGTERM cancel once SignalDelay has passed,
// and a function that cancels it, to be called when the command ends, right before the process
// exits (the signals caught by then stay caught).
func InterruptContext(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	arm := time.AfterFunc(SignalDelay, func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			select {
			case <-ch:
				cancel()
			case <-ctx.Done():
			}
		}()
	})
	return ctx, func() {
		arm.Stop()
		cancel()
	}
}
