package probe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/adi-bridge/adi/adi"
)

// Result is result.json: how the target ended and what the run found besides T and the FLTs.
type Result struct {
	Version         int               `json:"version"`
	Complete        bool              `json:"complete"`
	Exit            Exit              `json:"exit"`
	Calls           int               `json:"calls"`
	UnrecordedCalls int               `json:"unrecorded_calls"`
	Bytes           int64             `json:"bytes"`
	Limit           string            `json:"limit"`
	Conditions      []ConditionResult `json:"conditions"`
	Divergence      *Divergence       `json:"divergence"`
	DurationMS      float64           `json:"duration_ms"`
	Error           string            `json:"error,omitempty"`
}

// Exit says how the target ended.
type Exit struct {
	Kind      string         `json:"kind"` // "exit", "exception", "os_exit"
	Code      int            `json:"code"`
	Exception *ExitException `json:"exception"`
}

// ExitException is the uncaught exception that ended the target.
type ExitException struct {
	Type      string `json:"type"`
	Message   string `json:"message"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Traceback string `json:"traceback"`
}

// ConditionResult lists the invocations (numbers n of the condition's function, func#n) where a
// condition held, and the errors it raised (n, error text).
type ConditionResult struct {
	ID        int               `json:"id"`
	Hits      []int             `json:"hits"`
	Evaluated int               `json:"evaluated"`
	Errors    []json.RawMessage `json:"errors"`
}

// Divergence is the first call of a re-run that did not match the recording.
type Divergence struct {
	FID      string `json:"fid"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
}

// ConditionError is one failure of a condition: the invocation number n, and the exception text.
type ConditionError struct {
	N     int
	Error string
}

// DecodedErrors returns the condition's errors.
func (c *ConditionResult) DecodedErrors() []ConditionError {
	var out []ConditionError
	for _, raw := range c.Errors {
		var pair []json.RawMessage
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 {
			continue
		}
		var e ConditionError
		_ = json.Unmarshal(pair[0], &e.N)
		_ = json.Unmarshal(pair[1], &e.Error)
		out = append(out, e)
	}
	return out
}

// Recording is everything one probe run wrote.
type Recording struct {
	Trace  *adi.Trace
	FLTs   map[int]*adi.FLT // by index in T
	Result *Result          // nil when the process died before writing it
}

// The output files of a run (probe/PROTOCOL.md).
const (
	CallsFile  = "calls.jsonl"
	FLTFile    = "flt.jsonl"
	ResultFile = "result.json"
)

// Read decodes a run's output directory. A missing result.json, or a calls.jsonl whose last batch
// was cut off, makes a Partial trace rather than an error: what was written is kept.
func Read(dir string) (*Recording, error) {
	rec := &Recording{FLTs: map[int]*adi.FLT{}}
	res, err := readResult(filepath.Join(dir, ResultFile))
	if err != nil {
		return nil, err
	}
	rec.Result = res
	d := &decoder{codes: map[int]*code{}, trace: &adi.Trace{}}
	cut, err := eachRecord(filepath.Join(dir, CallsFile), d.callRecord)
	if err != nil {
		return nil, err
	}
	t := d.trace
	t.Partial = res == nil || !res.Complete || cut
	if res != nil {
		t.Unrecorded = res.UnrecordedCalls
		t.Limit = res.Limit
	}
	t.Index()
	rec.Trace = t
	fd := &fltDecoder{d: d, flts: rec.FLTs, stmts: map[int]map[int]string{}}
	if _, err := eachRecord(filepath.Join(dir, FLTFile), fd.record); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return rec, nil
}

func readResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read probe result: %w", err)
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("probe result %s is not valid JSON: %w", path, err)
	}
	return &r, nil
}

// eachRecord calls fn for every record of a batched JSON-lines file. It reports cut=true when the
// last line is incomplete (the writer died mid-batch); that line is skipped.
func eachRecord(path string, fn func(tag string, rec []json.RawMessage) error) (cut bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		if path[len(path)-len(CallsFile):] == CallsFile {
			return true, nil
		}
		return false, err
	}
	if err != nil {
		return false, fmt.Errorf("read probe output: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var batch [][]json.RawMessage
			if jerr := json.Unmarshal(line, &batch); jerr != nil {
				if err == io.EOF { // a last line without its newline: the writer was cut off
					return true, nil
				}
				return false, fmt.Errorf("probe output %s is corrupt: %w", path, jerr)
			}
			for _, rec := range batch {
				if len(rec) == 0 {
					continue
				}
				var tag string
				if err := json.Unmarshal(rec[0], &tag); err != nil {
					return false, fmt.Errorf("probe output %s: record without a tag", path)
				}
				if err := fn(tag, rec[1:]); err != nil {
					return false, fmt.Errorf("probe output %s: %s record: %w", path, tag, err)
				}
			}
		}
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("read probe output: %w", err)
		}
	}
}

// maxThreads bounds thread ids (the probe numbers threads from 0 as it meets them).
const maxThreads = 1 << 16

type code struct {
	fn       string
	file     string
	line     int
	argnames []string
}

type decoder struct {
	codes  map[int]*code
	trace  *adi.Trace
	codeOf []int // code id of each frame
}

// fields decodes the record's fields into ptrs, in order.
func fields(rec []json.RawMessage, ptrs ...any) error {
	if len(rec) < len(ptrs) {
		return fmt.Errorf("has %d fields, want %d", len(rec), len(ptrs))
	}
	for i, p := range ptrs {
		if err := json.Unmarshal(rec[i], p); err != nil {
			return fmt.Errorf("field %d: %w", i+1, err)
		}
	}
	return nil
}

