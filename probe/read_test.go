package probe

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	return dir
}

// Invocations are written when they end (callret, callexc), or open (call) when a batch is written
// while they run, their outcome following later (ret, exc): the reader places them by idx. Values
// are reprs, or ints, bools and None standing for themselves; a null fingerprint is "=" + the reprs.
// (callsBin turns these JSON lines into calls.bin.)
const sampleCalls = `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["code",1,"t:f","/p/t.py",3,["x","*args"]],["callret",1,1,0,0,9,[1,"()"],"fp1",2],["call",0,0,-1,0,0,[],null]]
[["callexc",2,1,0,0,10,[5,"(1,)"],"fp2","ValueError","bad x",4],["ret",0,null]]
`

const sampleFLT = `[["stmts",1,{"4":"if x > 3:\n    raise ValueError('bad x')","5":"return x + 1"}],["begin",2],["step",2,4,[["y",null,1,"new"],["z",null,null,"new"],["w","[1]",null,"del"],["v",null,"'a'","mod"]],[],[[3,1]],{"raise":["ValueError","bad x"]}],["end",2,"exception",0]]`

func TestReadRecording(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile:  callsBin(t, sampleCalls),
		FLTFile:    fltBin(t, sampleFLT),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3,"unrecorded_calls":0,"conditions":[{"id":0,"hits":[2],"evaluated":2,"errors":[[1,"NameError: y"]]}]}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	tr := rec.Trace
	require.Equal(t, 3, tr.Len())
	assert.False(t, tr.Partial)
	assert.Equal(t, []string{"MainThread"}, tr.Threads)
	f := tr.Frames[2]
	assert.Equal(t, adi.FID{Func: "t:f", Index: 2}, f.FID())
	assert.Equal(t, int32(0), f.Caller)
	assert.Equal(t, 1, tr.Depth(2))
	assert.Equal(t, int32(10), f.CallLine)
	assert.Equal(t, []adi.Arg{{Name: "x", Value: "5"}, {Name: "*args", Value: "(1,)"}}, f.Args)
	assert.Equal(t, adi.Raised, f.Status)
	assert.Equal(t, &adi.Exception{Type: "ValueError", Message: "bad x", Line: 4}, f.Exception)
	assert.Equal(t, "=", tr.Frames[0].ArgsFP)
	assert.Equal(t, []adi.Arg{}, tr.Frames[0].Args, "no arguments is an empty list: the API writes [], not null")
	assert.Equal(t, "None", tr.Frames[0].Return)
	assert.Equal(t, adi.Returned, tr.Frames[1].Status)
	assert.Equal(t, "2", tr.Frames[1].Return)
	assert.Equal(t, []int32{1, 2}, tr.Callees(0))

	flt := rec.FLTs[2]
	require.NotNil(t, flt)
	require.Len(t, flt.Steps, 1)
	st := flt.Steps[0]
	assert.Equal(t, "if x > 3:\n    raise ValueError('bad x')", st.Stmt)
	assert.Equal(t, []adi.Change{{Name: "y", New: "1", Kind: adi.New}, {Name: "z", New: "None", Kind: adi.New},
		{Name: "w", Old: "[1]", Kind: adi.Deleted}, {Name: "v", Old: "None", New: "'a'", Kind: adi.Modified}}, st.Changes)
	assert.Equal(t, []adi.LoopPos{{Header: 3, Iteration: 1}}, st.Loop)
	assert.Equal(t, &adi.Exception{Type: "ValueError", Message: "bad x", Line: 4}, st.Raise)

	errs := rec.Result.Conditions[0].DecodedErrors()
	assert.Equal(t, []ConditionError{{N: 1, Error: "NameError: y"}}, errs)
}

