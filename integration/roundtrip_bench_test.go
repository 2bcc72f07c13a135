package integration

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/dap"
)

// BenchmarkDAPRoundTrip times one DAP request through debugpy's adapter to pydevd and back (ns/op),
// stock and with adi's TCP_NODELAY fix. docs/benchmarks.md quotes both.
func BenchmarkDAPRoundTrip(b *testing.B) {
	py := needPython(b)
	for _, mode := range []struct {
		name  string
		stock bool
	}{{"stock", true}, {"nodelay", false}} {
		b.Run(mode.name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			p, err := dap.StartPinger(ctx, py, mode.stock)
			require.NoError(b, err)
			defer p.Close()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				require.NoError(b, p.Ping(ctx))
			}
		})
	}
}
