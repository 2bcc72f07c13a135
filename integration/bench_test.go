package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bench"
)

// benchEnv prepares the benchmark package's environment (the repository is the parent
// directory of this package's).
func benchEnv(b *testing.B) *bench.Env {
	b.Helper()
	needPython(b)
	env, err := bench.NewEnv(context.Background(), "..", 1, testLogger(b))
	require.NoError(b, err)
	b.Cleanup(env.Close)
	return env
}

// BenchmarkDAPStep single-steps the 100k-statement loop under debugpy with DAP `next` through
// adi's dap client, with the TCP_NODELAY fix and stock; it reports the mean time of one step
// (ns/op, one op a step). make bench prints the same measurement (package bench, StepCost).
func BenchmarkDAPStep(b *testing.B) {
	env := benchEnv(b)
	for _, mode := range []struct {
		name  string
		stock bool
	}{{"nodelay", false}, {"stock", true}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
			defer cancel()
			d, err := env.StepCost(ctx, mode.stock, b.N)
			require.NoError(b, err)
			b.ReportMetric(float64(d.Nanoseconds()), "ns/step")
		})
	}
}

// BenchmarkDAPLogpoint runs the 100k-statement loop under debugpy with a logpoint on the loop's
// body, until its 50,000 messages have reached adi's dap client, and without; it reports the
// cost of one message (the difference per message that arrived) and how many arrived.
func BenchmarkDAPLogpoint(b *testing.B) {
	env := benchEnv(b)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	for i := 0; i < b.N; i++ {
		d, got, err := env.LogpointCost(ctx, 50000)
		require.NoError(b, err)
		b.ReportMetric(float64(d.Nanoseconds()), "ns/message")
		b.ReportMetric(float64(got), "messages")
	}
}
