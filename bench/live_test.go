package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestPercentile checks nearest-rank percentiles and the median of floats.
func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range xs {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	in := ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5)
	assert.Equal(t, 5*time.Millisecond, Percentile(in, 50))
	assert.Equal(t, 9*time.Millisecond, Percentile(in, 90))
	assert.Equal(t, 10*time.Millisecond, Percentile(in, 100))
	assert.Equal(t, 1*time.Millisecond, Percentile(in, 0))
	assert.Equal(t, time.Duration(0), Percentile(nil, 50))
	assert.Equal(t, ms(10, 1, 9, 2, 8, 3, 7, 4, 6, 5), in, "the input is left as it was")
	assert.Equal(t, 2.0, medianF([]float64{3, 1, 2}))
	assert.Equal(t, 2.5, medianF([]float64{4, 1, 2, 3}))
	assert.Equal(t, 0.0, medianF(nil))
}

// liveRun is n requests of d each.
func liveRun(n int, d time.Duration, caught int) LiveRun {
	r := LiveRun{Elapsed: time.Duration(n) * d, Caught: caught}
	for i := 0; i < n; i++ {
		r.Latencies = append(r.Latencies, d)
	}
	return r
}

// TestLiveMarkdown checks the live-mode tables: ratios to live mode's speed, medians over the
// rounds, caught only for watches, and the bar for a watch off the request path.
func TestLiveMarkdown(t *testing.T) {
	lc := &LiveCost{Requests: 300, Warmup: 30, Rounds: 3, Path: "/p",
		Rows: []*LiveRow{
			{Config: LiveConfig{Name: "plain"}, Runs: []LiveRun{liveRun(300, 100*time.Microsecond, 0), liveRun(300, 200*time.Microsecond, 0), liveRun(300, 50*time.Microsecond, 0)}},
			{Config: LiveConfig{Name: "live", Live: true, Base: true}, Runs: []LiveRun{liveRun(300, 400*time.Microsecond, 0)}},
			{Config: LiveConfig{Name: "elsewhere", Live: true, Watch: "audit"}, Runs: []LiveRun{liveRun(300, 500*time.Microsecond, 0)}},
			{Config: LiveConfig{Name: "handler", Live: true, Watch: "handle"}, Runs: []LiveRun{liveRun(300, 2*time.Millisecond, 300)}},
		},
		Fib: []*FibRow{{Name: "plain", Seconds: []float64{0.002, 0.003, 0.001}}, {Name: "live", Base: true, Seconds: []float64{0.1}}},
	}
	var b strings.Builder
	var bars []bar
	lc.markdown(&b, &bars)
	out := b.String()
	assert.Contains(t, out, "`GET /p`; 300 sequential requests over one keep-alive connection after 30 to warm up, in a fresh process; medians of 3 rounds)")
	assert.Contains(t, out, "| plain | 10,000 | 4.0x | 100 µs | 100 µs | 0.25x | — |\n")
	assert.Contains(t, out, "| live | 2,500 | 1.0x | 400 µs | 400 µs | 1.0x | — |\n")
	assert.Contains(t, out, "| elsewhere | 2,000 | 0.80x | 500 µs | 500 µs | 1.2x | 0 |\n")
	assert.Contains(t, out, "| handler | 500 | 0.20x | 2 ms | 2 ms | 5.0x | 300 |\n")
	assert.Contains(t, out, "| plain | 2 ms | 0.020x |\n| live | 100 ms | 1.0x |\n")
	assert.Contains(t, out, "median of 3 processes")
	assert.Equal(t, []bar{{"unwatched code while a watch is on (the shop, `watch audit`)", "≈ live mode's speed (≥ 0.9x its requests/s)", "0.80x", "not met"}}, bars)
}