// A run killed mid-write leaves no result.json and a cut last line: what was written is kept and
// the trace is marked partial.
func TestReadPartial(t *testing.T) {
	full := callsBin(t, `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["call",0,0,-1,0,0,[],"fp0"]]
[["ret",0,"None"]]`)
	first := len(callsBin(t, `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["call",0,0,-1,0,0,[],"fp0"]]`))
	// cut anywhere in the second batch (its length or its data): the first batch is kept
	for cut := first; cut < len(full); cut++ {
		dir := writeFiles(t, map[string]string{CallsFile: full[:cut]})
		rec, err := Read(dir)
		require.NoError(t, err)
		assert.Nil(t, rec.Result)
		assert.True(t, rec.Trace.Partial)
		require.Equal(t, 1, rec.Trace.Len())
		assert.Equal(t, adi.Unfinished, rec.Trace.Frames[0].Status)
	}
	// cut in the header or the first batch: an empty partial trace
	for cut := 0; cut < first; cut++ {
		rec, err := Read(writeFiles(t, map[string]string{CallsFile: full[:cut]}))
		require.NoError(t, err)
		assert.True(t, rec.Trace.Partial)
		assert.Equal(t, 0, rec.Trace.Len())
	}
}

func TestReadCorrupt(t *testing.T) {
	dir := writeFiles(t, map[string]string{CallsFile: "not json\n[]\n"})
	_, err := Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a probe file")

	dir = writeFiles(t, map[string]string{CallsFile: callsMagic + "\x01\x00\x00\x00N"})
	_, err = Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is corrupt")

	dir = writeFiles(t, map[string]string{CallsFile: callsBin(t, `[["call",0,7,-1,0,0,[],""]]`)})
	_, err = Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invocation 0 of unknown code 7")

	dir = writeFiles(t, map[string]string{CallsFile: callsBin(t, `[["bare",0,7,-1,0,1]]`)})
	_, err = Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "bare call of unknown code 7")

	dir = writeFiles(t, map[string]string{CallsFile: callsBin(t, `[["code",0,"t:f","/p/t.py",1,[]],["call",0,0,0,0,0,[],""]]`)})
	_, err = Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invocation 0 has caller 0")

	dir = writeFiles(t, map[string]string{CallsFile: callsBin(t, `[["code",1073741824,"t:f","/p/t.py",1,[]]]`)})
	_, err = Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "code id 1073741824 out of range")
}

// n counts a func's invocations in idx order, whatever order the records come in; an invocation
// written twice (open by a flush in one thread while another thread ended it) keeps its outcome.
func TestReadOrderAndDuplicates(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile: callsBin(t, `[["code",0,"t:<module>","/p/t.py",1,[]],["code",1,"t:g","/p/t.py",5,["k"]],["code",2,"t:g","/p/t.py",9,["k"]],["thread",0,"MainThread"],["thread",1,"w"]]
[["callret",3,2,-1,1,0,["'c'"],"=c","3"],["call",1,1,0,0,2,["'a'"],"=a"],["callret",2,1,0,0,3,["'b'"],"=b",2]]
[["call",0,0,-1,0,0,[],"="],["callret",1,1,0,0,2,["'a'"],"=a",true],["yield",1,"0",7],["yield",1,"'z'",7],["yield",2,null,4],["ret",0,"None"]]`),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":4}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	tr := rec.Trace
	require.Equal(t, 4, tr.Len())
	assert.False(t, tr.Partial)
	var fids []string
	for _, f := range tr.Frames {
		fids = append(fids, f.FID().String()+" "+f.Status.String()+" "+f.Return)
	}
	assert.Equal(t, []string{"t:<module>#1 returned None", "t:g#1 returned True", "t:g#2 returned 2", "t:g#3 returned 3"}, fids)
	assert.Equal(t, []adi.Arg{{Name: "k", Value: "'a'"}}, tr.Frames[1].Args)
	assert.Equal(t, 2, tr.Yields(1))
	assert.Equal(t, "'z'", tr.LastYield(1)) // the last value yielded; none when not rendered (a bare call's)
	assert.Equal(t, 1, tr.Yields(2))
	assert.Equal(t, "", tr.LastYield(2))
	assert.Equal(t, uint16(1), tr.Frames[3].Thread)
	assert.Equal(t, 0, tr.Depth(3))
	assert.Equal(t, []int32{1, 2}, tr.Callees(0))
	assert.Equal(t, []int32{1, 2, 3}, tr.Invocations("t:g"))
}

