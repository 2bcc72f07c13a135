package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/server"
)

// soakClients is how many clients the soak run drives at once.
const soakClients = 4

// soakCommands are what each cycle of the soak run asks after recording: navigation answered
// from the recording, FLTs that re-run the program, an exec (the probe alone) and one under debugpy
// (--then-continue).
var soakCommands = []struct {
	method string
	params map[string]any
}{
	{"adi.call_tree", nil},
	{"adi.break", map[string]any{"func": "step"}},
	{"adi.continue", nil}, {"adi.continue", nil}, {"adi.prev", nil},
	{"adi.step_out", nil},
	{"adi.step_into", map[string]any{"frame": "step#5"}},
	{"adi.flt", map[string]any{"frame": "step#2"}},
	{"adi.diff", map[string]any{"a": "step#1", "b": "step#8"}},
	{"adi.execute", map[string]any{"frame": "step#3", "stmt": "x * 10"}},
	{"adi.execute", map[string]any{"frame": "step#3", "stmt": "x * 10", "then_continue": true}},
	{"adi.state", nil},
}

// procSample is what the soak run watches of the server process.
type procSample struct {
	rssKB int
	fds   int
}

// sampleProc reads a process's resident memory and open file descriptors.
func sampleProc(t testing.TB, pid int) procSample {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	require.NoError(t, err)
	var s procSample
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			s.rssKB, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		}
	}
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	require.NoError(t, err)
	s.fds = len(fds)
	return s
}

// soakDuration reads ADI_SOAK ("60s", "10m"); the soak run is off without it.
func soakDuration(t *testing.T) time.Duration {
	v := os.Getenv("ADI_SOAK")
	if v == "" {
		t.Skip("set ADI_SOAK=60s (or any duration) to run the soak test")
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "ADI_SOAK must be a duration such as 60s")
	return d
}

// TestSoak drives a real `adi serve` for ADI_SOAK: soakClients clients each loop connect, create
// a session, issue soakCommands, delete the session and hang up. Every call must succeed; the
// server's memory and open file descriptors must stay flat (after a warm-up cycle, at most
// 64 MiB more resident memory, and when every client has gone, no more descriptors than before
// the loop); and at the end no process of any run is left.
//
//	ADI_SOAK=60s go test ./integration -run '^TestSoak$' -v
func TestSoak(t *testing.T) {
	d := soakDuration(t)
	mark := newMark(t)
	srv := faultServe(t, t.TempDir(), markVar+"="+mark)
	pid := srv.cmd.Process.Pid
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "load.py"), []byte(loadProgram), 0o644))

	var cycles, calls, failures atomic.Int64
	var firstErr atomic.Value
	cycle := func(worker, n int) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		fail := func(err error) {
			failures.Add(1)
			firstErr.CompareAndSwap(nil, err)
		}
		c, _, err := server.Dial(ctx, srv.url, srv.token, nil)
		if err != nil {
			fail(err)
			return
		}
		defer c.Close()
		id := fmt.Sprintf("soak-%d-%d", worker, n)
		if err := c.Call(ctx, "session.create", map[string]any{"id": id, "command": "python load.py", "dir": dir}, nil); err != nil {
			fail(fmt.Errorf("session.create: %w", err))
			return
		}
		for _, cmd := range soakCommands {
			p := map[string]any{"session": id}
			for k, v := range cmd.params {
				p[k] = v
			}
			calls.Add(1)
			if err := c.Call(ctx, cmd.method, p, nil); err != nil {
				fail(fmt.Errorf("%s: %w", cmd.method, err))
			}
		}
		if err := c.Call(ctx, "session.delete", map[string]any{"session": id}, nil); err != nil {
			fail(fmt.Errorf("session.delete: %w", err))
		}
		cycles.Add(1)
	}

	// One warm-up cycle per client fills the caches and pools; the baseline is taken after it,
	// with no client connected.
	var wg sync.WaitGroup
	for w := 0; w < soakClients; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); cycle(w, 0) }()
	}
	wg.Wait()
	time.Sleep(500 * time.Millisecond) // closed connections are torn down asynchronously
	base := sampleProc(t, pid)
	peak := base

	stop := time.Now().Add(d)
	for w := 0; w < soakClients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 1; time.Now().Before(stop); n++ {
				cycle(w, n)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
			s := sampleProc(t, pid)
			peak.rssKB, peak.fds = max(peak.rssKB, s.rssKB), max(peak.fds, s.fds)
		}
	}
	time.Sleep(500 * time.Millisecond)
	end := sampleProc(t, pid)
	left := markedProcs(mark, pid)
	t.Logf("soak: %v, %d clients, %d cycles, %d commands, %d failures", d, soakClients, cycles.Load(), calls.Load(), failures.Load())
	t.Logf("soak: server RSS %d kB after warm-up, %d kB peak, %d kB at the end; fds %d after warm-up, %d peak, %d at the end; %d run processes left",
		base.rssKB, peak.rssKB, end.rssKB, base.fds, peak.fds, end.fds, len(left))

	if err, _ := firstErr.Load().(error); err != nil {
		t.Errorf("first failure: %v", err)
	}
	assert.Zero(t, failures.Load(), "every call succeeds")
	assert.LessOrEqual(t, end.rssKB, base.rssKB+64<<10, "resident memory stays flat")
	assert.LessOrEqual(t, end.fds, base.fds, "no descriptor outlives its client")
	assert.Empty(t, left, "no process outlives its run: %s", describeProcs(left))
	assert.Empty(t, children(pid), "the server has no child left")
	assert.Equal(t, 0, srv.stop(t, syscall.SIGTERM))
}
