package live

import (
	"strings"
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
func TestRunConsumePanicEndsTheRun(t *testing.T) {
	testHookEvent = func(m *dap.Message) {
		if m.Event == "output" {
			panic("boom")
		}
	}
	t.Cleanup(func() { testHookEvent = nil })
	a, c := daptest.NewAdapterClient(t)
	r := &run{c: c, finished: make(chan struct{}), exitCode: -1, waiters: map[string]chan struct{}{}, log: hclog.NewNullLogger()}
	r.pump = dap.NewPump(c, r.hooks(nil))
	r.ended = r.pump.Ended()
	t.Cleanup(r.pump.Close)
	a.Event("output", map[string]any{"category": "stdout", "output": "x"})
	select {
	case <-r.ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the run did not end after its event pump panicked")
	}
	err := r.failure()
	require.Error(t, err)
	assert.Equal(t, "adi: internal error while reading debugpy's events: boom; adi ended the program (please report this)", err.Error())
	assert.False(t, strings.Contains(err.Error(), "\n"), "one line")
}
