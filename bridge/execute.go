package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

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
	fid := t.Frames[flt.Frame].FID
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
	line, visit := c.Line, max(c.Visit, 1)
	var out *adi.ExecResult
	if _, cached := s.flts[j]; !cached && line > 0 && !c.ThenContinue {
		out, err = s.execHere(ctx, j, line, visit, c.Stmt)
	} else {
		var flt *adi.FLT
		if flt, err = s.FLT(ctx, j); err != nil {
			return nil, err
		}
		if line, visit, err = execPoint(s.trace, flt, c.Line, c.Visit); err != nil {
			return nil, err
		}
		if c.ThenContinue {
			out, err = s.runAt(ctx, j, line, visit, c.Stmt, true)
		} else {
			out, err = s.execHere(ctx, j, line, visit, c.Stmt)
		}
	}
	if err != nil {
		return nil, err
	}
	out.FID, out.Line, out.Visit, out.Stmt = f.FID.String(), line, visit, c.Stmt
	return out, nil
}

// execHere re-runs the program under the probe alone (no debugger) with a stop that carries the
// statement: the probe runs it when invocation T[j] starts its visit-th step at line, writes
// exec.json and ends the run there (probe/PROTOCOL.md, config "stops"). The run steps T[j], so when
// the step is never reached (the run then goes to its end) the FLT it recorded gives execPoint's
// answer, and is cached like any FLT.
func (s *Session) execHere(ctx context.Context, j, line, visit int, stmt string) (*adi.ExecResult, error) {
	f := s.trace.Frames[j]
	stop := probe.Stop{ID: 0, Func: f.FID.Func, Index: f.FID.Index, Line: line, Visit: visit, Exec: stmt}
	req := RunRequest{Stops: []probe.Stop{stop}, Expect: []probe.Expect{s.expect(j)}, Light: true}
	run, err := s.record(ctx, "exec in "+f.FID.String(), req)
	if err != nil {
		return nil, err
	}
	res := run.Rec.Result
	if res != nil && res.Stopped == "exec" {
		out, err := readExecResult(run.Dir)
		s.discard(run) // exec changes nothing: its run leaves nothing on disk
		return out, err
	}
	if run.TimedOut {
		s.discard(run)
		return nil, fmt.Errorf("the run did not reach %s line %d, or the statement did not finish, within %v; raise the session timeout", f.FID, line, s.prog.Timeout)
	}
	rp := s.adopt(run) // the frame's FLT, recorded on the way, answers where the stop is
	flt, ok := s.flts[j]
	if !ok {
		return nil, adi.BadInputf("cannot stop in %s: %s; the program does not run the same way twice", f.FID, rp.why(s, run, j))
	}
	if _, _, err := execPoint(s.trace, flt, line, visit); err != nil {
		return nil, err
	}
	return nil, adi.NotFoundf("the run ended without reaching %s line %d visit %d (%s)", f.FID, line, visit, runSummary(run))
}

// readExecResult reads the exec.json the probe's evaluator left in run directory dir.
func readExecResult(dir string) (*adi.ExecResult, error) {
	b, err := os.ReadFile(filepath.Join(dir, execResultFile))
	if err != nil {
		return nil, fmt.Errorf("the probe left no exec result: %w", err)
	}
	var res struct {
		Output    string         `json:"output"`
		Value     *string        `json:"value"`
		Exception *adi.Exception `json:"exception"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		return nil, fmt.Errorf("the probe's exec result is not valid JSON: %w", err)
	}
	return &adi.ExecResult{Output: res.Output, Value: res.Value, Exception: res.Exception}, nil
}

// runAt re-runs the program under debugpy to the visit-th arrival of T[j] at line and runs stmt
// (exec --then-continue). With thenContinue the program then runs to its end and the result says how
// it ended. A session that used it keeps a debug run ready for the next one (standby.go).
func (s *Session) runAt(ctx context.Context, j, line, visit int, stmt string, thenContinue bool) (*adi.ExecResult, error) {
	f := s.trace.Frames[j]
	stop := probe.Stop{ID: 0, Func: f.FID.Func, Index: f.FID.Index, Line: line, Visit: visit}
	req := RunRequest{Stops: []probe.Stop{stop}, Expect: []probe.Expect{s.expect(j)}}
	ctx, cancel := context.WithTimeout(ctx, s.prog.Timeout)
	defer cancel()
	s.emit(Event{Session: s.ID, Kind: "run_started", Purpose: "exec in " + f.FID.String()})
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
		return nil, fmt.Errorf("the run did not reach %s line %d within %v; raise the session timeout: %w", f.FID, line, s.prog.Timeout, err)
	}
	if !ok {
		if d.lostAdapter() {
			return nil, fmt.Errorf("debugpy's adapter ended before the run reached %s line %d (%v); the run's processes were ended and the session is still usable: try again", f.FID, line, d.ad.Client.Err())
		}
		run, cerr := d.collect()
		if cerr == nil && run.Rec.Result != nil && run.Rec.Result.Divergence != nil {
			dv := run.Rec.Result.Divergence
			return nil, adi.BadInputf("the program did not replay the same way (%s: expected %s, got %s); cannot stop in %s", dv.FID, dv.Expected, dv.Actual, f.FID)
		}
		return nil, adi.NotFoundf("the run ended without reaching %s line %d visit %d", f.FID, line, visit)
	}
	frames, err := d.ad.Client.StackTrace(ctx, stopped.ThreadId, 1)
	if err != nil || len(frames) == 0 {
		return nil, fmt.Errorf("stopped in %s but debugpy gave no stack: %v", f.FID, err)
	}
	lit, _ := json.Marshal(stmt) // a JSON string is a valid Python string literal
	expr := fmt.Sprintf("__import__('adi_probe.execute', fromlist=['run']).run(%s)", lit)
	if _, err := d.ad.Client.Evaluate(ctx, expr, frames[0].Id, "repl"); err != nil {
		var re *dap.ResponseError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("the probe could not run the statement: %s", lastLine(re.Message))
		}
		return nil, err
	}
	out, err := readExecResult(d.run.Dir)
	if err != nil {
		return nil, err
	}
	if thenContinue {
		mark := d.stdout.len()
		if err := d.ad.Client.Continue(ctx, stopped.ThreadId); err != nil {
			return nil, fmt.Errorf("cannot continue after the statement: %w", err)
		}
		run, err := d.finish(ctx)
		if err != nil {
			return nil, err
		}
		out.Downstream = s.downstream(run, j, mark)
	}
	s.emit(Event{Session: s.ID, Kind: "run_finished", Run: filepath.Base(d.run.Dir), Purpose: "exec in " + f.FID.String()})
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
	if f := run.Rec.Trace.Frame(j); f != nil && f.FID == s.trace.Frames[j].FID {
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