// A gap (an idx that no record names, e.g. a writer killed while another thread held an idx) ends
// T there: later frames are dropped and the trace is partial, and their FLT records are skipped.
func TestReadGap(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile:  callsBin(t, `[["code",0,"t:f","/p/t.py",1,[]],["call",0,0,-1,0,0,[],"="],["callret",2,0,0,0,3,[],"=","1"],["callret",3,0,2,0,3,[],"=","1"]]`),
		FLTFile:    fltBin(t, `[["stmts",0,{"2":"pass"}],["begin",0],["step",0,2,[],[2],[],{}],["begin",2],["step",2,2,[],[],[],{}],["end",2,"return",0]]`),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":4}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	assert.True(t, rec.Trace.Partial)
	require.Equal(t, 1, rec.Trace.Len())
	assert.Equal(t, adi.Unfinished, rec.Trace.Frames[0].Status)
	require.Contains(t, rec.FLTs, 0)
	assert.NotContains(t, rec.FLTs, 2)
}

// An FLT's begin record may carry the frame's arguments rendered in full and its end record the
// value returned (T holds summaries past a function's render budget, and "<not rendered: during
// an import>" for calls made during an import): the FLT keeps them, raw scalars as their reprs.
func TestReadFLTFullValues(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile: callsBin(t, `[["code",0,"t:f","/p/t.py",1,["box","k"]],["callret",0,0,-1,0,3,["\u0000","\u0000"],"~import","\u0000"],`+
			`["callret",1,0,-1,0,3,["<Box, not rendered>",2],"#0000000000000000","<Box, not rendered>"]]`),
		FLTFile: fltBin(t, `[["stmts",0,{"2":"return Box(box.v + k)"}],["begin",0,["Box(v=1)",2]],["step",0,2,[],[],[],{}],["end",0,"return",0,"Box(v=3)"],`+
			`["begin",1],["step",1,2,[],[],[],{}],["end",1,"return",0]]`),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":2}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	require.Contains(t, rec.FLTs, 0)
	assert.Equal(t, []adi.Arg{{Name: "box", Value: Unrendered}, {Name: "k", Value: Unrendered}}, rec.Trace.Frames[0].Args)
	assert.Equal(t, Unrendered, rec.Trace.Frames[0].Return)
	assert.Equal(t, []adi.Arg{{Name: "box", Value: "Box(v=1)"}, {Name: "k", Value: "2"}}, rec.FLTs[0].Args)
	require.NotNil(t, rec.FLTs[0].Return)
	assert.Equal(t, "Box(v=3)", *rec.FLTs[0].Return)
	require.Contains(t, rec.FLTs, 1)
	assert.Nil(t, rec.FLTs[1].Args) // as in T
	assert.Nil(t, rec.FLTs[1].Return)
	v := rec.Trace.FLTView(rec.FLTs[0])
	assert.Equal(t, []adi.Arg{{Name: "box", Value: "Box(v=1)"}, {Name: "k", Value: "2"}}, v.Frame.Args)
	assert.Equal(t, "Box(v=3)", v.Frame.Return)
}

// An eager or test FLT abandoned past its time budget (end kind "abandoned") is dropped with its
// steps: the frame has no FLT, so a command that needs one re-runs.
func TestReadAbandonedFLT(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile: callsBin(t, `[["code",0,"t:f","/p/t.py",1,[]],["callret",0,0,-1,0,0,[],"=",1],["callret",1,0,0,0,2,[],"=",2]]`),
		FLTFile: fltBin(t, `[["stmts",0,{"2":"pass"}],["begin",0],["begin",1],["step",1,2,[],[],[],{}],["end",1,"return",0],`+
			`["step",0,2,[],[1],[],{}],["end",0,"abandoned",0]]`),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":2}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	assert.NotContains(t, rec.FLTs, 0)
	require.Contains(t, rec.FLTs, 1)
	assert.Len(t, rec.FLTs[1].Steps, 1)
	assert.Equal(t, adi.Returned, rec.Trace.Frames[0].Status)
}

