package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/probe"
)

// Run is one execution of the Program by the probe.
type Run struct {
	Dir   string // the run's directory: config, probe output, stdout, stderr
	Debug bool   // ran under debugpy
	Light bool   // T holds values only for the functions the request named (RunRequest.Light)
	// Only lists the functions the run recorded, when it recorded some only (RunRequest.Only);
	// module bodies too.
	Only     []string
	Rec      *probe.Recording
	Stdout   []byte
	Stderr   []byte
	ExitCode int
	TimedOut bool
	// Live marks a live session's recording: its process runs on (or ended outside a run), so it
	// has no exit status to report and the answers about it are not of a failed target.
	Live bool
	// TimeLimit is the wall-clock limit the run was stopped at, when TimedOut.
	TimeLimit time.Duration
	Elapsed   time.Duration

	// files guards the run's directory between the session deleting it (discard) and the
	// process's last output being saved into it after the answer (runner.finish).
	files sync.Mutex
	gone  bool // the directory was deleted
}

// Failed reports whether the target did not exit with status 0 (never for a live recording).
func (r *Run) Failed() bool { return !r.Live && (r.ExitCode != 0 || r.TimedOut) }

// RunRequest says what a run records besides T.
type RunRequest struct {
	Trace      []probe.Selector
	Conditions []probe.Condition
	Expect     []probe.Expect
	// Stops are the places a run may stop at (execute): breakpoint conditions of a debug run, or,
	// with Exec, statements the probe runs itself before it ends the run.
	Stops []probe.Stop
	// TraceAll > 0 records eager FLTs: every invocation's, until that many steps are recorded.
	TraceAll int
	// TraceTests records the FLT of every test function pytest or unittest calls (probe config
	// "trace_tests"): the failing test is what an agent reads first.
	TraceTests bool
	// Control is the socket of the run's control server (an editor's run: watches added while it
	// runs; probe config "control"), or "".
	Control string
	// Light is for re-runs: T's values are recorded only for the functions the request names
	// (probe config "light"); the session's recording has the others.
	Light bool
	// StopsOnly is for a run whose answer is its stop (exec): no T and no FLT are written
	// (probe config "stops_only"), so a run that misses the stop has nothing else to tell.
	StopsOnly bool
	// Bare is for a first run: past its first bareAfter calls, calls deeper than bareDepth are
	// recorded bare (probe config "bare_after"; see adi.BareFP).
	Bare bool
	// ValuesOf names the invocations whose values a light run records in full (probe config
	// "values_of"): frames the recording holds bare.
	ValuesOf []probe.Selector
	// Only makes a re-run record the invocations of these functions only, and module bodies
	// (probe config "only"; nil: every function's): a call of any other function costs the
	// interpreter's call of the probe's hook and nothing more (sympy's re-run: 0.75 times the
	// time of one that records every call). replay.go compares such a run with the recording's
	// frames of those functions.
	Only []string
	// Output receives the target's output as it comes (may be nil): category is "stdout" or "stderr".
	Output func(category string, text []byte)
	// StmtLimit, for a run with an Exec stop whose probe ends the statement itself at its
	// timeout, is when the bridge kills the run if the probe could not (a statement holding the
	// interpreter's lock): counted from the statement's start (execStarted); 0 for none.
	StmtLimit time.Duration
}

// execStarted is the file the probe creates in the run directory as an Exec stop's statement
// starts (probe/PROTOCOL.md, "stops").
const execStarted = "exec.started"

// errStmtKilled is returned by record when it killed a run whose exec statement outlived
// RunRequest.StmtLimit.
var errStmtKilled = errors.New("the exec statement outlived its time limit and was killed")

// tailPoll is how often a recording run's calls.bin is read while it runs (probe.Tail): what the
// run wrote since the last read is decoded after it ends, before the answer (at 50 ms, up to 15 ms
// of requests' 200 ms first command).
const tailPoll = 10 * time.Millisecond

// maxOutput bounds the target output kept per stream; the rest is counted and dropped.
const maxOutput = 4 << 20

// stopGrace is how long a run asked to stop at its time limit (SIGTERM, which the probe handles by
// writing what it recorded and exiting) may take to exit before it is killed.
const stopGrace = 2 * time.Second

// stopRepeat is how often SIGTERM is sent again during stopGrace. Python acts on a signal between
// two bytecodes of the main thread: one that arrives just before that thread blocks (a sleep, a
// read) is noted and acted on only when the call returns, while a later one interrupts the call.
// The probe's handler ignores the repeats once it is stopping.
const stopRepeat = 200 * time.Millisecond

