package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/live"
)

// The cost of watching (live mode's `watch FUNC`): requests per second of a small web shop
// (bench/python/shop_bench.py, the integration test's shop server with a heavier handler) served
// plainly, under adi live with no watch, with a watch off the request path, and with a watch on
// the request handler (every request caught, and --max 10); then the idle watch recorder's cost
// on CPU-bound code (fib(22) timed inside the program, under adi live with and without it).

// LiveConfig is one way of running the shop.
type LiveConfig struct {
	Name string
	// Live runs it under adi live (else plain python3, or plain debugpy with Debugpy).
	Live    bool
	Debugpy bool
	// NoRecorder leaves the idle watch recorder out (ADI_LIVE_NO_WATCH_RECORDER=1).
	NoRecorder bool
	// Watch is the function watched after the warm-up ("" none) and Max its --max (0 none).
	Watch string
	Max   int
	// Base marks live mode's speed, the configuration the others compare with.
	Base bool
}

// LiveConfigs are the shop's configurations, in the table's order.
var LiveConfigs = []LiveConfig{
	{Name: "plain `python3 shop_bench.py` (no debugger)"},
	{Name: "plain debugpy (launched by adi's DAP client, no breakpoints; no live launcher, no probe)", Debugpy: true},
	{Name: "adi live, idle watch recorder left out (debugpy and adi's launcher only)", Live: true, NoRecorder: true},
	{Name: "adi live, no watch (debugpy and the idle recorder): live mode's speed", Live: true, Base: true},
	{Name: "adi live, `watch audit` (a function off the request path)", Live: true, Watch: "audit"},
	{Name: "adi live, `watch handle` (every request caught)", Live: true, Watch: "handle"},
	{Name: "adi live, `watch handle --max 10` (10 caught, then unwatched)", Live: true, Watch: "handle", Max: 10},
}

// LiveRun is one configuration's timed requests in one process.
type LiveRun struct {
	Latencies []time.Duration // of each timed request, in order
	Elapsed   time.Duration   // of all of them
	Caught    int             // invocations the watch caught (0 without one)
}

// RPS is the run's requests per second.
func (r LiveRun) RPS() float64 { return float64(len(r.Latencies)) / r.Elapsed.Seconds() }

// LiveRow is one configuration over every round.
type LiveRow struct {
	Config LiveConfig
	Runs   []LiveRun
}

// Summary is the medians over the rounds of the requests per second and of each round's
// per-request median and 90th percentile latency, and the most caught in a round.
func (r *LiveRow) Summary() (rps float64, p50, p90 time.Duration, caught int) {
	var rs []float64
	var a, b []time.Duration
	for _, run := range r.Runs {
		rs = append(rs, run.RPS())
		a = append(a, Percentile(run.Latencies, 50))
		b = append(b, Percentile(run.Latencies, 90))
		caught = max(caught, run.Caught)
	}
	return medianF(rs), Percentile(a, 50), Percentile(b, 50), caught
}

// FibRow is fib(22)'s best time inside the program, per process, in one configuration.
type FibRow struct {
	Name    string
	Seconds []float64
	Base    bool
}

// LiveCost is the whole live-mode measurement.
type LiveCost struct {
	Requests, Warmup, Rounds int
	Path                     string // the request's path
	Rows                     []*LiveRow
	Fib                      []*FibRow
}

// shopPath is the request every configuration makes: a cart of six lines.
const shopPath = "/cart/apple/2/pear/4/plum/1/fig/6/kiwi/3/lime/9"

