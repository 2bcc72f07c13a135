package adi

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// API answers write frames as FrameJSON; this is the JSON they wrote when Frame itself was
// marshalled (before it was packed), which must not change.
func TestFrameJSONUnchanged(t *testing.T) {
	tr := &Trace{Frames: []Frame{
		{N: 1, Caller: -1, Arguments: &Arguments{Code: &Code{Func: "m:<module>", File: "/p/m.py", Line: 1}, Args: []Arg{}}, Status: Returned, Outcome: Returning("None")},
		{N: 1, Caller: 0, Thread: 2, CallLine: 9,
			Arguments: &Arguments{Code: &Code{Func: "m:f", File: "/p/<m>&.py", Line: 3}, Args: []Arg{{Name: "x", Value: "<Add, not rendered> & 'é'"}}, ArgsFP: "#0011223344556677"}, Status: Raised,
			Outcome: Raising(&Exception{Type: "ValueError", Message: "bad <x>", Line: 4})},
		{N: 1, Caller: 1, Arguments: &Arguments{Code: &Code{Func: "m:g", File: "/p/m.py", Line: 5}}, Status: Unfinished},
	}}
	tr.Index()
	for range 3 {
		tr.AddYield(1, "")
	}
	frames := make([]FrameJSON, tr.Len())
	for i := range frames {
		frames[i] = tr.FrameJSON(i)
	}
	b, err := json.Marshal(frames)
	require.NoError(t, err)
	const want = `[{"index":0,"fid":{"func":"m:\u003cmodule\u003e","index":1},"caller":-1,"thread":0,"depth":0,"file":"/p/m.py","line":1,"call_line":0,"args":[],"status":"returned","return":"None","callees":[1]},` +
		`{"index":1,"fid":{"func":"m:f","index":1},"caller":0,"thread":2,"depth":1,"file":"/p/\u003cm\u003e\u0026.py","line":3,"call_line":9,"args":[{"name":"x","value":"\u003cAdd, not rendered\u003e \u0026 'é'"}],"args_fp":"#0011223344556677","status":"raised","exception":{"type":"ValueError","message":"bad \u003cx\u003e","line":4},"yields":3,"callees":[2]},` +
		`{"index":2,"fid":{"func":"m:g","index":1},"caller":1,"thread":0,"depth":2,"file":"/p/m.py","line":5,"call_line":0,"args":null,"status":"unfinished"}]`
	assert.Equal(t, want, string(b))

	var back []FrameJSON
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, frames, back)
	assert.Nil(t, tr.Callees(2))
	assert.Nil(t, tr.Callees(3))
	assert.Nil(t, tr.Callees(-1))
}

// A trace holds one Frame per call: its size is most of a recording's memory.
func TestFrameSize(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		assert.Equal(t, uintptr(32), unsafe.Sizeof(Frame{}))
	}
}

// Callees finds a frame's callees in order among those of the other frames, also when two
// threads interleave their calls in T.
func TestCalleesInterleaved(t *testing.T) {
	tr := &Trace{Frames: []Frame{
		{N: 1, Caller: -1}, {N: 2, Caller: -1, Thread: 1}, {N: 3, Caller: 0}, {N: 4, Caller: 1, Thread: 1},
		{N: 5, Caller: 0}, {N: 6, Caller: 3, Thread: 1}, {N: 7, Caller: 1, Thread: 1},
	}}
	tr.Index()
	assert.Equal(t, []int32{2, 4}, tr.Callees(0))
	assert.Equal(t, []int32{3, 6}, tr.Callees(1))
	assert.Equal(t, []int32{5}, tr.Callees(3))
	for _, i := range []int{-1, 2, 4, 5, 6, 7} {
		assert.Nil(t, tr.Callees(i), i)
	}
}