// runner starts probe runs of one Program into numbered directories under dir.
type runner struct {
	prog *Program
	dir  string
	log  hclog.Logger

	mu     sync.Mutex
	next   int
	bg     sync.WaitGroup // runs answered whose processes are still ending (finish)
	ending map[int]string // their pids, with their run tags
	// the run kept ready for the next run (ready.go); readying while one starts; closed once
	// the session closed (no more are started)
	ready    *readyRun
	readying chan struct{} // closed when keepReady's start in flight ends; nil when none
	readySeq int
	want     bool        // the session ran its program under the probe alone: it keeps a run ready
	idle     *time.Timer // starts the run kept ready once the session is idle (idleNow)
	closed   bool
}

// close ends the run kept ready (ready.go) and waits for the processes of the runs answered
// before they ended (a session closing), up to stopGrace; then it ends them and what they
// started, and waits for that.
func (rn *runner) close() {
	rn.mu.Lock()
	rn.closed = true
	if rn.idle != nil {
		rn.idle.Stop()
	}
	rn.mu.Unlock()
	rn.dropReady(nil)
	done := make(chan struct{})
	go func() {
		rn.bg.Wait()
		close(done)
	}()
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	rn.mu.Lock()
	for pid, tag := range rn.ending {
		rn.log.Warn("a run's process is still ending as its session closes; ending it", "pid", pid)
		dap.KillRun(pid, tag)
	}
	rn.mu.Unlock()
	<-done
}

func (rn *runner) newRunDir() (string, error) {
	rn.mu.Lock()
	n := rn.next
	rn.next++
	rn.mu.Unlock()
	d := filepath.Join(rn.dir, fmt.Sprintf("%04d", n))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return "", fmt.Errorf("create run directory (is the disk full? free space or set ADI_STATE_DIR): %w", err)
	}
	return d, nil
}

// prepare installs the probe, creates the next run directory and writes the run's config there.
func (rn *runner) prepare(req RunRequest) (probeDir, dir, cfgPath string, err error) {
	if probeDir, err = probe.Install(); err != nil {
		return "", "", "", err
	}
	if dir, err = rn.newRunDir(); err != nil {
		return "", "", "", err
	}
	if cfgPath, err = rn.config(dir, req); err != nil {
		return "", "", "", err
	}
	return probeDir, dir, cfgPath, nil
}