// LiveCosts measures every configuration rounds times (rounds interleaved, so that the machine's
// other load spreads over all of them), each with warmup requests then requests timed ones, all
// sequential over one keep-alive connection; then fib(22) fibRounds times per configuration.
func (e *Env) LiveCosts(ctx context.Context, requests, warmup, rounds, fibRounds int, progress func(string, ...any)) (*LiveCost, error) {
	mgr, err := bridge.NewManager(bridge.ManagerConfig{StateDir: filepath.Join(e.Work, "live-state"), Log: e.Log})
	if err != nil {
		return nil, err
	}
	defer mgr.Shutdown()
	lc := &LiveCost{Requests: requests, Warmup: warmup, Rounds: rounds, Path: shopPath}
	for _, c := range LiveConfigs {
		lc.Rows = append(lc.Rows, &LiveRow{Config: c})
	}
	for round := 1; round <= rounds; round++ {
		for _, row := range lc.Rows {
			progress("live: %s, round %d of %d", row.Config.Name, round, rounds)
			var run *LiveRun
			switch {
			case row.Config.Live:
				run, err = e.liveShop(ctx, mgr, row.Config, requests, warmup)
			case row.Config.Debugpy:
				run, err = e.debugpyShop(ctx, requests, warmup)
			default:
				run, err = e.plainShop(ctx, requests, warmup)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", row.Config.Name, err)
			}
			row.Runs = append(row.Runs, *run)
		}
	}
	fibs := []struct {
		row                 *FibRow
		live, none, debugpy bool
		exc                 bool // live mode's exception filters
		idle                bool // plain python with the idle recorder
		watch               string
	}{
		{row: &FibRow{Name: "plain python3"}},
		{row: &FibRow{Name: "plain python3 with the idle watch recorder (no debugger; profile engine)"}, idle: true},
		{row: &FibRow{Name: "plain debugpy (adi's DAP client, no breakpoints)"}, debugpy: true},
		{row: &FibRow{Name: "plain debugpy with live mode's exception breakpoints (uncaught, userUnhandled)"}, debugpy: true, exc: true},
		{row: &FibRow{Name: "adi live, idle watch recorder left out"}, live: true, none: true},
		{row: &FibRow{Name: "adi live, no watch (idle recorder)", Base: true}, live: true},
		{row: &FibRow{Name: "adi live, a watch on a function never called"}, live: true, watch: "never_called"},
	}
	for round := 1; round <= fibRounds; round++ {
		for _, f := range fibs {
			progress("live: fib(22), %s, round %d of %d", f.row.Name, round, fibRounds)
			var s float64
			switch {
			case f.live:
				s, err = e.liveFib(ctx, mgr, f.none, f.watch)
			case f.debugpy:
				s, err = e.debugpyFib(ctx, f.exc)
			default:
				s, err = e.plainFib(ctx, f.idle)
			}
			if err != nil {
				return nil, fmt.Errorf("fib(22), %s: %w", f.row.Name, err)
			}
			f.row.Seconds = append(f.row.Seconds, s)
		}
	}
	for _, f := range fibs {
		lc.Fib = append(lc.Fib, f.row)
	}
	return lc, nil
}

var (
	shopPortLine = regexp.MustCompile(`listening on port (\d+)`)
	fibLine      = regexp.MustCompile(`fib-seconds ([0-9.]+)`)
)

// plainShop serves the shop with plain python.
func (e *Env) plainShop(ctx context.Context, requests, warmup int) (*LiveRun, error) {
	cmd := exec.CommandContext(ctx, e.Python.Path, "shop_bench.py")
	cmd.Dir = e.Scripts
	cmd.Env = workloadEnv(nil)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	first, err := bufio.NewReader(out).ReadString('\n')
	m := shopPortLine.FindStringSubmatch(first)
	if m == nil {
		return nil, fmt.Errorf("the shop did not say its port (%q, %v)", first, err)
	}
	port, _ := strconv.Atoi(m[1])
	return serveRun(ctx, port, requests, warmup, nil, nil)
}

// scriptWorkload is one of bench/python's scripts as a workload, for plain debugpy.
func (e *Env) scriptWorkload(name string) *Workload {
	return &Workload{Name: name, Dir: e.Scripts, Argv: []string{name}}
}

// debugpyShop serves the shop under plain debugpy (no breakpoints), launched by adi's DAP client.
func (e *Env) debugpyShop(ctx context.Context, requests, warmup int) (*LiveRun, error) {
	l, err := e.launch(ctx, e.scriptWorkload("shop_bench.py"), false, nil)
	if err != nil {
		return nil, err
	}
	defer l.close()
	if _, _, err := l.waitLines(ctx, "listening on port", 1); err != nil {
		return nil, err
	}
	var out strings.Builder
	for _, o := range l.outputFrom(0) {
		out.WriteString(o.text)
	}
	m := shopPortLine.FindStringSubmatch(out.String())
	if m == nil {
		return nil, fmt.Errorf("the shop did not say its port (%q)", out.String())
	}
	port, _ := strconv.Atoi(m[1])
	return serveRun(ctx, port, requests, warmup, nil, nil)
}

// liveExceptions are the exception filters live mode sets (live/run.go).
var liveExceptions = []string{"uncaught", "userUnhandled"}

// debugpyFib runs fib_timed.py under plain debugpy (no breakpoints; live mode's exception
// breakpoints with exc).
func (e *Env) debugpyFib(ctx context.Context, exc bool) (float64, error) {
	var filters []string
	if exc {
		filters = liveExceptions
	}
	l, err := e.launchWith(ctx, e.scriptWorkload("fib_timed.py"), false, filters, nil)
	if err != nil {
		return 0, err
	}
	defer l.close()
	_, _, out, err := l.waitEnd(ctx)
	if err != nil {
		return 0, err
	}
	return fibSeconds(out)
}

