package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	godap "github.com/google/go-dap"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/probe"
)

// execResultFile is where the probe's execute() leaves its result in the run directory.
const execResultFile = "exec.json"

// execPoint validates where an exec runs: the line (default: the frame's last line before it
// returned) and the visit, against the frame's FLT.
func execPoint(t *adi.Trace, flt *adi.FLT, line, visit int) (int, int, error) {
	fid := t.Frames[flt.Frame].FID()
	if len(flt.Steps) == 0 {
		return 0, 0, adi.NotFoundf("%s executed no statement that adi recorded; nothing to stop at", fid)
	}
	if visit <= 0 {
		visit = 1
	}
	if line == 0 {
		line = flt.Steps[len(flt.Steps)-1].Line
		visit = 0
		for _, st := range flt.Steps {
			if st.Line == line {
				visit++
			}
		}
		return line, visit, nil
	}
	seen := 0
	lines := map[int]bool{}
	var order []string
	for _, st := range flt.Steps {
		if st.Line == line {
			seen++
		}
		if !lines[st.Line] {
			lines[st.Line] = true
			order = append(order, fmt.Sprint(st.Line))
		}
	}
	switch {
	case seen == 0:
		if len(order) > 12 {
			order = append(order[:12], "…")
		}
		return 0, 0, adi.NotFoundf("%s never reaches line %d (it runs lines %s); pick one of those with -l", fid, line, strings.Join(order, ", "))
	case visit > seen:
		return 0, 0, adi.NotFoundf("%s reaches line %d only %d time(s); use -k from 1 to %d", fid, line, seen, seen)
	}
	return line, visit, nil
}

// exec runs a statement inside a past frame: execute(fid, stmt, lineno, k). It re-runs the program
// to the k-th step of the frame at the line and runs the statement there, in the frame.
//
// A plain exec re-runs the program under the probe alone (execHere): the probe runs the statement
// itself when the frame's stepper starts that step, then ends the run, so the exec costs about one
// recording run up to that point. When the frame's FLT is not cached and a line is given, that one
// run also checks the line: if the step is never reached, the FLT it recorded says why. Without a
// line (the frame's last line) the FLT is needed first. With --then-continue the program must go on
// after the statement, so the re-run is under debugpy (runAt) and continues to its end.
func (s *Session) exec(ctx context.Context, c adi.ExecCmd) (adi.Result, error) {
	if strings.TrimSpace(c.Stmt) == "" {
		return nil, adi.BadInputf("%s needs a statement to run (%s), e.g. print(x)", faces.Cmd("adi.execute"), faces.Param("adi.execute", "stmt"))
	}
	j, err := s.trace.ResolveFrame(c.Frame)
	if err != nil {
		return nil, err
	}
	f := s.trace.Frames[j]
	if s.isLive {
		return nil, adi.BadInputf("exec runs a statement in a frame of a re-run, and %s ran in live session %s's program, which cannot be re-run "+
			"(the invocation has returned; its FLT shows what it did); to run code in a frame of the live program, pause it there "+
			"(%s) and use %s", f.FID(), s.ID, faces.Cmd("live.set_breakpoint"), faces.Cmd("live.interact"))
	}
	line, visit := c.Line, max(c.Visit, 1)
	if c.Timeout < 0 {
		return nil, adi.BadInputf("exec's timeout must be a whole number of seconds from 1 (got %d)", c.Timeout)
	}
	limit := time.Duration(c.Timeout) * time.Second
	if limit == 0 {
		limit = adi.DefaultExecTimeout * time.Second
	}
	var out *adi.ExecResult
	if !s.flts.has(j) && line > 0 && !c.ThenContinue {
		out, err = s.execHere(ctx, j, line, visit, c.Stmt, limit)
	} else {
		var flt *adi.FLT
		if flt, err = s.FLT(ctx, j); err != nil {
			return nil, err
		}
		if line, visit, err = execPoint(s.trace, flt, c.Line, c.Visit); err != nil {
			return nil, err
		}
		if c.ThenContinue {
			out, err = s.runAt(ctx, j, line, visit, c.Stmt, limit, true)
		} else {
			out, err = s.execHere(ctx, j, line, visit, c.Stmt, limit)
		}
	}
	if err != nil {
		return nil, err
	}
	out.FID, out.Line, out.Visit, out.Stmt = f.FID().String(), line, visit, c.Stmt
	return out, nil
}