// config writes the probe config for a run into its directory.
func (rn *runner) config(dir string, req RunRequest) (string, error) {
	p := rn.prog
	cfg := probe.Config{
		Version: 1, Out: dir, Target: p.Target, Root: p.Root, Include: nonNil(p.Include), Exclude: nonNil(p.Exclude),
		ReprLimit: p.ReprLimit, Values: p.Values, Limits: p.Limits,
		Trace: nonNil(req.Trace), Conditions: nonNil(req.Conditions), Expect: nonNil(req.Expect), Stops: nonNil(req.Stops),
		Light: req.Light, StopsOnly: req.StopsOnly, TraceTests: req.TraceTests, Control: req.Control,
		ValuesOf: req.ValuesOf, Only: req.Only,
	}
	if req.Bare {
		cfg.BareAfter, cfg.BareDepth = bareAfter, bareDepth
	}
	if req.TraceAll > 0 {
		cfg.TraceAll = &probe.TraceAll{MaxSteps: req.TraceAll, MaxMS: EagerMS}
	}
	if p.Seed {
		seed := RandomSeed
		cfg.Seed = &seed
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "config.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return "", fmt.Errorf("write run config (is the disk full?): %w", err)
	}
	return path, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// proc is a started probe process of the program: its command, run tag (dap.RunTagVar), output
// pipes and captures, and done, which delivers cmd.Wait's error once its processes ended.
type proc struct {
	cmd            *exec.Cmd
	tag            string
	outP, errP     *pipe
	stdout, stderr *capture
	done           chan error
	exited         chan struct{} // closed when the process has exited
}

// alive reports whether the process has not exited yet.
func (pr *proc) alive() bool {
	select {
	case <-pr.exited:
		return false
	default:
		return !exitedNow(pr.cmd.Process.Pid) // (a process kept ready is not watched: start)
	}
}

// spawn starts `python [flags] args...` as the program's interpreter, in its directory and
// environment, in a process group of its own that is killed with the daemon, at a lower priority.
func (rn *runner) spawn(args []string) (*proc, error) {
	p := rn.prog
	cmd := exec.Command(p.Python, append(append([]string(nil), p.PyFlags...), args...)...)
	cmd.Dir = p.Dir
	pr := &proc{cmd: cmd, tag: dap.NewRunTag(), stdout: &capture{category: "stdout"},
		stderr: &capture{category: "stderr"}, done: make(chan error, 1), exited: make(chan struct{})}
	cmd.Env = append(append([]string(nil), p.Env...), dap.RunTagVar+"="+pr.tag)
	cmd.SysProcAttr = dap.NewGroupAttr()
	var outW, errW *os.File
	var err error
	if pr.outP, outW, err = newPipe(pr.stdout); err != nil {
		return nil, err
	}
	if pr.errP, errW, err = newPipe(pr.stderr); err != nil {
		pr.outP.f.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		pr.outP.f.Close()
		pr.errP.f.Close()
		return nil, fmt.Errorf("start %s: %w", p.Python, err)
	}
	lowerPriority(cmd.Process.Pid)
	return pr, nil
}

// start starts what a running process needs: a goroutine that waits for its exit (and holds an
// OS thread meanwhile, in waitid), then ends what it left behind and reaps it (done), and two that
// copy its output into its captures (each with a buffer of its own). A process kept ready, which
// prints nothing while it waits, does without them until it is taken.
func (pr *proc) start() {
	go func() {
		// Children the target leaves behind end with it (they would hold its output open).
		waitExited(pr.cmd.Process.Pid)
		close(pr.exited)
		endLeftovers(pr.cmd.Process.Pid, pr.tag)
		pr.done <- pr.cmd.Wait()
	}()
	go pr.outP.copy()
	go pr.errP.copy()
}

// killIdle ends a process that was never started (kept ready, not taken) and reaps it.
func (pr *proc) killIdle() {
	dap.KillRun(pr.cmd.Process.Pid, pr.tag)
	_ = syscall.Kill(-pr.cmd.Process.Pid, syscall.SIGKILL)
	_ = pr.cmd.Wait()
	pr.outP.f.Close()
	pr.errP.f.Close()
}

// record runs the program under the probe alone (no debugpy): the fast path for recording. It
// takes the run kept ready (ready.go) when there is one.
func (rn *runner) record(ctx context.Context, req RunRequest) (*Run, error) {
	probeDir, dir, cfgPath, err := rn.prepare(req)
	if err != nil {
		return nil, err
	}
	p := rn.prog
	start := time.Now()
	pr := rn.takeReady(ctx, cfgPath)
	kept := pr != nil
	if pr == nil {
		if pr, err = rn.spawn([]string{probe.Script(probeDir), cfgPath}); err != nil {
			return nil, err
		}
		pr.start()
	}
	pr.stdout.setSink(req.Output)
	pr.stderr.setSink(req.Output)
	cmd, tag, done := pr.cmd, pr.tag, pr.done
	outP, errP, stdout, stderr := pr.outP, pr.errP, pr.stdout, pr.stderr

	run := &Run{Dir: dir, Light: req.Light, Only: req.Only}
	timeout := time.NewTimer(p.Timeout)
	defer timeout.Stop()
	// T is decoded while the run writes it (a third of a second for 200,000 calls, on the other
	// core), so little is left to read when it ends.
	tail := probe.NewTail(dir)
	poll := time.NewTicker(tailPoll)
	defer poll.Stop()
	ended := time.NewTicker(resultPoll) // result.json written: the answer need not wait for the exit (ending.go)
	defer ended.Stop()
	var stmtC <-chan time.Time // armed once the exec statement has started (StmtLimit)
	var waitErr error
	early := -1 // the exit status result.json gives, when the run is answered before its process ends
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case <-ended.C:
			if code, ok := probeEnded(dir); ok {
				early = code
				break wait
			}
		case <-poll.C:
			tail.Poll()
			if req.StmtLimit > 0 && stmtC == nil {
				if _, err := os.Stat(filepath.Join(dir, execStarted)); err == nil {
					stmt := time.NewTimer(req.StmtLimit)
					defer stmt.Stop()
					stmtC = stmt.C
				}
			}
		case <-stmtC:
			dap.KillRun(cmd.Process.Pid, tag)
			<-done
			_ = os.RemoveAll(dir)
			return nil, errStmtKilled
		case <-timeout.C:
			run.TimedOut, run.TimeLimit = true, p.Timeout
			var cancelled bool
			waitErr, cancelled = stopRun(ctx, cmd.Process.Pid, tag, done)
			if cancelled {
				return nil, fmt.Errorf("run cancelled: %w", ctx.Err())
			}
			break wait
		case <-ctx.Done():
			dap.KillRun(cmd.Process.Pid, tag)
			<-done
			return nil, fmt.Errorf("run cancelled: %w", ctx.Err())
		}
	}
	run.Elapsed = time.Since(start)
	if early >= 0 {
		outP.drain(time.Second)
		errP.drain(time.Second)
		run.ExitCode = early
	} else {
		outP.rest(stopGrace)
		errP.rest(stopGrace)
		run.ExitCode = exitCode(cmd.ProcessState, waitErr)
	}
	run.Stdout, run.Stderr = stdout.bytes(), stderr.bytes()
	if err := saveOutput(run); err != nil {
		if early >= 0 {
			rn.finish(run, cmd, tag, done, p.Timeout-run.Elapsed, outP, errP, stdout, stderr)
		}
		return nil, err
	}
	if early >= 0 {
		rn.bg.Add(1)
		rn.mu.Lock()
		if rn.ending == nil {
			rn.ending = map[int]string{}
		}
		rn.ending[cmd.Process.Pid] = tag
		rn.mu.Unlock()
		go func() {
			defer func() {
				rn.mu.Lock()
				delete(rn.ending, cmd.Process.Pid)
				rn.mu.Unlock()
			}()
			defer rn.bg.Done()
			rn.finish(run, cmd, tag, done, p.Timeout-run.Elapsed, outP, errP, stdout, stderr)
		}()
	}
	rec, err := tail.Finish()
	if err != nil {
		return nil, err
	}
	releaseSoon() // the garbage of decoding the recording
	run.Rec = rec
	if run.Only != nil && rec.Result != nil && rec.Result.Engine == probe.EngineMonitoring {
		// that engine records every function (leaving some out would save it nothing), so the
		// re-run's T is the whole program's, and the replay check compares it with all of T
		run.Only = nil
	}
	markTimedOut(run)
	rn.log.Debug("run finished", "dir", dir, "exit", run.ExitCode, "elapsed", run.Elapsed, "frames", rec.Trace.Len(), "kept_ready", kept)
	warnInternal(rn.log, dir, rec)
	return run, nil
}