// liveOptions is a live session of command on bench/python's scripts.
func (e *Env) liveOptions(command string, noRecorder bool) live.Options {
	env := []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"}
	if noRecorder {
		env = append(env, "ADI_LIVE_NO_WATCH_RECORDER=1")
	}
	return live.Options{Command: command, Dir: e.Scripts, Env: env, Python: e.Python.Path, Timeout: 2 * time.Minute}
}

// liveShop serves the shop under adi live: launched, continued in the background, warmed up,
// watched (if c says so), timed, and asked what the watch caught.
func (e *Env) liveShop(ctx context.Context, mgr *bridge.Manager, c LiveConfig, requests, warmup int) (*LiveRun, error) {
	s, _, err := live.Launch(ctx, mgr, "", false, e.liveOptions("python shop_bench.py", c.NoRecorder))
	if err != nil {
		return nil, err
	}
	defer func() { _ = mgr.CloseWhy(s.ID, "the benchmark is done with it") }()
	ans, err := s.Do(ctx, live.Cmd{Name: live.CmdContinue, Background: true})
	if err != nil {
		return nil, err
	}
	if ans.State != live.Running {
		return nil, fmt.Errorf("continue --background left the session %s: %s", ans.State, ans.Why)
	}
	seen := ans.Output.Stdout
	port := 0
	for deadline := time.Now().Add(30 * time.Second); port == 0; {
		if m := shopPortLine.FindStringSubmatch(seen); m != nil {
			port, _ = strconv.Atoi(m[1])
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the shop did not say its port; output %q", seen)
		}
		time.Sleep(20 * time.Millisecond)
		a, err := s.Do(ctx, live.Cmd{Name: live.CmdStatus})
		if err != nil {
			return nil, err
		}
		seen += a.Output.Stdout
	}
	var before func() error
	if c.Watch != "" {
		before = func() error {
			_, err := s.Do(ctx, live.Cmd{Name: live.CmdWatch, Func: c.Watch, Max: c.Max})
			return err
		}
	}
	after := func(run *LiveRun) error {
		if c.Watch == "" {
			return nil
		}
		want := requests
		switch {
		case c.Watch != "handle":
			want = 0
		case c.Max > 0:
			want = min(c.Max, requests)
		}
		// The recorder flushes every half second: wait for the last caught to show.
		for deadline := time.Now().Add(10 * time.Second); ; {
			a, err := s.Do(ctx, live.Cmd{Name: live.CmdCaught})
			if err != nil {
				return err
			}
			infos, _ := a.Result.([]live.WatchInfo)
			n := 0
			for _, w := range infos {
				n += len(w.Caught)
			}
			run.Caught = n
			if n >= want || time.Now().After(deadline) {
				if n != want {
					return fmt.Errorf("the watch on %s caught %d invocations, not %d", c.Watch, n, want)
				}
				return nil
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return serveRun(ctx, port, requests, warmup, before, after)
}

// serveRun makes warmup requests, calls before, times requests more, then calls after.
func serveRun(ctx context.Context, port, requests, warmup int, before func() error, after func(*LiveRun) error) (*LiveRun, error) {
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 1, DisableCompression: true}}
	defer client.CloseIdleConnections()
	url := fmt.Sprintf("http://127.0.0.1:%d%s", port, shopPath)
	get := func() error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"total": 79`) {
			return fmt.Errorf("the shop answered %d: %.200s", resp.StatusCode, b)
		}
		return nil
	}
	for i := 0; i < warmup; i++ {
		if err := get(); err != nil {
			return nil, err
		}
	}
	if before != nil {
		if err := before(); err != nil {
			return nil, err
		}
	}
	run := &LiveRun{Latencies: make([]time.Duration, 0, requests)}
	start := time.Now()
	for i := 0; i < requests; i++ {
		t := time.Now()
		if err := get(); err != nil {
			return nil, err
		}
		run.Latencies = append(run.Latencies, time.Since(t))
	}
	run.Elapsed = time.Since(start)
	if after != nil {
		if err := after(run); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// plainFib runs fib_timed.py with plain python (with the idle watch recorder, with idle).
func (e *Env) plainFib(ctx context.Context, idle bool) (float64, error) {
	args := []string{"fib_timed.py"}
	if idle {
		args = append(args, filepath.Join(e.Repo, "probe", "python"))
	}
	out, err := e.pyOutput(ctx, e.Scripts, args...)
	if err != nil {
		return 0, err
	}
	return fibSeconds(out)
}

// liveFib runs fib_timed.py under adi live to its end (with a watch on watch, if not "").
func (e *Env) liveFib(ctx context.Context, mgr *bridge.Manager, noRecorder bool, watch string) (float64, error) {
	s, ans, err := live.Launch(ctx, mgr, "", false, e.liveOptions("python fib_timed.py", noRecorder))
	if err != nil {
		return 0, err
	}
	defer func() { _ = mgr.CloseWhy(s.ID, "the benchmark is done with it") }()
	out := ans.Output.Stdout
	if watch != "" {
		if _, err := s.Do(ctx, live.Cmd{Name: live.CmdWatch, Func: watch}); err != nil {
			return 0, err
		}
	}
	if ans, err = s.Do(ctx, live.Cmd{Name: live.CmdContinue}); err != nil {
		return 0, err
	}
	out += ans.Output.Stdout
	if ans.State != live.Done {
		return 0, fmt.Errorf("the program did not finish (%s: %s); output %q", ans.State, ans.Why, out)
	}
	return fibSeconds(out)
}

func fibSeconds(out string) (float64, error) {
	m := fibLine.FindStringSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("fib_timed.py printed %q", lastLines(out, 3))
	}
	return strconv.ParseFloat(m[1], 64)
}

// Percentile is the p-th percentile of ds (nearest rank; 0 for none).
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// medianF is the median of xs (the mean of the middle two for an even count; 0 for none).
func medianF(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// markdown renders the live-mode tables and adds the "unwatched code runs at live mode's speed"
// bar (a watch off the request path: at least 0.9x live mode's requests per second).
func (lc *LiveCost) markdown(b *strings.Builder, bars *[]bar) {
	var base *LiveRow
	for _, r := range lc.Rows {
		if r.Config.Base {
			base = r
		}
	}
	if len(lc.Rows) > 0 && base != nil {
		bRPS, bP50, _, _ := base.Summary()
		fmt.Fprintf(b, "### The cost of watching (live mode): a small web shop's requests per second (bench/python/shop_bench.py, `GET %s`; %s sequential requests over one keep-alive connection after %s to warm up, in a fresh process; medians of %d rounds)\n\n",
			lc.Path, thousands(lc.Requests), thousands(lc.Warmup), lc.Rounds)
		b.WriteString("| configuration | requests/s | ÷ live mode's | latency p50 | latency p90 | p50 ÷ live mode's | caught |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, r := range lc.Rows {
			rps, p50, p90, caught := r.Summary()
			c := "—"
			if r.Config.Watch != "" {
				c = thousands(caught)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.Config.Name, thousands(int(math.Round(rps))), ratio(rps/bRPS),
				dur(p50), dur(p90), ratio(p50.Seconds()/bP50.Seconds()), c)
			if r.Config.Watch != "" && r.Config.Watch != "handle" {
				x := rps / bRPS
				*bars = append(*bars, bar{"unwatched code while a watch is on (the shop, `watch " + r.Config.Watch + "`)", "≈ live mode's speed (≥ 0.9x its requests/s)", ratio(x), met(x >= 0.9)})
			}
		}
		b.WriteString("\nEach request prices a six-line cart: `handle` calls `parse`, `line` and `price` per line, `discount` and `receipt` (about 20 calls of user functions). " +
			"A watch is set after the warm-up, while the server runs (`continue --background`); caught counts the invocations the watch recorded during the timed requests. " +
			"Latencies are each round's median and 90th percentile, then the median over the rounds.\n\n")
	}
	var fbase float64
	for _, f := range lc.Fib {
		if f.Base {
			fbase = medianF(f.Seconds)
		}
	}
	if len(lc.Fib) > 0 && fbase > 0 {
		fmt.Fprintf(b, "### The idle watch recorder on CPU-bound code: fib(22), 57,313 calls, timed inside the program (best of 10 per process, median of %d processes)\n\n", len(lc.Fib[0].Seconds))
		b.WriteString("| configuration | fib(22) | ÷ live mode's (no watch) |\n|---|---:|---:|\n")
		for _, f := range lc.Fib {
			s := medianF(f.Seconds)
			fmt.Fprintf(b, "| %s | %s | %s |\n", f.Name, dur(secs(s)), ratio(s/fbase))
		}
		b.WriteString("\n\"Idle watch recorder left out\" runs the live launcher with ADI_LIVE_NO_WATCH_RECORDER=1 (for this measurement only): debugpy and adi's launcher alone. " +
			"\"With the idle watch recorder (no debugger)\" starts the recorder, with no watch, in the program itself (bench/python/fib_timed.py PROBE_DIR): its hook's own cost per call.\n\n")
	}
}
