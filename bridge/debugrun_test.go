package bridge

import (
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/daptest"
)

// A panic while the event pump reads the debuggee's output ends that run with a one-line error;
// the process goes on. The panic is injected through testHookEvent; the events come from a fake
// adapter.
func TestDebugRunConsumePanicEndsTheRun(t *testing.T) {
	testHookEvent = func(m *dap.Message) {
		if m.Event == "output" {
			panic("boom")
		}
	}
	t.Cleanup(func() { testHookEvent = nil })
	a, c := daptest.NewAdapterClient(t)
	d := &debugRun{run: &Run{}, stdout: &capture{category: "stdout"}, stderr: &capture{category: "stderr"},
		target: newTargetWatch(), log: hclog.NewNullLogger()}
	p := dap.NewPump(c, d.hooks())
	t.Cleanup(p.Close)
	a.Event("output", map[string]any{"category": "stdout", "output": "x"})
	select {
	case <-p.Ended():
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not end after its event pump panicked")
	}
	d.mu.Lock()
	failed := d.failed
	d.mu.Unlock()
	require.Error(t, failed)
	assert.Equal(t, "internal error while reading debugpy's events: boom (please report this)", failed.Error())
}
