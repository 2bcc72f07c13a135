package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// RealRepoRow is one library's row of the "real repositories" table: adi driven through its real
// CLI binary, each command timed as a whole process, against the artifact's method.
type RealRepoRow struct {
	Repo     RealRepo
	Workload *Workload
	Calls    int           // calls in T (the first command's recording)
	Plain    time.Duration // the target command without adi (`python3 repro.py`), median
	// Cold is the first command (call-tree) with no daemon and a fresh state directory; Warm is
	// the first command of a new session on the daemon already running.
	Cold, Warm time.Duration
	// Rerun is `break FILE:FUNC#2`, whose FLT is not in the first recording; Reran says whether
	// it did run the target.
	Rerun time.Duration
	Reran bool
	// Nav is the median of the continue and prev commands answered from the recording (NavN of
	// them; NavReran more ran the target).
	Nav            time.Duration
	NavN, NavReran int
	Exec           time.Duration // exec FILE:FUNC#1 -l LINE -s STMT
	// PeerFLT and PeerExec are the artifact's method: a re-run recording FUNC#2, and a re-run
	// executing the statement in FUNC#1 (medians; 0 when the stand-in failed).
	PeerFLT, PeerExec time.Duration
	// FirstX, RerunX and ExecX are Cold, Rerun and Exec against the artifact, pair by pair: each
	// of their samples is followed by one run of the artifact's method (PeerFLT for the first
	// two, PeerExec for exec) and these are the medians of the samples' ratios to those runs, so
	// that the machine's drift over minutes cancels out (0 when no pair was measured).
	FirstX, RerunX, ExecX float64
	// DiskFirst is the session's directory after the first command, DiskSix after six; RSS is what
	// the session adds to the daemon's resident memory after the six (the daemon's VmRSS, read once
	// it has returned freed memory to the system, less an idle daemon's). It includes the one-time
	// warm-up of a new daemon's runtime (the GC's metadata, type caches, more of the binary paged
	// in), so RSSNext is what one more session adds: more sessions of the workload, each through
	// the same six commands, on the daemon that still serves the first (the daemon's VmRSS after
	// the last of them, less its VmRSS before the first, both settled, ÷ their number), of
	// DiskNext on disk after its first command; RSSNextLow and RSSNextHigh are the least and the
	// most one of them added. N sessions cost the daemon about RSS + (N-1) × RSSNext.
	DiskFirst, DiskSix, RSS int64
	DiskNext, RSSNext       int64
	RSSNextLow, RSSNextHigh int64
	// Failed lists the commands that did not answer, with their error line; Notes says what else
	// went wrong.
	Failed []string
	Notes  []string
	// broke says which kinds of command did not answer ("first", "rerun", "nav", "exec").
	broke map[string]bool
}

// Answered reports whether every command of the row answered.
func (r *RealRepoRow) Answered() bool { return len(r.Failed) == 0 }

// Broke reports whether a command of a kind ("first", "rerun", "nav", "exec") did not answer.
func (r *RealRepoRow) Broke(kind string) bool { return r.broke[kind] }

// check notes a command that did not answer under its kind.
func (r *RealRepoRow) check(kind string, res cliResult) {
	if res.Answered() {
		return
	}
	if r.broke == nil {
		r.broke = map[string]bool{}
	}
	r.broke[kind] = true
	r.Failed = append(r.Failed, res.Error())
}

// Failures returns the distinct failures of the row, each with how many commands failed so.
func (r *RealRepoRow) Failures() []string {
	var out []string
	n := map[string]int{}
	for _, f := range r.Failed {
		if n[f] == 0 {
			out = append(out, f)
		}
		n[f]++
	}
	for i, f := range out {
		if n[f] > 1 {
			out[i] = fmt.Sprintf("%s (%d times)", f, n[f])
		}
	}
	return out
}