// execHere re-runs the program under the probe alone (no debugger) with a stop that carries the
// statement: the probe runs it when invocation T[j] starts its visit-th step at line, writes
// exec.json and ends the run there (probe/PROTOCOL.md, config "stops"). That run writes no T
// (config "stops_only": the stop is its answer, and building T's records is a tenth of a
// re-run's time on a program of many calls); one that misses the stop is run again with T and
// T[j]'s FLT, which give execPoint's answer or the reason the re-run did not reach T[j] (the FLT
// is cached like any). A statement that runs longer than limit is ended by the probe, which says
// where it was (or, if the probe cannot, killed by the bridge stopGrace later).
func (s *Session) execHere(ctx context.Context, j, line, visit int, stmt string, limit time.Duration) (*adi.ExecResult, error) {
	out, done, err := s.execRun(ctx, j, line, visit, stmt, limit, true)
	if done {
		return out, err
	}
	out, _, err = s.execRun(ctx, j, line, visit, stmt, limit, false)
	return out, err
}

// execRun is one run of execHere, stopsOnly or with T; done says whether it gave the answer
// (false: a stopsOnly run that missed the stop, which says nothing more).
func (s *Session) execRun(ctx context.Context, j, line, visit int, stmt string, limit time.Duration, stopsOnly bool) (out *adi.ExecResult, done bool, err error) {
	f := s.trace.Frames[j]
	stop := probe.Stop{ID: 0, Func: f.FID().Func, Index: f.FID().Index, Line: line, Visit: visit, Exec: stmt, Timeout: limit.Seconds()}
	req := RunRequest{Stops: []probe.Stop{stop}, Expect: []probe.Expect{s.expect(j)}, Light: true, StopsOnly: stopsOnly,
		StmtLimit: limit + stopGrace, Only: s.onlyFor([]int{j})}
	run, err := s.record(ctx, "exec in "+f.FID().String(), req)
	if errors.Is(err, errStmtKilled) {
		return nil, true, s.stmtTimedOut(j, line, limit, nil)
	}
	if err != nil {
		return nil, true, err
	}
	res := run.Rec.Result
	if res != nil && res.Stopped == "exec" {
		out, where, err := readExecResult(run.Dir)
		s.discard(run) // exec changes nothing: its run leaves nothing on disk
		if err == nil && where != nil {
			return nil, true, s.stmtTimedOut(j, line, limit, where)
		}
		return out, true, err
	}
	if run.TimedOut {
		s.discard(run)
		return nil, true, fmt.Errorf("the run did not reach %s line %d, or the statement did not finish, within %v; raise the session timeout", f.FID(), line, s.prog.Timeout)
	}
	if stopsOnly {
		s.discard(run) // it missed the stop: the run with T says why
		return nil, false, nil
	}
	rp := s.adopt(run, nil) // the frame's FLT, recorded on the way, answers where the stop is
	flt, ok := s.flts.get(j)
	if !ok {
		return nil, true, adi.BadInputf("cannot stop in %s: %s; the program does not run the same way twice", f.FID(), rp.why(s, run, j))
	}
	if _, _, err := execPoint(s.trace, flt, line, visit); err != nil {
		return nil, true, err
	}
	return nil, true, adi.NotFoundf("the run ended without reaching %s line %d visit %d (%s)", f.FID(), line, visit, runSummary(run))
}

// execWhere is where an exec statement was when the probe ended it at its time limit (exec.json's
// "timeout"): the innermost frame outside the probe; File is "<adi exec>" inside the statement.
type execWhere struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Func string `json:"func"`
}

// stmtFile is the file name of the statement's own code in the probe (evaluate.FILENAME).
const stmtFile = "<adi exec>"

