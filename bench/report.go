package bench

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Report is everything one benchmark run measured. A part that could not be measured has its
// error in Missing (by part) and is left out of the tables.
type Report struct {
	Machine     Machine
	Reps        int
	InProcess   *InProcess
	Debugpy     time.Duration // fib(25) under debugpy, timed inside the program
	Wall        []*WallTimes
	Step        time.Duration // DAP next, with adi's NODELAY fix
	StepN       int
	StepStock   time.Duration
	StepStockN  int
	Logpoint    time.Duration
	LogMessages int // how many of the logpoint's 50,000 messages arrived
	Latencies   []*Latencies
	Sizes       []*FLTSize
	RoundTrip   *RoundTrip
	Load        Load
	RealRepos   []*RealRepoRow
	RealBugs    []*RealBugRow
	Tiny        *TinyCLI
	Live        *LiveCost
	Missing     map[string]string
	Elapsed     time.Duration
}

// Miss records why a part was not measured.
func (r *Report) Miss(part string, err error) {
	if r.Missing == nil {
		r.Missing = map[string]string{}
	}
	r.Missing[part] = strings.ReplaceAll(err.Error(), "\n", " ")
}

// bar is one of the bars with the value measured against it.
type bar struct{ what, bar, measured, met string }

// Markdown renders the report as markdown tables, ready for docs/benchmarks.md.
func (r *Report) Markdown() string {
	var b strings.Builder
	var bars []bar
	m := r.Machine
	speed := "without"
	if m.Speedups {
		speed = "with"
	}
	fmt.Fprintf(&b, "## Benchmarks\n\n")
	fmt.Fprintf(&b, "Measured by `make bench` on %s UTC: %s, %d cores, %s memory, Linux %s; Python %s (%s), debugpy %s, pydevd %s (%s its Cython speedups), pytest %s, sympy %s; %s. "+
		"Every figure is from this one run; ratios compare numbers measured minutes apart on the same machine. Whole runs are the best of %d.\n\n",
		m.Date.Format("2006-01-02 15:04"), m.CPU, m.Cores, m.Memory, m.Kernel, m.Python, m.PythonPath, m.Debugpy, m.Pydevd, speed, m.Pytest, m.Sympy, m.Go, r.Reps)

	if ip := r.InProcess; ip != nil {
		fmt.Fprintf(&b, "### Recording overhead, in-process: fib(25), %s calls, best of %d\n\n", thousands(ip.FibCalls), ip.Rounds)
		b.WriteString("| way | time | × plain | bar |\n|---|---:|---:|---|\n")
		plain := 0.0
		for _, c := range ip.Fib {
			if c.Name == "plain" {
				plain = c.Seconds
			}
		}
		for _, c := range ip.Fib {
			name, note := c.Name, ""
			switch {
			case c.Name == "plain":
				name = "plain fib(25)"
			case c.Name == "setprofile recorder":
				name = "naive `sys.setprofile` recorder (appends (code, event))"
			case strings.HasPrefix(c.Name, "adi probe"):
				x := c.Seconds / plain
				note = "≤ 4x: " + met(x <= 4)
				bars = append(bars, bar{"recording T, fib(25), " + c.Name, "≤ 4x plain", ratio(x), met(x <= 4)})
				if c.Extra != nil {
					name += fmt.Sprintf(" (writes %.1f MB)", float64(c.Extra.Bytes)/1e6)
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", name, dur(secs(c.Seconds)), ratio(c.Seconds/plain), note)
			if c.Name == "cProfile" && r.Debugpy > 0 {
				fmt.Fprintf(&b, "| debugpy, no breakpoints (timed inside the program) | %s | %s | |\n", dur(r.Debugpy), ratio(r.Debugpy.Seconds()/plain))
			}
		}
		b.WriteString("\nThe 4x bar is not reachable with a per-call Python hook: the naive recorder above, which only appends a tuple per event, already costs more than 4x; adi's probe also renders and writes every argument and return value.\n\n")
	}

	if len(r.Wall) > 0 {
		fmt.Fprintf(&b, "### Recording overhead, whole run: wall time including process start, best of %d\n\n", r.Reps)
		b.WriteString("| workload | calls in T | plain | naive setprofile recorder | cProfile | debugpy, no breakpoints | adi (record T, session ready) |\n|---|---:|---:|---:|---:|---:|---:|\n")
		for _, w := range r.Wall {
			p := w.Plain.Seconds()
			cell := func(d time.Duration) string { return fmt.Sprintf("%s (%s)", dur(d), ratio(d.Seconds()/p)) }
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", w.Workload.Name, thousands(w.Frames), dur(w.Plain),
				cell(w.Recorder), cell(w.CProfile), cell(w.Debugpy), cell(w.ADI))
		}
		b.WriteString("\n")
	}

	r.fltCost(&b, &bars)

	for _, l := range r.Latencies {
		fmt.Fprintf(&b, "### Command latency: %s (T: %s calls, recorded in %s; function %s)\n\n", l.Workload.Name, thousands(l.Frames), dur(l.Record), "`"+l.Workload.Func+"`")
		b.WriteString("| command | adi | adi answered | ADI artifact's method (a re-run with a tracer) | adi ÷ artifact | bar |\n|---|---:|---|---:|---:|---|\n")
		worst, worstCmd := 0.0, ""
		for _, row := range l.Rows {
			x := row.ADI.Seconds() / row.Peer.Seconds()
			note := ""
			switch row.Kind {
			case "navigation":
				note = row.Bar + ": " + met(x <= 0.05)
				if x > worst {
					worst, worstCmd = x, row.Command
				}
			case "break-cached":
				note = row.Bar + ": " + met(row.ADI <= 5*time.Millisecond)
				bars = append(bars, bar{"break on a recorded frame, " + l.Workload.Name, "≤ 5 ms", dur(row.ADI), met(row.ADI <= 5*time.Millisecond)})
			case "break-uncached":
				note = row.Bar + ": " + met(x <= 1)
				bars = append(bars, bar{"break on a frame not recorded, " + l.Workload.Name, "≤ 1 re-run", ratio(x), met(x <= 1)})
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", strings.ReplaceAll(row.Command, "FUNC", "f"), dur(row.ADI), row.How,
				fmt.Sprintf("%s (%s)", dur(row.Peer), row.Mode), ratio(x), note)
		}
		if worstCmd != "" {
			bars = append(bars, bar{"navigation on a recorded session, " + l.Workload.Name + " (the slowest: " + worstCmd + ")",
				"≤ 0.05x one re-run", ratio(worst), met(worst <= 0.05)})
		}
		for _, n := range l.Notes {
			fmt.Fprintf(&b, "\n%s.", n)
		}
		b.WriteString("\n\nadi medians over the repetitions; the artifact's method is the median of 3 runs of bench/python/peer_standin.py per mode (flt: FLT of f#2; calltree: below f#1; exec: a statement in f#2).\n\n")
	}

	if len(r.Sizes) > 0 {
		fmt.Fprintf(&b, "### Tokens per FLT (%d characters a token; adi's default answer budget, 2,000 tokens)\n\n", 4)
		b.WriteString("| workload | frame | statements | adi's FLT | the same, one line per statement and change | bar |\n|---|---|---:|---:|---:|---|\n")
		for _, s := range r.Sizes {
			note := ""
			if strings.Contains(s.Workload, "30000") {
				note = "≤ 1,500 tokens: " + met(s.Tokens <= 1500)
				bars = append(bars, bar{"FLT text of a 30,000-iteration loop", "≤ 1,500 tokens", thousands(s.Tokens) + " tokens", met(s.Tokens <= 1500)})
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s tokens | %s tokens | %s |\n", s.Workload, s.Frame, thousands(s.Steps), thousands(s.Tokens), thousands(s.Unfolded), note)
		}
		b.WriteString("\n")
	}

	if rt := r.RoundTrip; rt != nil {
		x := rt.Stock.Seconds() / rt.NoDelay.Seconds()
		b.WriteString("### DAP round trip: one request through debugpy's adapter to pydevd and back\n\n| debugpy | mean | bar |\n|---|---:|---|\n")
		fmt.Fprintf(&b, "| stock | %s | |\n| with adi's TCP_NODELAY fix | %s (%.0fx faster) | ≥ 10x below stock: %s |\n\n", dur(rt.Stock), dur(rt.NoDelay), x, met(x >= 10))
		bars = append(bars, bar{"DAP round trip with the fix", "≥ 10x below stock", fmt.Sprintf("%.0fx", x), met(x >= 10)})
	}

	if l := r.Load; l != nil {
		ms := func(unit string) string { return dur(time.Duration(l[unit] * float64(time.Millisecond))) }
		b.WriteString("### Load: 50 sessions at once over WebSocket, each recording a program and issuing 20 navigation commands\n\n| | p50 | p95 | bar |\n|---|---:|---:|---|\n")
		cached := time.Duration(l["cached-p95-ms"] * float64(time.Millisecond))
		fmt.Fprintf(&b, "| navigation answered from the recording | %s | %s | p95 ≤ 50 ms: %s |\n", ms("cached-p50-ms"), ms("cached-p95-ms"), met(cached <= 50*time.Millisecond))
		fmt.Fprintf(&b, "| commands that re-ran the program to record an FLT (%.0f) | %s | %s | |\n", l["reruns"], ms("rerun-p50-ms"), ms("rerun-p95-ms"))
		fmt.Fprintf(&b, "| every command (%.0f) | %s | %s | |\n", l["commands"], ms("nav-p50-ms"), ms("nav-p95-ms"))
		fmt.Fprintf(&b, "| recording (session.create) | %s | %s | |\n", ms("record-p50-ms"), ms("record-p95-ms"))
		fmt.Fprintf(&b, "| errors | %.0f | | |\n\n", l["errors"])
		bars = append(bars, bar{"load, 50 sessions: p95 of navigation answered from the recording", "≤ 50 ms", dur(cached), met(cached <= 50*time.Millisecond)})
	}

	if t := r.Tiny; t != nil {
		fmt.Fprintf(&b, "### The CLI's first command on a tiny script (`adi call-tree \"python3 tiny.py\"`, two calls; each a whole process, median of %d)\n\n", t.N)
		b.WriteString("| command | time | bar |\n|---|---:|---|\n")
		fmt.Fprintf(&b, "| first command, cold: no daemon, a fresh state directory (starts the daemon, records) | %s | ≤ 0.3 s: %s |\n", dur(t.Cold), met(t.Cold <= 300*time.Millisecond))
		fmt.Fprintf(&b, "| first command, warm: a new session on the running daemon (records) | %s | |\n", dur(t.Warm))
		fmt.Fprintf(&b, "| the same command again (the recording is reused) | %s | |\n\n", dur(t.Reused))
		bars = append(bars, bar{"tiny script: the CLI's first command, cold", "≤ 0.3 s", dur(t.Cold), met(t.Cold <= 300*time.Millisecond)})
	}

	if r.Live != nil {
		r.Live.markdown(&b, &bars)
	}

	r.realRepos(&b, &bars)
	r.realBugs(&b, &bars)

	if len(bars) > 0 {
		b.WriteString("### The bars\n\n| figure | bar | measured | |\n|---|---|---:|---|\n")
		for _, x := range bars {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", x.what, x.bar, x.measured, x.met)
		}
		b.WriteString("\n")
	}
	if len(r.Missing) > 0 {
		b.WriteString("Not measured:\n\n")
		for part, why := range r.Missing {
			fmt.Fprintf(&b, "- %s: %s\n", part, why)
		}
		b.WriteString("\n")
	}
	b.WriteString(reproduce)
	fmt.Fprintf(&b, "\n(`make bench` took %s.)\n", r.Elapsed.Round(time.Second))
	return b.String()
}

// fltCost renders the FLT cost per statement: adi against DAP stepping and logpoints.
func (r *Report) fltCost(b *strings.Builder, bars *[]bar) {
	ip := r.InProcess
	if ip == nil && r.Step == 0 && r.Logpoint == 0 {
		return
	}
	const n = 100002
	b.WriteString("### FLT cost per statement: one frame of about 100,000 statements (`for i in range(50000): s += i`)\n\n")
	b.WriteString("| method | per statement | 100,002 statements | × adi probe | bar |\n|---|---:|---:|---:|---|\n")
	base := 0.0
	if ip != nil {
		us := ip.FLT.PerStatement()
		base = us
		fmt.Fprintf(b, "| adi probe, in-process (%s engine; ΔS and output included) | %.2f µs | %s | 1x | ≤ 5 µs: %s |\n", ip.FLT.Engine, us,
			dur(time.Duration(us*n*1e3)), met(us <= 5))
		*bars = append(*bars, bar{"FLT capture", "≤ 5 µs/statement", fmt.Sprintf("%.2f µs", us), met(us <= 5)})
	}
	for _, s := range r.Sizes {
		if s.Steps > 90000 {
			us := float64(s.Time.Microseconds()) / float64(s.Steps)
			fmt.Fprintf(b, "| adi `flt` command end to end (re-run, trace, read, render; %s statements) | %.2f µs | %s | %s | |\n", thousands(s.Steps), us, dur(s.Time), times(us, base))
		}
	}
	if r.Logpoint > 0 {
		us := float64(r.Logpoint.Nanoseconds()) / 1e3
		fmt.Fprintf(b, "| DAP logpoint on the loop line, through adi's dap client (until its messages arrived: %s of 50,000) | %s | %s | %s | |\n",
			thousands(r.LogMessages), dur(r.Logpoint), dur(r.Logpoint*n), times(us, base))
	}
	if r.Step > 0 {
		us := float64(r.Step.Nanoseconds()) / 1e3
		fmt.Fprintf(b, "| DAP single-stepping (`next`), adi's dap client with the NODELAY fix (mean of %d steps) | %s | %s | %s | |\n", r.StepN, dur(r.Step), dur(r.Step*n), times(us, base))
	}
	if r.StepStock > 0 {
		us := float64(r.StepStock.Nanoseconds()) / 1e3
		fmt.Fprintf(b, "| DAP single-stepping (`next`), stock debugpy (mean of %d steps) | %s | %s | %s | |\n", r.StepStockN, dur(r.StepStock), dur(r.StepStock*n), times(us, base))
	}
	b.WriteString("\nStepping and logpoint totals for 100,002 statements are the per-statement cost times 100,002.\n\n")
}

// reproduce says how to rerun each part.
const reproduce = `How to reproduce: ` + "`make bench`" + ` (scripts/bench.sh) runs everything above. Parts alone:
- in-process recording and FLT costs: ` + "`python3 bench/python/inprocess.py --probe-bench probe/python/bench`" + ` (the probe's own table: ` + "`python3 probe/python/bench/bench_probe.py`" + `);
- every other table: ` + "`go run ./bench/cmd/adi-bench -only wall,flt,latency,tokens,roundtrip,realrepos`" + ` (pick parts; the real repositories alone: ` + "`BENCH_REALREPOS_ONLY=1 make bench`" + ` or ` + "`-only realrepos`" + `);
- the cost of watching in live mode: ` + "`go run ./bench/cmd/adi-bench -only live`" + `;
- the real bugs, adi against the reference tool: ` + "`ADI_REFERENCE=/path/to/ADI/src BENCH_REALBUGS_ONLY=1 make bench`" + ` or ` + "`-only realbugs`" + `;
- DAP stepping and logpoints as Go benchmarks: ` + "`go test ./integration -run '^$' -bench 'DAPStep|DAPLogpoint' -benchtime 1x`" + `;
- the DAP round trip: ` + "`go test ./integration -run '^$' -bench DAPRoundTrip`" + `;
- the load: ` + "`ADI_LOAD=1 go test ./integration -run '^$' -bench Load50Sessions -benchtime 1x`" + `;
- the soak (not in make bench unless ADI_SOAK is set): ` + "`ADI_SOAK=60s go test ./integration -run '^TestSoak$' -v`" + `.
`

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

// dur renders a duration with three significant digits in a fitting unit.
func dur(d time.Duration) string {
	s := d.Seconds()
	switch {
	case d == 0:
		return "—"
	case s >= 3600:
		return fmt.Sprintf("%.1f h", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.1f min", s/60)
	case s >= 1:
		return fmt.Sprintf("%.2f s", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3g ms", s*1e3)
	default:
		return fmt.Sprintf("%.3g µs", s*1e6)
	}
}

// ratio renders a ratio with two significant digits (whole numbers from 10 up).
func ratio(x float64) string {
	if x >= 10 || x <= 0 {
		return fmt.Sprintf("%.0fx", x)
	}
	digits := max(1-int(math.Floor(math.Log10(x))), 0)
	return strconv.FormatFloat(x, 'f', digits, 64) + "x"
}

// times renders a cost per statement as a multiple of adi's, or "" without adi's.
func times(us, base float64) string {
	if base <= 0 {
		return ""
	}
	return ratio(us / base)
}

// thousands renders n with commas.
func thousands(n int) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
