package probe

import (
	"os"
	"path/filepath"
	"testing"

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

const sampleCalls = `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["call",0,0,1,-1,0,0,[],"fp0"],["code",1,"t:f","/p/t.py",3,["x","*args"]],["call",1,1,1,0,0,9,[["x","1"],["*args","()"]],"fp1"]]
[["ret",1,"2"],["call",2,1,2,0,0,10,[["x","5"],["*args","(1,)"]],"fp2"],["exc",2,"ValueError","bad x",4],["ret",0,"None"]]
`

const sampleFLT = `[["stmts",1,{"4":"if x > 3:\n    raise ValueError('bad x')","5":"return x + 1"}],["begin",2],["step",2,4,[["y",null,"1","new"]],[],[[3,1]],{"raise":["ValueError","bad x"]}],["end",2,"exception",0]]
`

func TestReadRecording(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile:  sampleCalls,
		FLTFile:    sampleFLT,
		ResultFile: `{"version":1,"complete":true,"exit":{"kind":"exit","code":0,"exception":null},"calls":3,"unrecorded_calls":0,"conditions":[{"id":0,"hits":[2],"evaluated":2,"errors":[[1,"NameError: y"]]}]}`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	tr := rec.Trace
	require.Equal(t, 3, tr.Len())
	assert.False(t, tr.Partial)
	assert.Equal(t, []string{"MainThread"}, tr.Threads)
	f := tr.Frames[2]
	assert.Equal(t, adi.FID{Func: "t:f", Index: 2}, f.FID)
	assert.Equal(t, 0, f.Caller)
	assert.Equal(t, 1, f.Depth)
	assert.Equal(t, 10, f.CallLine)
	assert.Equal(t, []adi.Arg{{Name: "x", Value: "5"}, {Name: "*args", Value: "(1,)"}}, f.Args)
	assert.Equal(t, adi.Raised, f.Status)
	assert.Equal(t, &adi.Exception{Type: "ValueError", Message: "bad x", Line: 4}, f.Exception)
	assert.Equal(t, adi.Returned, tr.Frames[1].Status)
	assert.Equal(t, "2", tr.Frames[1].Return)
	assert.Equal(t, []int{1, 2}, tr.Frames[0].Callees)

	flt := rec.FLTs[2]
	require.NotNil(t, flt)
	require.Len(t, flt.Steps, 1)
	st := flt.Steps[0]
	assert.Equal(t, "if x > 3:\n    raise ValueError('bad x')", st.Stmt)
	assert.Equal(t, []adi.Change{{Name: "y", New: "1", Kind: adi.New}}, st.Changes)
	assert.Equal(t, []adi.LoopPos{{Header: 3, Iteration: 1}}, st.Loop)
	assert.Equal(t, &adi.Exception{Type: "ValueError", Message: "bad x", Line: 4}, st.Raise)

	errs := rec.Result.Conditions[0].DecodedErrors()
	assert.Equal(t, []ConditionError{{N: 1, Error: "NameError: y"}}, errs)
}

// A run killed mid-write leaves no result.json and a cut last line: what was written is kept and
// the trace is marked partial.
func TestReadPartial(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		CallsFile: `[["code",0,"t:<module>","/p/t.py",1,[]],["thread",0,"MainThread"],["call",0,0,1,-1,0,0,[],"fp0"]]
[["ret",0,"No`,
	})
	rec, err := Read(dir)
	require.NoError(t, err)
	assert.Nil(t, rec.Result)
	assert.True(t, rec.Trace.Partial)
	require.Equal(t, 1, rec.Trace.Len())
	assert.Equal(t, adi.Unfinished, rec.Trace.Frames[0].Status)
}

func TestReadCorrupt(t *testing.T) {
	dir := writeFiles(t, map[string]string{CallsFile: "not json\n[]\n"})
	_, err := Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is corrupt")

	dir = writeFiles(t, map[string]string{CallsFile: `[["call",5,0,1,-1,0,0,[],""]]` + "\n"})
	_, err = Read(dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invocation 5 out of order (expected 0)")
}

// FuzzRead decodes arbitrary calls.jsonl content: it must never panic.
func FuzzRead(f *testing.F) {
	f.Add([]byte(sampleCalls), []byte(sampleFLT))
	f.Add([]byte(`[["call",0,0,1,7,0,0,[],""]]`+"\n"), []byte(`[["step",0,1,[],[],[],{}]]`+"\n"))
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