// readExecResult reads the exec.json the probe's evaluator left in run directory dir; where is set
// when the probe ended the statement at its time limit.
func readExecResult(dir string) (out *adi.ExecResult, where *execWhere, err error) {
	b, err := os.ReadFile(filepath.Join(dir, execResultFile))
	if err != nil {
		return nil, nil, fmt.Errorf("the probe left no exec result: %w", err)
	}
	var res struct {
		Output    string         `json:"output"`
		Value     *string        `json:"value"`
		Exception *adi.Exception `json:"exception"`
		Traceback []string       `json:"traceback"`
		Changed   [][2]string    `json:"changed"`
		Timeout   *execWhere     `json:"timeout"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, nil, fmt.Errorf("the probe's exec result is not valid JSON: %w", err)
	}
	out = &adi.ExecResult{Output: res.Output, Value: res.Value, Exception: res.Exception}
	if len(res.Traceback) > 0 {
		out.Traceback = res.Traceback
	}
	for _, c := range res.Changed {
		out.Changed = append(out.Changed, adi.Assignment{Name: c[0], Value: c[1]})
	}
	return out, res.Timeout, nil
}

// stmtTimedOut is the error of an exec whose statement ran longer than limit in frame T[j] at
// line: where the frame was and, when known, where the statement was running. Its kind is a
// deadline, so the API answers with the timeout code.
func (s *Session) stmtTimedOut(j, line int, limit time.Duration, where *execWhere) error {
	f := s.trace.Frames[j]
	at := ""
	switch {
	case where == nil || where.Line == 0:
	case where.File == stmtFile:
		at = fmt.Sprintf(" (it was running line %d of the statement)", where.Line)
	default:
		at = fmt.Sprintf(" (it was running %s:%d, in %s)", s.shortPath(where.File), where.Line, where.Func)
	}
	return adi.Errorf(context.DeadlineExceeded, "the statement ran longer than %s in %s at %s:%d%s; it was stopped and the session is still usable: "+
		"raise the limit with --timeout SECONDS (timeout over the API and MCP)", seconds(limit), f.FID(), s.shortPath(f.File), line, at)
}

// shortPath writes a file under the session's root relative to it, others as they are.
func (s *Session) shortPath(file string) string {
	if rel, err := filepath.Rel(s.prog.Root, file); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return file
}

// seconds writes a duration as whole seconds ("10 s"), or with a fraction when it has one.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}

// runAt re-runs the program under debugpy to the visit-th arrival of T[j] at line and runs stmt
// (exec --then-continue). With thenContinue the program then runs to its end and the result says how
// it ended. A session that used it keeps a debug run ready for the next one (standby.go). A
// statement that runs longer than limit ends the run (its processes are killed).
func (s *Session) runAt(ctx context.Context, j, line, visit int, stmt string, limit time.Duration, thenContinue bool) (_ *adi.ExecResult, err error) {
	f := s.trace.Frames[j]
	stop := probe.Stop{ID: 0, Func: f.FID().Func, Index: f.FID().Index, Line: line, Visit: visit}
	req := RunRequest{Stops: []probe.Stop{stop}, Expect: []probe.Expect{s.expect(j)}}
	ctx, cancel := context.WithTimeout(ctx, s.prog.Timeout)
	defer cancel()
	s.emit(Event{Session: s.ID, Kind: "run_started", Purpose: "exec in " + f.FID().String()})
	defer func() {
		if err != nil { // every run_started has its run_finished, so that progress shown by clients ends
			s.emit(Event{Session: s.ID, Kind: "run_finished", Purpose: "exec in " + f.FID().String(), Error: err.Error()})
		}
	}()
	configure := func(ctx context.Context, c *dap.Client) error {
		cond := fmt.Sprintf("__import__('adi_probe').hit(%d)", stop.ID)
		bps, err := c.SetBreakpoints(ctx, f.File, []godap.SourceBreakpoint{{Line: line, Condition: cond}})
		if err != nil {
			return err
		}
		if len(bps) == 1 && !bps[0].Verified {
			return fmt.Errorf("debugpy cannot stop at %s:%d: %s", f.File, line, bps[0].Message)
		}
		return nil
	}
	var d *debugRun
	if sb := s.takeStandby(ctx); sb != nil {
		var err error
		if d, err = s.rn.useStandby(ctx, sb, req, configure); err != nil {
			s.log.Debug("the standby run could not be used; starting a run", "error", err)
		}
	}
	if d == nil {
		var err error
		if d, err = s.rn.startDebug(ctx, req, configure); err != nil {
			return nil, err
		}
	}
	defer func() { // after d.close: exec changes nothing, so its run leaves nothing on disk
		if !d.run.TimedOut { // (a run cut by its time limit stays, to show where it was)
			s.discard(d.run)
		}
	}()
	defer d.close()
	stopped, ok, err := d.waitStop(ctx)
	if err != nil {
		d.close()
		return nil, fmt.Errorf("the run did not reach %s line %d within %v; raise the session timeout: %w", f.FID(), line, s.prog.Timeout, err)
	}
	if !ok {
		if d.lostAdapter() {
			return nil, fmt.Errorf("debugpy's adapter ended before the run reached %s line %d (%v); the run's processes were ended and the session is still usable: try again", f.FID(), line, d.dr.Client.Err())
		}
		run, cerr := d.collect()
		if cerr == nil && run.Rec.Result != nil && run.Rec.Result.Divergence != nil {
			dv := run.Rec.Result.Divergence
			return nil, adi.BadInputf("the program did not replay the same way (%s: expected %s, got %s); cannot stop in %s", dv.FID, dv.Expected, dv.Actual, f.FID())
		}
		return nil, adi.NotFoundf("the run ended without reaching %s line %d visit %d", f.FID(), line, visit)
	}
	frames, err := d.dr.Client.StackTrace(ctx, stopped.ThreadId, 1)
	if err != nil || len(frames) == 0 {
		return nil, fmt.Errorf("stopped in %s but debugpy gave no stack: %v", f.FID(), err)
	}
	lit, _ := json.Marshal(stmt) // a JSON string is a valid Python string literal
	expr := fmt.Sprintf("__import__('adi_probe.execute', fromlist=['run']).run(%s)", lit)
	evalCtx, cancelEval := context.WithTimeout(ctx, limit)
	_, err = d.dr.Client.Evaluate(evalCtx, expr, frames[0].Id, "repl")
	cancelEval()
	if err != nil && ctx.Err() == nil && errors.Is(evalCtx.Err(), context.DeadlineExceeded) {
		return nil, s.stmtTimedOut(j, line, limit, nil) // d.close (deferred) ends the run
	}
	if err != nil {
		var re *dap.ResponseError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("the probe could not run the statement: %s", lastLine(re.Message))
		}
		return nil, err
	}
	out, _, err := readExecResult(d.run.Dir)
	if err != nil {
		return nil, err
	}
	if thenContinue {
		mark := d.stdout.len()
		if err := d.dr.Client.Continue(ctx, stopped.ThreadId); err != nil {
			return nil, fmt.Errorf("cannot continue after the statement: %w", err)
		}
		run, err := d.finish(ctx)
		if err != nil {
			return nil, err
		}
		out.Downstream = s.downstream(run, j, mark)
	}
	s.emit(Event{Session: s.ID, Kind: "run_finished", Run: filepath.Base(d.run.Dir), Purpose: "exec in " + f.FID().String()})
	s.startStandby() // for the next exec --then-continue
	return out, nil
}

// downstreamTail bounds the output shown after an exec --then-continue.
const downstreamTail = 2000

// downstream describes how a run that continued after exec ended: frame j's outcome and the exit.
func (s *Session) downstream(run *Run, j, mark int) *adi.Downstream {
	ds := &adi.Downstream{FrameStatus: adi.Unfinished, ExitCode: run.ExitCode, Before: s.base.ExitCode}
	if run.TimedOut {
		ds.ExitCode = -1
	}
	if f := run.Rec.Trace.Frame(j); f != nil && f.FID() == s.trace.Frames[j].FID() {
		ds.FrameStatus, ds.FrameReturn, ds.FrameException = f.Status, f.Return, f.Exception
	}
	tail := string(run.Stdout[min(mark, len(run.Stdout)):]) + string(run.Stderr)
	if len(tail) > downstreamTail {
		tail = "…" + tail[len(tail)-downstreamTail:]
	}
	ds.Tail = tail
	return ds
}

// lastLine returns the last non-empty line of a traceback text.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