// FuzzRead decodes arbitrary calls.bin and flt.bin content: it must never panic.
func FuzzRead(f *testing.F) {
	f.Add([]byte(callsBin(f, sampleCalls)), []byte(fltBin(f, sampleFLT)))
	f.Add([]byte(callsBin(f, `[["call",0,0,7,0,0,[],""]]`)), []byte(fltBin(f, `[["step",0,1,[],[],[],{}]]`)))
	f.Add([]byte(callsBin(f, `[["code",0,"t:f","/p/t.py",1,["a","*b"]],["call",0,0,-1,0,0,[1,"()"],null],["bare",1,0,0,0,"\u0001"],["bare",2,0,1,0,3]]`)), []byte(fltBin(f, `[]`)))
	f.Add([]byte(callsBin(f, `[["code",0,"t:f","/p/t.py",1,["a"]],["callret",1,0,0,0,3,[1],null,1],["call",0,0,-1,0,0,["2"],"=2"],["exc",0,"E","m",2],["callexc",5,0,9,0,0,[],"","E","m",1]]`)), []byte(fltBin(f, `[["begin",1],["step",1,1,[["a",null,1,"new"]],[0],[[1,2]],{"yield":3,"resume":true}]]`)))
	f.Add([]byte(callsBin(f, `[["code",0,"t:f","/p/t.py",1,[]],["fork",0],["callret",0,0,-1,0,0,[],null,"None"],["fork",-1]]`)), []byte(fltBin(f, `[]`)))
	f.Fuzz(func(t *testing.T, calls, flt []byte) {
		dir := t.TempDir()
		_ = os.WriteFile(filepath.Join(dir, CallsFile), calls, 0o644)
		_ = os.WriteFile(filepath.Join(dir, FLTFile), flt, 0o644)
		rec, err := Read(dir)
		if err == nil && rec.Trace == nil {
			t.Fatal("no error and no trace")
		}
	})
}

// TestTailReadsWhileWritten writes calls.bin the way the probe does, a batch at a time, with a
// Poll between every piece (a header alone, half a batch): the Tail decodes what is complete, waits
// for the rest, and Finish gives the same recording as Read of the finished directory.
func TestTailReadsWhileWritten(t *testing.T) {
	whole := callsBin(t, sampleCalls)
	result := `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3,"unrecorded_calls":0}`
	dir := t.TempDir()
	path := filepath.Join(dir, CallsFile)
	tail := NewTail(dir)
	tail.Poll() // no file yet
	cuts := []int{3, len(callsMagic), len(callsMagic) + 2, len(callsMagic) + 30, len(whole) - 5, len(whole)}
	for _, n := range cuts {
		require.NoError(t, os.WriteFile(path, []byte(whole[:n]), 0o644))
		tail.Poll()
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ResultFile), []byte(result), 0o644))
	got, err := tail.Finish()
	require.NoError(t, err)
	want, err := Read(dir)
	require.NoError(t, err)
	assert.Equal(t, want.Trace, got.Trace)
	assert.False(t, got.Trace.Partial)
	assert.Equal(t, 3, got.Trace.Len())

	// a batch cut off at the end (the writer died) is skipped and the trace is partial
	require.NoError(t, os.WriteFile(path, []byte(whole[:len(whole)-5]), 0o644))
	cut := NewTail(dir)
	cut.Poll()
	rec, err := cut.Finish()
	require.NoError(t, err)
	assert.True(t, rec.Trace.Partial)
}

// A generator numbered at its creation ("made", 3.12+) takes the call record of its first start;
// one never started reads NotStarted, without arguments, and renders "not started".
func TestReadMadeGenerators(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile:  callsBin(t, `[["code",0,"t:<module>","/p/t.py",1,[]],["code",1,"t:gen","/p/t.py",5,["n"],"generator"],["thread",0,"MainThread"],["made",1,1,0,0,7],["made",2,1,0,0,8],["call",2,1,0,0,8,[3],null],["ret",2,"None"],["callret",0,0,-1,0,0,[],null,"None"]]`),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	tr := rec.Trace
	require.Equal(t, 3, tr.Len())
	assert.False(t, tr.Partial)
	var got []string
	for _, f := range tr.Frames {
		got = append(got, fmt.Sprintf("%s %s %d %d %v", f.FID(), f.Status, f.Caller, f.CallLine, f.Args))
	}
	assert.Equal(t, []string{"t:<module>#1 returned -1 0 []", "t:gen#1 not started 0 7 []", "t:gen#2 returned 0 8 [{n 3}]"}, got)
}

