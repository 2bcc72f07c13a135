package bench

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestRatio checks that ratios keep two significant digits, and whole numbers from 10 up.
func TestRatio(t *testing.T) {
	for x, want := range map[float64]string{
		208.4: "208x", 12: "12x", 9.87: "9.9x", 1: "1.0x", 0.64: "0.64x", 0.036: "0.036x", 0.00006: "0.000060x", 0.0012: "0.0012x",
	} {
		assert.Equal(t, want, ratio(x), "%v", x)
	}
}

// TestDur checks that durations print with three significant digits in a fitting unit.
func TestDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "—", 280 * time.Microsecond: "280 µs", 7300 * time.Microsecond: "7.3 ms", 4150 * time.Millisecond: "4.15 s",
		90 * time.Second: "1.5 min", 3 * time.Hour: "3.0 h",
	} {
		assert.Equal(t, want, dur(d))
	}
}
