package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// TestTruthExecNestedScopes runs statements with a comprehension, a generator expression and a
// lambda in a frame: they see the frame's locals, with and without debugpy.
func TestTruthExecNestedScopes(t *testing.T) {
	s := newSession(t, workdir(t), "python orders.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: [qty * i for i in range(3)], sum(rate for _ in 'ab'), (lambda: qty)()\n"+
		"Output: (none)\nValue: ([0, 10, 20], 0.3, 10)\n",
		do(t, s, "exec bulk_rate#3 -l 16 [qty * i for i in range(3)], sum(rate for _ in 'ab'), (lambda: qty)()").Text)
	ans := do(t, s, "exec bulk_rate#3 -l 16 --then-continue qty = max([qty + i for i in range(2)])")
	require.Contains(t, ans.Text, "Then continued: the frame returned 0.15;")
}
