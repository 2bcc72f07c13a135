package bench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseLoad reads the metrics of a go test -bench line, and refuses output without one.
func TestParseLoad(t *testing.T) {
	out := "goos: linux\nBenchmarkLoad50Sessions-2   \t       1\t52345678901 ns/op\t        12.50 cached-p50-ms\t  41.0 nav-p95-ms\t 0 errors\nPASS\n"
	l, err := ParseLoad(strings.NewReader(out))
	require.NoError(t, err)
	assert.Equal(t, Load{"ns/op": 52345678901, "cached-p50-ms": 12.5, "nav-p95-ms": 41, "errors": 0}, l)
	_, err = ParseLoad(strings.NewReader("FAIL\n"))
	assert.EqualError(t, err, "no BenchmarkLoad50Sessions result in the output")
}
