package integration

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// TestFailedRunFinishes checks that a run that fails (a breakpoint condition that does not
// parse) still sends its run_finished, with the error, so that a client's progress ends.
func TestFailedRunFinishes(t *testing.T) {
	ts := startServer(t)
	c := ts.dial(t)
	var sub map[string]string
	require.NoError(t, c.Call(context.Background(), "session.subscribe", map[string]any{}, &sub))
	createDemo(t, c, "demo", demoDir(t))
	waitEvent(t, c, func(ev bridge.Event) bool { return ev.Kind == "run_finished" && ev.Purpose == "record T" })

	e := callErr(t, c, "adi.break", map[string]any{"session": "demo", "func": "bulk_rate", "cond": "rate >"})
	assert.Contains(t, e.Message, "rate >")
	waitEvent(t, c, func(ev bridge.Event) bool { return ev.Kind == "run_started" && ev.Purpose == "evaluate conditions" })
	ev := waitEvent(t, c, func(ev bridge.Event) bool { return ev.Kind == "run_finished" })
	assert.Equal(t, "evaluate conditions", ev.Purpose)
	assert.Equal(t, e.Message, ev.Error)
}
