// Command adi-bench measures every performance figure adi claims and prints them as markdown
// tables (package bench says what each is). `make bench` runs it through scripts/bench.sh, which
// first runs the 50-session load benchmark and hands its output over with -load.
//
//	go run ./bench/cmd/adi-bench [-reps 3] [-load FILE] [-only wall,flt,latency,tokens,roundtrip,inprocess,tinycli,realrepos,realbugs,live] [-repos NAMES] [-bugs NAMES] [-answers DIR] [-quick]
//
// -only realrepos prints the real-repository table alone (seven Debian-packaged libraries driven
// through adi's CLI binary; scripts/deps.sh bench installs them), in a few minutes; -repos
// requests,sympy measures only those libraries of it.
//
// -only realbugs prints the real-bugs table alone: six reverted upstream fixes in Debian-packaged
// libraries, each investigated with a fixed command sequence by adi's CLI binary and, when
// ADI_REFERENCE names the ADI artifact's src/ directory, by the reference tool (python3 -m ADI),
// in about two minutes; -bugs requests-1963,sympy-18189 runs only those bugs, and -answers DIR
// writes every answer there (DIR/BUG/adi-N.txt, DIR/BUG/reference-N.txt).
//
// -only live prints the cost of watching in live mode (requests per second of a small web shop
// with and without a watch, and the idle watch recorder's cost on fib(22)), in about a minute.
//
// Progress goes to stderr, the tables to stdout. A part that fails is reported under "Not
// measured" and the others still run; the exit status is 1 when any part failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/bench"
)

func main() {
	repo := flag.String("repo", ".", "adi's repository root (the probe's benchmark is read from it)")
	reps := flag.Int("reps", 3, "repetitions of each whole-run timing (the best counts)")
	load := flag.String("load", "", "output of `go test -bench Load50Sessions` to include")
	only := flag.String("only", "", "comma-separated parts to run: inprocess, wall, flt, latency, tokens, roundtrip, tinycli, realrepos, realbugs, live (default all)")
	repos := flag.String("repos", "", "comma-separated libraries of the real-repository table to measure (default all)")
	bugs := flag.String("bugs", "", "comma-separated bugs of the real-bugs table to investigate (default all)")
	answers := flag.String("answers", "", "directory to write the real bugs' answers to, one file each (default none)")
	quick := flag.Bool("quick", false, "fewer repetitions and steps (a smoke run, not for the README)")
	level := flag.String("log-level", "warn", "log level for adi's own logs")
	since := flag.Int64("since", 0, "unix time the whole benchmark began (scripts/bench.sh passes it; default now)")
	flag.Parse()
	start := time.Now()
	if *since > 0 {
		start = time.Unix(*since, 0)
	}
	os.Exit(run(start, *repo, *reps, *load, *only, *repos, *bugs, *answers, *quick, *level))
}

