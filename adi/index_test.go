package adi

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIndexFunctions: Index lists each function once, sorted, with its invocations in order of
// call (across the Codes that share its name), and Lookup answers from that list.
func TestIndexFunctions(t *testing.T) {
	tr := fixture()
	names := tr.Funcs()
	assert.True(t, slices.IsSorted(names), "Funcs is sorted: %v", names)
	assert.Equal(t, len(names), len(slices.Compact(slices.Clone(names))), "each function once: %v", names)
	total := 0
	for _, fn := range names {
		inv := tr.Invocations(fn)
		require.NotEmpty(t, inv, fn)
		for k, j := range inv {
			f := tr.Frames[j]
			assert.Equal(t, fn, f.Func)
			assert.Equal(t, int32(k+1), f.N, "%s: invocation %d is frame %d", fn, k+1, j)
			got, err := tr.Lookup(f.FID())
			require.NoError(t, err)
			assert.Equal(t, int(j), got)
		}
		assert.True(t, slices.IsSorted(inv), "%s: in order of call", fn)
		total += len(inv)
	}
	assert.Equal(t, tr.Len(), total, "every frame is one invocation")
	assert.Nil(t, tr.Invocations("t:nothing"))
	_, err := tr.Lookup(FID{Func: "t:nothing", Index: 1})
	assert.EqualError(t, err, `no function "t:nothing" in the recording`)
	_, err = tr.Lookup(FID{Func: "t:fib", Index: 99})
	assert.EqualError(t, err, "t:fib#99: t:fib was called 5 time(s); use an index from 1 to 5")

	// two Codes of one name (a module imported twice): one list, in order of call
	a, b := &Code{Func: "m:f", File: "/p/m.py", Line: 1}, &Code{Func: "m:f", File: "/p/m.py", Line: 1}
	two := newTrace("/p",
		Frame{Arguments: &Arguments{Code: a}, N: 1, Caller: -1}, Frame{Arguments: &Arguments{Code: &Code{Func: "m:g", File: "/p/m.py", Line: 5}}, N: 1, Caller: -1},
		Frame{Arguments: &Arguments{Code: b}, N: 2, Caller: 1}, Frame{Arguments: &Arguments{Code: a}, N: 3, Caller: -1})
	assert.Equal(t, []string{"m:f", "m:g"}, two.Funcs())
	assert.Equal(t, []int32{0, 2, 3}, two.Invocations("m:f"))
	assert.Equal(t, []int32{1}, two.Invocations("m:g"))
}

// TestCodeKind: every kind the probe writes reads back as itself, and a name adi does not know is
// a plain function's.
func TestCodeKind(t *testing.T) {
	for _, name := range []string{"", "generator", "coroutine", "async generator", "class"} {
		if got := ParseCodeKind(name).String(); got != name {
			t.Errorf("ParseCodeKind(%q).String() = %q", name, got)
		}
	}
	if k := ParseCodeKind("lambda"); k != PlainCode {
		t.Errorf("ParseCodeKind(lambda) = %d, want PlainCode", k)
	}
	if s := CodeKind(200).String(); s != "" {
		t.Errorf("CodeKind(200).String() = %q, want \"\"", s)
	}
}