// TestTailSnapshotReadsOnlyNewBytes reads a run while it is written, as an editor's session does
// at every stop: each Snapshot decodes only the batches written since the one before (counted by
// Decoded) and gives the recording Read gives of the directory then; Finish after them too.
func TestTailSnapshotReadsOnlyNewBytes(t *testing.T) {
	whole := callsBin(t, sampleCalls)
	first := len(callsMagic) + 4 + int(binary.LittleEndian.Uint32([]byte(whole[len(callsMagic):])))
	require.Less(t, first, len(whole), "sampleCalls is two batches")
	dir := t.TempDir()
	path := filepath.Join(dir, CallsFile)
	require.NoError(t, os.WriteFile(filepath.Join(dir, FLTFile), []byte(fltBin(t, sampleFLT)), 0o644))
	tail := NewTail(dir)

	require.NoError(t, os.WriteFile(path, []byte(whole[:first]), 0o644))
	got, err := tail.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, int64(first-len(callsMagic)), tail.Decoded())
	want, err := Read(dir)
	require.NoError(t, err)
	assert.Equal(t, want.Trace, got.Trace)
	assert.Equal(t, 2, got.Trace.Len())
	assert.True(t, got.Trace.Partial)

	require.NoError(t, os.WriteFile(path, []byte(whole), 0o644))
	got, err = tail.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, int64(len(whole)-len(callsMagic)), tail.Decoded(), "the second snapshot decodes the second batch only")
	want, err = Read(dir)
	require.NoError(t, err)
	assert.Equal(t, want.Trace, got.Trace)
	assert.Equal(t, want.FLTs, got.FLTs)
	assert.Equal(t, 3, got.Trace.Len())

	again, err := tail.Snapshot() // nothing new: nothing decoded, the same recording
	require.NoError(t, err)
	assert.Equal(t, int64(len(whole)-len(callsMagic)), tail.Decoded())
	assert.Equal(t, got.Trace, again.Trace)

	require.NoError(t, os.WriteFile(filepath.Join(dir, ResultFile), []byte(`{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3,"unrecorded_calls":0}`), 0o644))
	fin, err := tail.Finish()
	require.NoError(t, err)
	want, err = Read(dir)
	require.NoError(t, err)
	assert.Equal(t, want.Trace, fin.Trace)
	assert.Equal(t, want.FLTs, fin.FLTs)
	assert.False(t, fin.Trace.Partial)
}

// TestSnapshotWaitsForFLTEnd: the probe writes a batch's calls, then its FLT records, so a
// snapshot can find a frame ended in T whose FLT lacks its end (and last steps); it reads flt.bin
// again until the end is there, and then has the whole FLT.
func TestSnapshotWaitsForFLTEnd(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile: callsBin(t, `[["code",0,"t:f","/p/t.py",1,[]],["callret",0,0,-1,0,0,[],"=",1]]`),
		FLTFile:   fltBin(t, `[["stmts",0,{"2":"a = 1","3":"return a"}],["begin",0],["step",0,2,[],[],[],{}]]`),
	})
	go func() { // the probe's second write, a moment later
		time.Sleep(20 * time.Millisecond)
		_ = os.WriteFile(filepath.Join(dir, FLTFile), []byte(fltBin(t, `[["stmts",0,{"2":"a = 1","3":"return a"}],`+
			`["begin",0],["step",0,2,[],[],[],{}],["step",0,3,[],[],[],{}],["end",0,"return",0]]`)), 0o644)
	}()
	rec, err := NewTail(dir).Snapshot()
	require.NoError(t, err)
	require.Contains(t, rec.FLTs, 0)
	assert.True(t, rec.FLTs[0].Ended)
	assert.Equal(t, []int{2, 3}, []int{rec.FLTs[0].Steps[0].Line, rec.FLTs[0].Steps[1].Line})

	// an FLT of a frame still running is read as it is, at once
	dir = writeFiles(t, map[string]string{
		CallsFile: callsBin(t, `[["code",0,"t:f","/p/t.py",1,[]],["call",0,0,-1,0,0,[],"="]]`),
		FLTFile:   fltBin(t, `[["stmts",0,{"2":"a = 1"}],["begin",0],["step",0,2,[],[],[],{}]]`),
	})
	rec, err = NewTail(dir).Snapshot()
	require.NoError(t, err)
	assert.Equal(t, adi.Unfinished, rec.Trace.Frames[0].Status)
	require.Contains(t, rec.FLTs, 0)
	assert.False(t, rec.FLTs[0].Ended)
	assert.Len(t, rec.FLTs[0].Steps, 1)
}