// RealRepoBench measures one library: plain runs, an adi session through the CLI binary exe
// (first command cold and warm, a re-run, navigation, exec, disk and memory), and the artifact's
// method on the same frames. reps is how many times each repeated timing runs.
func (e *Env) RealRepoBench(ctx context.Context, exe string, r RealRepo, w *Workload, reps int) (*RealRepoRow, error) {
	d := e.debian()
	row := &RealRepoRow{Repo: r, Workload: w}
	plain, err := d.plainMedian(ctx, w, reps)
	if err != nil {
		return nil, err
	}
	row.Plain = plain
	var t realTimes
	if err := d.realSession(ctx, exe, r, w, reps, row, &t); err != nil {
		return nil, err
	}
	// More new daemons, each through its first command, the re-run and exec: the table's figures
	// for them are medians of realSamples (a single command varies by 10-35% from run to run,
	// and so does one pair's ratio).
	for i := 1; i < realSamples; i++ {
		if err := d.realAgain(ctx, exe, r, w, row, &t); err != nil {
			return nil, err
		}
	}
	row.Cold, row.Rerun, row.Exec = median(t.cold), median(t.rerun), median(t.exec)
	row.PeerFLT, row.PeerExec = median(t.peerFLT), median(t.peerExec)
	row.FirstX, row.RerunX, row.ExecX = medianF(t.firstX), medianF(t.rerunX), medianF(t.execX)
	if t.peerErr != nil {
		row.Notes = append(row.Notes, "the artifact's method: "+t.peerErr.Error())
	}
	return row, nil
}

// realSamples is how many new daemons go through the first command, the re-run and exec, each
// command followed by a run of the artifact's method.
const realSamples = 7

// debian returns a copy of e whose python is the Debian one the real repositories run under.
func (e *Env) debian() *Env {
	d := *e
	py := *e.Python
	py.Path = DebianPython
	d.Python = &py
	return &d
}

// plainMedian runs w once to warm the disk cache and the bytecode cache, then reps times, and
// returns the median.
func (e *Env) plainMedian(ctx context.Context, w *Workload, reps int) (time.Duration, error) {
	if _, err := e.runPython(ctx, w, w.Argv...); err != nil {
		return 0, err
	}
	var ds []time.Duration
	for i := 0; i < max(reps, 1); i++ {
		d, err := e.runPython(ctx, w, w.Argv...)
		if err != nil {
			return 0, err
		}
		ds = append(ds, d)
	}
	return median(ds), nil
}

// idleDaemonMemory is the resident memory of a daemon with no session (measured once per run of
// the benchmark): what a session's memory is counted from.
func (e *Env) idleDaemonMemory(ctx context.Context, exe string) (int64, error) {
	if e.idleRSS > 0 {
		return e.idleRSS, nil
	}
	state, err := os.MkdirTemp(e.Work, "state-idle-")
	if err != nil {
		return 0, err
	}
	c := &cli{exe: exe, state: state, dir: e.Work}
	defer c.stop(ctx)
	if _, err := c.run(ctx, "", "sessions"); err != nil {
		return 0, err
	}
	if e.idleRSS, err = c.settledMemory(ctx); err != nil {
		return 0, err
	}
	return e.idleRSS, nil
}

// realTimes collects the timings of commands run more than once for their medians: the first
// command with no daemon (cold), the re-run (`break FUNC#2`) and exec, each sample followed by a
// run of the artifact's method (peerFLT, peerExec) and its ratio to it (firstX, rerunX, execX).
type realTimes struct {
	cold, rerun, exec     []time.Duration
	peerFLT, peerExec     []time.Duration
	firstX, rerunX, execX []float64
	peerErr               error // the artifact's method failed: no more pairs
}

// pair runs the artifact's method (mode: PeerFLT on FUNC#2, PeerExec on FUNC#1) right after an
// adi command that took d, and adds the pair's ratio to x.
func (t *realTimes) pair(ctx context.Context, e *Env, w *Workload, mode string, d time.Duration, x *[]float64) {
	if t.peerErr != nil {
		return
	}
	n, into := 2, &t.peerFLT
	if mode == PeerExec {
		n, into = 1, &t.peerExec
	}
	p, err := e.peerFrame(ctx, w, mode, n, 1)
	if err != nil {
		t.peerErr = fmt.Errorf("%s: %w", mode, err)
		return
	}
	*into = append(*into, p)
	*x = append(*x, d.Seconds()/p.Seconds())
}