// stopRun ends a run whose time is up: it asks the probe to stop (SIGTERM to the run's process,
// not its group, repeated every stopRepeat: the probe writes what it recorded and exits, and the
// processes the target started end with it), and kills the whole run if it has not exited stopGrace later, or at once when ctx
// ends (cancelled is then true). done delivers cmd.Wait's error once the run's processes ended.
func stopRun(ctx context.Context, pid int, tag string, done <-chan error) (waitErr error, cancelled bool) {
	stopAsking := askToStop(pid)
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case err := <-done:
		stopAsking()
		return err, false
	case <-grace.C:
	case <-ctx.Done():
		cancelled = true
	}
	stopAsking()
	dap.KillRun(pid, tag)
	return <-done, cancelled
}

// askToStop sends process pid SIGTERM now and again every stopRepeat until the function it
// returns is called (which waits for the sending to end).
func askToStop(pid int) (stopAsking func()) {
	_ = syscall.Kill(pid, syscall.SIGTERM)
	quit, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		again := time.NewTicker(stopRepeat)
		defer again.Stop()
		for {
			select {
			case <-quit:
				return
			case <-again.C:
				_ = syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	}()
	return func() {
		close(quit)
		<-ended
	}
}

// markTimedOut tells a timed-out run's T that the run was stopped at its time limit
// (r.TimeLimit, kept in run.json for a session loaded from disk), which answers then note.
func markTimedOut(r *Run) {
	if !r.TimedOut || r.TimeLimit <= 0 || r.Rec == nil || r.Rec.Trace == nil {
		return
	}
	r.Rec.Trace.TimeLimitMS = max(r.TimeLimit.Milliseconds(), 1)
}

// warnInternal logs the bugs the probe caught in itself during a run (result.json's
// internal_errors): the recording may miss what they hit, and they are worth a report.
func warnInternal(log hclog.Logger, dir string, rec *probe.Recording) {
	if rec.Result != nil && len(rec.Result.InternalErrors) > 0 {
		log.Warn("the probe reported internal errors; the recording may be incomplete", "dir", dir, "errors", rec.Result.InternalErrors)
	}
}

func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return ps.ExitCode()
}

// capture keeps the first maxOutput bytes of a stream and forwards everything to sink.
type capture struct {
	category string
	sink     func(string, []byte)
	mu       sync.Mutex
	buf      bytes.Buffer
	dropped  int
}

// setSink makes sink receive what the stream writes from now on.
func (c *capture) setSink(sink func(string, []byte)) {
	c.mu.Lock()
	c.sink = sink
	c.mu.Unlock()
}

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	sink := c.sink
	room := maxOutput - c.buf.Len()
	if room >= len(p) {
		c.buf.Write(p)
	} else {
		if room > 0 {
			c.buf.Write(p[:room])
		}
		c.dropped += len(p) - max(room, 0)
	}
	c.mu.Unlock()
	if sink != nil {
		sink(c.category, p)
	}
	return len(p), nil
}

// len returns how many bytes are kept so far.
func (c *capture) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.Len()
}

func (c *capture) bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := append([]byte(nil), c.buf.Bytes()...)
	if c.dropped > 0 {
		b = append(b, fmt.Sprintf("\n[adi: %d more bytes of %s not kept]\n", c.dropped, c.category)...)
	}
	return b
}