// A bare call (config bare_after) is read with adi.NotRecorded for its values, adi.BareFP for its
// fingerprint and no caller line; a raw value it returned is still itself; a test record gives a
// test frame its pytest node id.
func TestReadBareCalls(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile: callsBin(t, `[["code",0,"t:f","/p/t.py",1,["box","k"]],["callret",0,0,-1,0,0,[1,2],null,"None"],`+
			`["callret",1,0,0,0,0,["\u0001","\u0001"],"~bare","\u0001"],["callret",2,0,0,0,0,["\u0001","\u0001"],"~bare",7],`+
			`["test",0,"t.py::test_f[a]"],["bare",3,0,0,0,"\u0001"],["bare",4,0,3,0,9]]`),
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":5}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	require.Equal(t, 5, rec.Trace.Len())
	// the short "bare" record (idx, cid, caller, tid, value) reads as the long one does, and the
	// bare calls of one code share their Arguments
	for i, want := range []string{adi.NotRecorded, "9"} {
		b := rec.Trace.Frames[3+i]
		assert.Equal(t, rec.Trace.Frames[1].Args, b.Args)
		assert.Equal(t, adi.BareFP, b.ArgsFP)
		assert.Equal(t, want, b.Return)
		assert.Equal(t, adi.Returned, b.Status)
		assert.Equal(t, int32(4+i), b.N)
		assert.Equal(t, int32(0), b.CallLine)
		assert.True(t, b.Bare())
	}
	assert.Same(t, rec.Trace.Frames[3].Arguments, rec.Trace.Frames[4].Arguments)
	assert.Equal(t, int32(3), rec.Trace.Frames[4].Caller)
	f := rec.Trace.Frames[1]
	assert.Equal(t, []adi.Arg{{Name: "box", Value: adi.NotRecorded}, {Name: "k", Value: adi.NotRecorded}}, f.Args)
	assert.Equal(t, adi.NotRecorded, f.Return)
	assert.True(t, f.Bare())
	assert.True(t, f.Unchecked())
	assert.Equal(t, int32(0), f.CallLine)
	assert.Equal(t, "7", rec.Trace.Frames[2].Return)
	assert.False(t, rec.Trace.Frames[0].Bare())
	assert.Equal(t, "t.py::test_f[a]", rec.Trace.NodeID(0))
	assert.Equal(t, "", rec.Trace.NodeID(1))
}

// TestReadForks: fork records give T how often the run forked and the frame it first forked in
// (-1 when none was recorded, or past T's end).
func TestReadForks(t *testing.T) {
	for _, tc := range []struct {
		records  string
		forks    int
		forkedIn int32
	}{
		{`["fork",1],["fork",-1]`, 2, 1},
		{`["fork",-1]`, 1, -1},
		{`["fork",7]`, 1, -1},
		{``, 0, 0},
	} {
		recs := `[["code",0,"t:<module>","/p/t.py",1,[]],["code",1,"t:main","/p/t.py",3,[]],` +
			`["callret",1,1,0,0,9,[],null,"None"],["callret",0,0,-1,0,0,[],null,"None"]`
		if tc.records != "" {
			recs += "," + tc.records
		}
		dir := writeFiles(t, map[string]string{CallsFile: callsBin(t, recs+"]"),
			ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":2}`})
		rec, err := Read(dir)
		require.NoError(t, err, tc.records)
		assert.Equal(t, tc.forks, rec.Trace.Forks, tc.records)
		assert.Equal(t, tc.forkedIn, rec.Trace.ForkedIn, tc.records)
	}
	dir := writeFiles(t, map[string]string{CallsFile: callsBin(t, `[["fork",-2]]`)})
	_, err := Read(dir)
	require.ErrorContains(t, err, "fork record: invocation index -2 out of range")
}