func run(start time.Time, repo string, reps int, load, only, repos, bugs, answers string, quick bool, level string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	log := hclog.New(&hclog.LoggerOptions{Name: "adi-bench", Level: hclog.LevelFromString(level), Output: os.Stderr})
	steps, stockSteps, latReps, rounds := 200, 20, 5, 3
	liveReqs, liveWarm, liveRounds, fibRounds := 300, 30, 5, 5
	if quick {
		reps, steps, stockSteps, latReps, rounds = 1, 20, 5, 2, 1
		liveReqs, liveWarm, liveRounds, fibRounds = 50, 10, 1, 1
	}
	env, err := bench.NewEnv(ctx, repo, reps, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "adi-bench:", err)
		return 1
	}
	defer env.Close()
	want := func(part string) bool {
		if only == "" {
			return true
		}
		for _, p := range strings.Split(only, ",") {
			if strings.TrimSpace(p) == part {
				return true
			}
		}
		return false
	}
	progress := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "adi-bench [%s]: %s\n", time.Since(start).Round(time.Second), fmt.Sprintf(format, a...))
	}

	r := &bench.Report{Machine: env.Describe(ctx), Reps: env.Reps}
	fib, err := env.Fib()
	if err != nil {
		r.Miss("workloads", err)
	}
	loop, err := env.Loop(50000)
	if err != nil {
		r.Miss("workloads", err)
	}
	sympy, err := env.Sympy(ctx)
	if err != nil {
		r.Miss("the sympy workload", err)
	}
	workloads := []*bench.Workload{fib, loop}
	if sympy != nil {
		workloads = append(workloads, sympy)
	}

	if want("inprocess") {
		progress("in-process costs (fib(25), the 100k-statement FLT)")
		if r.InProcess, err = env.InProcessCosts(ctx, rounds); err != nil {
			r.Miss("in-process costs", err)
		}
		progress("fib(25) under debugpy, timed inside")
		if r.Debugpy, err = env.DebugpyInProcess(ctx); err != nil {
			r.Miss("debugpy in-process", err)
		}
	}
	if want("wall") {
		for _, w := range workloads {
			progress("whole runs: %s", w.Name)
			wt, err := env.Wall(ctx, w)
			if err != nil {
				r.Miss("whole runs of "+w.Name, err)
				continue
			}
			r.Wall = append(r.Wall, wt)
		}
	}
	if want("flt") {
		progress("DAP single-stepping with the NODELAY fix (%d steps)", steps)
		if r.Step, err = env.StepCost(ctx, false, steps); err != nil {
			r.Miss("DAP stepping", err)
		}
		r.StepN = steps
		progress("DAP single-stepping, stock debugpy (%d steps)", stockSteps)
		if r.StepStock, err = env.StepCost(ctx, true, stockSteps); err != nil {
			r.Miss("DAP stepping (stock)", err)
		}
		r.StepStockN = stockSteps
		progress("DAP logpoints (50,000 messages)")
		if r.Logpoint, r.LogMessages, err = env.LogpointCost(ctx, 50000); err != nil {
			r.Miss("DAP logpoints", err)
		}
	}
	if want("latency") || want("tokens") || want("flt") {
		srv, err := env.StartServer()
		if err != nil {
			r.Miss("adi server", err)
		} else {
			defer srv.Close()
			if want("latency") {
				for _, w := range []*bench.Workload{fib, sympy} {
					if w == nil {
						continue
					}
					progress("command latency: %s", w.Name)
					l, err := env.CommandLatency(ctx, srv, w, latReps)
					if err != nil {
						r.Miss("command latency of "+w.Name, err)
						continue
					}
					r.Latencies = append(r.Latencies, l)
				}
			}
			if want("tokens") || want("flt") {
				loop30, _ := env.Loop(30000)
				sizes := []struct {
					w     *bench.Workload
					frame string
				}{{fib, "fib#2"}, {loop, "loop#1"}, {loop30, "loop#1"}}
				if sympy != nil {
					sizes = append(sizes, struct {
						w     *bench.Workload
						frame string
					}{sympy, "continued_fraction_periodic#2"})
				}
				for _, s := range sizes {
					progress("FLT size: %s %s", s.w.Name, s.frame)
					sz, err := env.FLTSizeOf(ctx, srv, s.w, s.frame)
					if err != nil {
						r.Miss("FLT size of "+s.w.Name, err)
						continue
					}
					r.Sizes = append(r.Sizes, sz)
				}
			}
		}
	}
	if want("roundtrip") {
		progress("DAP round trip, stock and with the NODELAY fix")
		if r.RoundTrip, err = env.RoundTrips(ctx, stockSteps, steps); err != nil {
			r.Miss("DAP round trip", err)
		}
	}
	if want("tinycli") {
		progress("the CLI's first command on a tiny script, cold and warm")
		exe, err := env.BuildADI(ctx)
		if err == nil {
			r.Tiny, err = env.TinyCLI(ctx, exe, latReps)
		}
		if err != nil {
			r.Miss("the CLI on a tiny script", err)
		}
	}
	if want("live") {
		progress("the cost of watching: the shop's requests per second, fib(22) under live mode")
		if r.Live, err = env.LiveCosts(ctx, liveReqs, liveWarm, liveRounds, fibRounds, progress); err != nil {
			r.Miss("the cost of watching (live mode)", err)
		}
	}
	if want("realrepos") {
		realRepos(ctx, env, min(latReps, 3), repos, progress, r)
	}
	if want("realbugs") {
		realBugs(ctx, env, bugs, answers, progress, r)
	}
	if load != "" {
		f, err := os.Open(load)
		if err == nil {
			r.Load, err = bench.ParseLoad(f)
			f.Close()
		}
		if err != nil {
			r.Miss("load", err)
		}
	}
	r.Elapsed = time.Since(start)
	fmt.Print(r.Markdown())
	if len(r.Missing) > 0 {
		return 1
	}
	return 0
}

// realRepos measures the real-repository table, one library at a time, with reps repetitions of
// its repeated timings (only the libraries named in names, comma-separated, when it is not
// empty); a library that could not be measured is reported under "Not measured".
func realRepos(ctx context.Context, env *bench.Env, reps int, names string, progress func(string, ...any), r *bench.Report) {
	progress("real repositories: building adi's CLI binary")
	exe, err := env.BuildADI(ctx)
	if err != nil {
		r.Miss("real repositories", err)
		return
	}
	for _, repo := range bench.RealRepos {
		if names != "" && !slices.Contains(strings.Split(names, ","), repo.Name) {
			continue
		}
		progress("real repositories: %s (%s)", repo.Name, repo.Func)
		w, err := env.RealRepoWorkload(ctx, repo)
		if err == nil {
			var row *bench.RealRepoRow
			if row, err = env.RealRepoBench(ctx, exe, repo, w, reps); err == nil {
				r.RealRepos = append(r.RealRepos, row)
				continue
			}
		}
		r.Miss("real repository "+repo.Name, err)
	}
}

// realBugs investigates the real bugs (only those named in names, comma-separated, when it is not
// empty) with adi and, when ADI_REFERENCE names it, the reference tool; a bug that could not be
// investigated is reported under "Not measured". With answers set, every answer is written there.
func realBugs(ctx context.Context, env *bench.Env, names, answers string, progress func(string, ...any), r *bench.Report) {
	ref, err := bench.CheckReference()
	if err != nil {
		r.Miss("real bugs: the reference tool", err)
	}
	if ref == "" {
		fmt.Fprintln(os.Stderr, "adi-bench: "+bench.ReferenceSkipped)
	}
	progress("real bugs: building adi's CLI binary")
	exe, err := env.BuildADI(ctx)
	if err != nil {
		r.Miss("real bugs", err)
		return
	}
	for _, bug := range bench.RealBugs {
		if names != "" && !slices.Contains(strings.Split(names, ","), bug.Name) {
			continue
		}
		progress("real bugs: %s (%s)", bug.Name, bug.Func)
		row, err := env.RealBugBench(ctx, exe, ref, bug)
		if err != nil {
			r.Miss("real bug "+bug.Name, err)
			continue
		}
		r.RealBugs = append(r.RealBugs, row)
		if answers != "" {
			if err := row.WriteAnswers(answers); err != nil {
				r.Miss("the answers of real bug "+bug.Name, err)
			}
		}
	}
}
