package dap_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/daptest"
)

// Twenty stops in a row, with nobody receiving them while they come, all arrive in order: the
// pump neither drops them nor waits for a reader (the exited event after them is still read).
func TestPumpKeepsEveryStop(t *testing.T) {
	a, c := daptest.NewAdapterClient(t)
	var outputs []string
	p := dap.NewPump(c, dap.PumpHooks{Output: func(category, text string) { outputs = append(outputs, category+":"+text) }})
	t.Cleanup(p.Close)
	for i := 1; i <= 20; i++ {
		a.Event("stopped", map[string]any{"reason": "breakpoint", "threadId": i})
	}
	a.Event("process", map[string]any{"name": "t", "systemProcessId": 4242})
	a.Event("output", map[string]any{"category": "stdout", "output": "done\n"})
	a.Event("exited", map[string]any{"exitCode": 3})
	select {
	case <-p.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("the pump did not reach the exited event behind 20 unread stops")
	}
	for i := 1; i <= 20; i++ {
		select {
		case s := <-p.Stops():
			require.Equal(t, i, s.ThreadId, "stop %d", i)
		case <-time.After(5 * time.Second):
			t.Fatalf("stop %d of 20 did not arrive", i)
		}
	}
	code, ok := p.Exit()
	assert.True(t, ok)
	assert.Equal(t, 3, code)
	assert.Equal(t, 4242, p.Pid())
	assert.Equal(t, []string{"stdout:done\n"}, outputs)
}
