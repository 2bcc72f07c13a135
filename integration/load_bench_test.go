package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/adi-bridge/adi/server"
)

// loadProgram is the small program each session of the load benchmark records: one function
// called eight times from a loop.
const loadProgram = `def step(x):
    y = x * 2
    return y + 1


def run(n):
    out = []
    for i in range(n):
        out.append(step(i))
    return out


print(sum(run(8)))
`

// loadCommands are the 20 navigation commands each session issues after recording.
var loadCommands = []struct {
	method string
	params map[string]any
}{
	{"adi.call_tree", nil},
	{"adi.break", map[string]any{"func": "step"}},
	{"adi.continue", nil}, {"adi.continue", nil}, {"adi.continue", nil}, {"adi.continue", nil},
	{"adi.prev", nil}, {"adi.prev", nil},
	{"adi.state", nil},
	{"adi.step_out", nil},
	{"adi.step_into", map[string]any{"frame": "step#5"}},
	{"adi.continue", nil}, {"adi.continue", nil},
	{"adi.flt", map[string]any{"frame": "step#2"}},
	{"adi.list_frames", map[string]any{"func": "step"}},
	{"adi.diff", map[string]any{"a": "step#1", "b": "step#8"}},
	{"adi.list", nil},
	{"adi.prev", nil},
	{"adi.step_out", nil},
	{"adi.state", nil},
}

// BenchmarkLoad50Sessions drives 50 sessions at once over WebSocket, one client each: every
// client records the small program, then issues 20 navigation commands. It reports the p50 and
// p95 latency of all navigation commands, of those answered from what was recorded (cached) and
// of those that re-ran the program to record an FLT (rerun), of the recordings, and the errors.
// It runs only with ADI_LOAD=1 (it keeps both cores busy for a while):
//
//	ADI_LOAD=1 go test ./integration -run '^$' -bench Load50Sessions -benchtime 1x
func BenchmarkLoad50Sessions(b *testing.B) {
	if os.Getenv("ADI_LOAD") == "" {
		b.Skip("set ADI_LOAD=1 to run the load benchmark")
	}
	const sessions = 50
	ts := startServer(b)
	dirs := make([]string, sessions)
	for i := range dirs {
		dirs[i] = b.TempDir()
		if err := os.WriteFile(filepath.Join(dirs[i], "load.py"), []byte(loadProgram), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var mu sync.Mutex
		var nav, cached, rerun, rec []time.Duration
		errs := 0
		var firstErr error
		note := func(err error) {
			mu.Lock()
			errs++
			if firstErr == nil {
				firstErr = err
			}
			mu.Unlock()
		}
		var wg sync.WaitGroup
		for i := 0; i < sessions; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				defer cancel()
				c, _, err := server.Dial(ctx, ts.srv.URL(), ts.srv.Token(), nil)
				if err != nil {
					note(err)
					return
				}
				defer c.Close()
				id := fmt.Sprintf("load-%d-%d", n, i)
				// The session's events tell which commands had to re-run the program.
				if err := c.Call(ctx, "session.subscribe", map[string]any{"session": id}, nil); err != nil {
					note(err)
					return
				}
				start := time.Now()
				err = c.Call(ctx, "session.create", map[string]any{"id": id, "command": "python load.py", "dir": dirs[i]}, nil)
				d := time.Since(start)
				if err != nil {
					note(fmt.Errorf("session.create: %w", err))
					return
				}
				var mine, mineCached, mineRerun []time.Duration
				for _, cmd := range loadCommands {
					p := map[string]any{"session": id}
					for k, v := range cmd.params {
						p[k] = v
					}
					drain(c)
					start := time.Now()
					if err := c.Call(ctx, cmd.method, p, nil); err != nil {
						note(fmt.Errorf("%s: %w", cmd.method, err))
						continue
					}
					d := time.Since(start)
					mine = append(mine, d)
					// Events come before the answer they led to.
					if drain(c) > 0 {
						mineRerun = append(mineRerun, d)
					} else {
						mineCached = append(mineCached, d)
					}
				}
				_ = c.Call(ctx, "session.delete", map[string]any{"session": id}, nil)
				mu.Lock()
				rec = append(rec, d)
				nav = append(nav, mine...)
				cached = append(cached, mineCached...)
				rerun = append(rerun, mineRerun...)
				mu.Unlock()
			}()
		}
		wg.Wait()
		if firstErr != nil {
			b.Logf("first error: %v", firstErr)
		}
		b.ReportMetric(ms(percentile(nav, 50)), "nav-p50-ms")
		b.ReportMetric(ms(percentile(nav, 95)), "nav-p95-ms")
		b.ReportMetric(ms(percentile(nav, 99)), "nav-p99-ms")
		b.ReportMetric(ms(percentile(cached, 50)), "cached-p50-ms")
		b.ReportMetric(ms(percentile(cached, 95)), "cached-p95-ms")
		b.ReportMetric(ms(percentile(rerun, 50)), "rerun-p50-ms")
		b.ReportMetric(ms(percentile(rerun, 95)), "rerun-p95-ms")
		b.ReportMetric(float64(len(rerun)), "reruns")
		b.ReportMetric(ms(percentile(rec, 50)), "record-p50-ms")
		b.ReportMetric(ms(percentile(rec, 95)), "record-p95-ms")
		b.ReportMetric(float64(errs), "errors")
		b.ReportMetric(float64(len(nav)), "commands")
	}
}

// drain empties the client's event channel and counts the runs that started.
func drain(c *server.Client) int {
	runs := 0
	for {
		select {
		case raw := <-c.Events():
			var ev struct {
				Kind string `json:"kind"`
			}
			if json.Unmarshal(raw, &ev) == nil && ev.Kind == "run_started" {
				runs++
			}
		default:
			return runs
		}
	}
}

// percentile returns the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	k := (p*len(s)+99)/100 - 1
	return s[max(k, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
