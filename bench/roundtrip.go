package bench

import (
	"context"
	"time"

	"github.com/adi-bridge/adi/dap"
)

// RoundTrip is the mean time of one DAP request through debugpy's adapter to pydevd in the
// debuggee and back (integration's BenchmarkDAPRoundTrip measures the same with dap.Pinger),
// stock and with adi's TCP_NODELAY fix.
type RoundTrip struct {
	Stock, NoDelay time.Duration
}

// RoundTrips measures both; the stock one, at about 44 ms a request, with fewer requests.
func (e *Env) RoundTrips(ctx context.Context, stockN, nodelayN int) (*RoundTrip, error) {
	stock, err := dap.RoundTrip(ctx, e.Python, true, stockN)
	if err != nil {
		return nil, err
	}
	fixed, err := dap.RoundTrip(ctx, e.Python, false, nodelayN)
	if err != nil {
		return nil, err
	}
	return &RoundTrip{Stock: stock, NoDelay: fixed}, nil
}
