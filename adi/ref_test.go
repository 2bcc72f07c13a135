package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
	}{
		{"f", Ref{Name: "f"}},
		{"f#2", Ref{Name: "f", Index: 2}},
		{"Class.method#3", Ref{Name: "Class.method", Index: 3}},
		{"t:f#1", Ref{Module: "t", Name: "f", Index: 1}},
		{"pkg.mod:outer.<locals>.inner", Ref{Module: "pkg.mod", Name: "outer.<locals>.inner"}},
		{"t:<module>#1", Ref{Module: "t", Name: "<module>", Index: 1}},
		{"/abs/file.py:Class.method#3", Ref{Path: "/abs/file.py", Name: "Class.method", Index: 3}},
		{"rel/path/file.py:func#2", Ref{Path: "rel/path/file.py", Name: "func", Index: 2}},
		{"file.py:func", Ref{Path: "file.py", Name: "func"}},
		{"/abs/file.py:123#3", Ref{Path: "/abs/file.py", Line: 123, Index: 3}},
		{"/abs/file.py:123", Ref{Path: "/abs/file.py", Line: 123}},
		{"t:12", Ref{Module: "t", Line: 12}},
		{"/my dir/t.py:f", Ref{Path: "/my dir/t.py", Name: "f"}},
		{"  t:f#007  ", Ref{Module: "t", Name: "f", Index: 7}},
		{"tests/test_x.py::TestC::test_m", Ref{Path: "tests/test_x.py", Name: "TestC.test_m", Node: true}},
		{"test_x.py::test_f", Ref{Path: "test_x.py", Name: "test_f", Node: true}},
		{"/abs/test_x.py::test_f#2", Ref{Path: "/abs/test_x.py", Name: "test_f", Index: 2, Node: true}},
		{"test_x.py::test_f[2-3]", Ref{Path: "test_x.py", Name: "test_f", Param: "2-3", Node: true}},
		{"test_x.py::A::B::test_f[a#1]", Ref{Path: "test_x.py", Name: "A.B.test_f", Param: "a#1", Node: true}},
	}
	for _, tt := range tests {
		got, err := ParseRef(tt.in)
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestParseRefErrors(t *testing.T) {
	tests := []struct{ in, err string }{
		{"", "empty reference; write FUNC, module:FUNC or FILE.py:FUNC, and add #N for a frame"},
		{"t:f#x", `"t:f#x": after '#' comes the invocation index, a whole number from 1 (e.g. t:f#1)`},
		{"t:f#0", `"t:f#0": after '#' comes the invocation index, a whole number from 1 (e.g. t:f#1)`},
		{"t:f#", `"t:f#": after '#' comes the invocation index, a whole number from 1 (e.g. t:f#1)`},
		{"a#b#1", `"a#b#1": '#' may appear only once, before the invocation index`},
		{"tests/t::test_x", `"tests/t::test_x": a pytest node id starts with the test's .py file, e.g. tests/test_x.py::test_f`},
		{"t.py::", `"t.py::": write a pytest node id as FILE.py::TEST or FILE.py::CLASS::TEST`},
		{"t.py::C::::f", `"t.py::C::::f": write a pytest node id as FILE.py::TEST or FILE.py::CLASS::TEST`},
		{"t.py::f#0", `"t.py::f#0": after '#' comes the invocation index, a whole number from 1 (e.g. t.py::f#1)`},
		{"t.py::f[]", `"t.py::f[]": a parametrized test is written TEST[ID], with the id pytest shows between the brackets`},
		{"t.py::f[1", `"t.py::f[1": a parametrized test is written TEST[ID], with the id pytest shows between the brackets`},
		{"t.py::f[1]#2", `"t.py::f[1]#2": give either pytest's [ID] or the invocation index #N, not both`},
		{"/abs/t.py", `"/abs/t.py" names a file but no function; write /abs/t.py:FUNC or /abs/t.py:LINE`},
		{":f", `":f": nothing before ':'; write module:FUNC or FILE.py:FUNC`},
		{"t:", `"t:": a function name or line number must follow ':'`},
		{"12", `"12": a line target needs a file, e.g. FILE.py:12`},
		{"t.py:0", `"t.py:0": line numbers run from 1 to 999999999`},
		{"t:f x", `"t:f x": a function name has no spaces; put a condition after the reference, not inside it`},
		{"a b:f", `"a b:f": "a b" is neither a module name nor a .py file`},
		{"/a\nb/t.py:f", `"/a\nb/t.py:f": the file path has a tab or line break`},
	}
	for _, tt := range tests {
		_, err := ParseRef(tt.in)
		require.EqualError(t, err, tt.err, tt.in)
		assert.ErrorIs(t, err, ErrBadInput)
	}
}

func TestRefString(t *testing.T) {
	for _, s := range []string{"f", "f#2", "t:f#1", "/abs/file.py:Class.method#3", "/abs/file.py:123#3", "rel/f.py:g",
		"tests/t.py::C::test_m", "t.py::test_f#2", "t.py::test_f[1-a]"} {
		r, err := ParseRef(s)
		require.NoError(t, err)
		assert.Equal(t, s, r.String())
	}
}

func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"f", "t:f#1", "/abs/file.py:Class.method#3", "rel/f.py:12#2", "a::b", "t.py::f[1]", "t.py::C::f#2", "#", ":", "t.py", "a b:c", "x#1#2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			assert.ErrorIs(t, err, ErrBadInput)
			return
		}
		again, err := ParseRef(r.String())
		require.NoError(t, err, "reparsing %q (from %q)", r.String(), s)
		assert.Equal(t, r, again)
	})
}
