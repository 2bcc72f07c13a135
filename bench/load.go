package bench

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Load is integration's BenchmarkLoad50Sessions as `go test -bench` printed it: its metrics by
// unit ("nav-p95-ms", "errors", ...).
type Load map[string]float64

// ParseLoad reads `go test -bench Load50Sessions` output and returns the benchmark's metrics.
func ParseLoad(r io.Reader) (Load, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "BenchmarkLoad50Sessions") {
			continue
		}
		m := Load{}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("load benchmark line %q: %w", sc.Text(), err)
			}
			m[f[i+1]] = v
		}
		return m, nil
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no BenchmarkLoad50Sessions result in the output")
}