// newDaemonFirst starts the CLI on a fresh state directory and runs the first command, which
// starts a daemon (stop it with c.stop); it adds the command's time to t and returns the session
// and how many calls it recorded.
func (e *Env) newDaemonFirst(ctx context.Context, exe string, r RealRepo, w *Workload, row *RealRepoRow, t *realTimes) (c *cli, session string, calls int, err error) {
	state, err := os.MkdirTemp(e.Work, "state-"+r.Package+"-")
	if err != nil {
		return nil, "", 0, err
	}
	c = &cli{exe: exe, state: state, dir: w.Dir}
	first, err := c.run(ctx, "", "call-tree", r.command())
	if err != nil {
		return c, "", 0, err
	}
	row.check("first", first)
	calls, session, ok := parseRecorded(first.Stderr)
	if !ok {
		return c, "", 0, fmt.Errorf("the first command recorded nothing: %s", first.Error())
	}
	t.cold = append(t.cold, first.Time)
	t.pair(ctx, e, w, PeerFLT, first.Time, &t.firstX)
	return c, session, calls, nil
}

// realAgain drives one more new daemon over a fresh state directory through the first command,
// the re-run and exec, adds their times to t, and stops the daemon.
func (e *Env) realAgain(ctx context.Context, exe string, r RealRepo, w *Workload, row *RealRepoRow, t *realTimes) error {
	c, session, _, err := e.newDaemonFirst(ctx, exe, r, w, row, t)
	if c != nil {
		defer c.stop(ctx)
	}
	if err != nil {
		return err
	}
	if _, err := e.realRerun(ctx, c, session, r, w, row, t); err != nil {
		return err
	}
	return e.realExec(ctx, c, session, r, w, row, t)
}

// realRerun runs `break FUNC#2` (an FLT the first recording does not hold), then the artifact's
// method on the same frame, and adds their times to t.
func (e *Env) realRerun(ctx context.Context, c *cli, session string, r RealRepo, w *Workload, row *RealRepoRow, t *realTimes) (cliResult, error) {
	brk, err := c.run(ctx, session, "break", r.command(), r.File+":"+r.Func+"#2")
	if err != nil {
		return brk, err
	}
	row.check("rerun", brk)
	t.rerun = append(t.rerun, brk.Time)
	t.pair(ctx, e, w, PeerFLT, brk.Time, &t.rerunX)
	return brk, nil
}

// realExec runs `exec FUNC#1 -l LINE -s STMT`, then the artifact's exec, and adds their times to t.
func (e *Env) realExec(ctx context.Context, c *cli, session string, r RealRepo, w *Workload, row *RealRepoRow, t *realTimes) error {
	ex, err := c.run(ctx, session, "exec", r.command(), r.File+":"+r.Func+"#1", "-l", strconv.Itoa(w.Line), "-s", w.Stmt)
	if err != nil {
		return err
	}
	row.check("exec", ex)
	t.exec = append(t.exec, ex.Time)
	t.pair(ctx, e, w, PeerExec, ex.Time, &t.execX)
	return nil
}