func (d *decoder) frame(idx int) (*adi.Frame, error) {
	f := d.trace.Frame(idx)
	if f == nil {
		return nil, fmt.Errorf("unknown invocation %d", idx)
	}
	return f, nil
}

func (d *decoder) callRecord(tag string, rec []json.RawMessage) error {
	t := d.trace
	switch tag {
	case "code":
		var cid int
		c := &code{}
		if err := fields(rec, &cid, &c.fn, &c.file, &c.line, &c.argnames); err != nil {
			return err
		}
		d.codes[cid] = c
	case "thread":
		var tid int
		var name string
		if err := fields(rec, &tid, &name); err != nil {
			return err
		}
		if tid < 0 || tid > maxThreads {
			return fmt.Errorf("thread id %d out of range", tid)
		}
		for len(t.Threads) <= tid {
			t.Threads = append(t.Threads, "")
		}
		t.Threads[tid] = name
	case "call":
		var idx, cid, n, caller, tid, line int
		var args [][2]string
		var fp string
		if err := fields(rec, &idx, &cid, &n, &caller, &tid, &line, &args, &fp); err != nil {
			return err
		}
		if idx != len(t.Frames) {
			return fmt.Errorf("invocation %d out of order (expected %d)", idx, len(t.Frames))
		}
		c := d.codes[cid]
		if c == nil {
			return fmt.Errorf("invocation %d of unknown code %d", idx, cid)
		}
		f := adi.Frame{
			Index: idx, FID: adi.FID{Func: c.fn, Index: n}, Caller: caller, Thread: tid,
			File: c.file, Line: c.line, CallLine: line, ArgsFP: fp, Status: adi.Unfinished,
		}
		if caller >= 0 && caller < idx {
			f.Depth = t.Frames[caller].Depth + 1
		}
		f.Args = make([]adi.Arg, len(args))
		for i, a := range args {
			f.Args[i] = adi.Arg{Name: a[0], Value: a[1]}
		}
		t.Frames = append(t.Frames, f)
		d.codeOf = append(d.codeOf, cid)
	case "ret":
		var idx int
		var v string
		if err := fields(rec, &idx, &v); err != nil {
			return err
		}
		f, err := d.frame(idx)
		if err != nil {
			return err
		}
		f.Status, f.Return = adi.Returned, v
	case "exc":
		var idx, line int
		var typ, msg string
		if err := fields(rec, &idx, &typ, &msg, &line); err != nil {
			return err
		}
		f, err := d.frame(idx)
		if err != nil {
			return err
		}
		f.Status, f.Exception = adi.Raised, &adi.Exception{Type: typ, Message: msg, Line: line}
	case "yield":
		var idx int
		if err := fields(rec, &idx); err != nil {
			return err
		}
		f, err := d.frame(idx)
		if err != nil {
			return err
		}
		f.Yields++
	case "resume", "trunc":
		// resumptions are visible in FLTs; the limit is in result.json.
	default:
		return fmt.Errorf("unknown tag")
	}
	return nil
}

type fltDecoder struct {
	d     *decoder
	flts  map[int]*adi.FLT
	stmts map[int]map[int]string // code id → line → statement text
}

func (fd *fltDecoder) record(tag string, rec []json.RawMessage) error {
	switch tag {
	case "stmts":
		var cid int
		var table map[string]string
		if err := fields(rec, &cid, &table); err != nil {
			return err
		}
		m := make(map[int]string, len(table))
		for k, v := range table {
			n, err := strconv.Atoi(k)
			if err != nil {
				return fmt.Errorf("statement line %q", k)
			}
			m[n] = v
		}
		fd.stmts[cid] = m
	case "begin":
		var idx int
		if err := fields(rec, &idx); err != nil {
			return err
		}
		if _, err := fd.d.frame(idx); err != nil {
			return err
		}
		fd.flts[idx] = &adi.FLT{Frame: idx, Steps: []adi.Step{}}
	case "step":
		var idx, line int
		var changes [][4]*string
		var callees []int
		var loop [][2]int
		var ev struct {
			Resume bool            `json:"resume"`
			Yield  *string         `json:"yield"`
			Raise  json.RawMessage `json:"raise"`
		}
		if err := fields(rec, &idx, &line, &changes, &callees, &loop, &ev); err != nil {
			return err
		}
		flt := fd.flts[idx]
		if flt == nil {
			return fmt.Errorf("step of invocation %d before its begin", idx)
		}
		st := adi.Step{Line: line, Stmt: fd.stmts[fd.d.codeOf[idx]][line], Callees: callees, Resume: ev.Resume, Yield: ev.Yield}
		for _, c := range changes {
			ch := adi.Change{Name: deref(c[0]), Old: deref(c[1]), New: deref(c[2]), Kind: adi.ChangeKind(deref(c[3]))}
			st.Changes = append(st.Changes, ch)
		}
		for _, l := range loop {
			st.Loop = append(st.Loop, adi.LoopPos{Header: l[0], Iteration: l[1]})
		}
		if len(ev.Raise) > 0 && string(ev.Raise) != "null" {
			var r []string
			if err := json.Unmarshal(ev.Raise, &r); err != nil || len(r) != 2 {
				return fmt.Errorf("raise event: want [type, message]")
			}
			st.Raise = &adi.Exception{Type: r[0], Message: r[1], Line: line}
		}
		flt.Steps = append(flt.Steps, st)
	case "end":
		var idx, dropped int
		var kind string
		if err := fields(rec, &idx, &kind, &dropped); err != nil {
			return err
		}
		if flt := fd.flts[idx]; flt != nil {
			flt.Dropped = dropped
		}
	default:
		return fmt.Errorf("unknown tag")
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