// realSession drives a new daemon over a fresh state directory through six commands (call-tree,
// break FUNC#2, continue, prev, continue, exec FUNC#1), measures the session's disk and the
// daemon's memory, then more navigation and a new session's first command on the running
// daemon, and stops the daemon.
func (e *Env) realSession(ctx context.Context, exe string, r RealRepo, w *Workload, reps int, row *RealRepoRow, t *realTimes) error {
	c, session, calls, err := e.newDaemonFirst(ctx, exe, r, w, row, t)
	if c != nil {
		defer c.stop(ctx)
	}
	if err != nil {
		return err
	}
	row.Calls = calls
	if row.DiskFirst, err = diskUsage(c.sessionDir(session)); err != nil {
		return err
	}

	brk, err := e.realRerun(ctx, c, session, r, w, row, t)
	if err != nil {
		return err
	}
	row.Reran = brk.Reran
	var nav []time.Duration
	navigate := func(verbs ...string) error {
		for _, verb := range verbs {
			res, err := c.run(ctx, session, verb)
			if err != nil {
				return err
			}
			row.check("nav", res)
			switch {
			case res.Reran:
				row.NavReran++
			case res.Answered():
				nav = append(nav, res.Time)
			}
		}
		return nil
	}
	if err := navigate("continue", "prev", "continue"); err != nil {
		return err
	}
	if err := e.realExec(ctx, c, session, r, w, row, t); err != nil {
		return err
	}

	if row.DiskSix, err = diskUsage(c.sessionDir(session)); err != nil {
		return err
	}
	if row.RSS, err = c.settledMemory(ctx); err != nil {
		return err
	}
	idle, err := e.idleDaemonMemory(ctx, exe)
	if err != nil {
		return err
	}
	row.RSS = max(row.RSS-idle, 0)

	// More navigation for the median, unless it already failed (each try would re-run the target).
	for i := 0; i < max(reps, 1) && !row.Broke("nav"); i++ {
		if err := navigate("prev", "continue"); err != nil {
			return err
		}
	}
	row.Nav, row.NavN = median(nav), len(nav)

	// One more session of the workload on this daemon, which still serves the first: its first
	// command is the warm one, then the same five; what it adds to the daemon is a session's
	// marginal memory. What a single one adds swings by hundreds of kB from session to session
	// (which pages the collector's spans and metadata happen to need, and a swing up is paid back
	// by the next session's swing down), so moreSessions are added, one after the other, and
	// one more session's memory is what they added together divided by their number (the
	// daemon's VmRSS after the last, less before the first: the swings in between cancel); the
	// smallest and largest single additions are kept for the table, and the warm first command
	// is the median of theirs.
	target := r.File + ":" + r.Func
	var adds []int64
	var warms []time.Duration
	start, err := c.settledMemory(ctx)
	if err != nil {
		return err
	}
	before := start
	for i := 1; i <= moreSessions; i++ {
		next := fmt.Sprintf("bench-warm-%d", i)
		warm, err := c.run(ctx, "", "call-tree", "--session", next, r.command())
		if err != nil {
			return err
		}
		row.check("first", warm)
		warms = append(warms, warm.Time)
		if i == 1 {
			if row.DiskNext, err = diskUsage(c.sessionDir(next)); err != nil {
				return err
			}
		}
		for _, args := range [][]string{{"break", "--session", next, r.command(), target + "#2"}, {"continue", "--session", next},
			{"prev", "--session", next}, {"continue", "--session", next},
			{"exec", "--session", next, r.command(), target + "#1", "-l", strconv.Itoa(w.Line), "-s", w.Stmt}} {
			if _, err := c.run(ctx, next, args...); err != nil {
				return err
			}
		}
		after, err := c.settledMemory(ctx)
		if err != nil {
			return err
		}
		adds = append(adds, after-before)
		before = after
	}
	row.Warm = median(warms)
	row.RSSNext = max((before-start)/moreSessions, 0)
	row.RSSNextLow, row.RSSNextHigh = slices.Min(adds), slices.Max(adds)
	return nil
}

// moreSessions is how many more sessions of a workload are added to the daemon that serves its
// first, for the warm first command (their median) and one more session's memory (what they
// added together ÷ moreSessions).
const moreSessions = 5

// stop stops the state directory's daemon with `adi stop`, and ends it if it is still there
// (it is a process this benchmark started).
func (c *cli) stop(ctx context.Context) {
	pid, err := c.daemonPID()
	if err != nil {
		return
	}
	_, _ = c.run(ctx, "", "stop")
	for i := 0; i < 50; i++ {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
