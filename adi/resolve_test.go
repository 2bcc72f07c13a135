package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveFunc(t *testing.T) {
	tests := []struct{ ref, want string }{
		{"t:fib", "t:fib"},
		{"fib", "t:fib"},
		{"<module>", "t:<module>"},
		{"run", "pkg.util:run"},               // exact qualname beats the suffix match Helper.run
		{"Helper.run", "pkg.util:Helper.run"}, // qualname
		{"pkg.util:Helper.run", "pkg.util:Helper.run"},
		{"/proj/pkg/util.py:run", "pkg.util:run"},
		{"/proj/pkg/util.py:Helper.run", "pkg.util:Helper.run"},
		{"pkg/util.py:check", "pkg.util:check"}, // relative to the root
		{"/proj/pkg/../t.py:main", "t:main"},
		{"/proj/t.py:1", "t:<module>"},
		{"/proj/t.py:4", "t:normalize"},
		{"t.py:9", "t:fib"},
		{"t.py:13", "t:main"},
		{"t.py:99", "t:main"}, // past main's end: attributed to the last def before it
		{"pkg.util:10", "pkg.util:check"},
		{"t:fib#2", "t:fib"},
	}
	tr := fixture()
	for _, tt := range tests {
		r, err := ParseRef(tt.ref)
		require.NoError(t, err, tt.ref)
		got, err := tr.ResolveFunc(r)
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tt.want, got, tt.ref)
	}
}

func TestResolveFrame(t *testing.T) {
	tests := []struct {
		ref  string
		want int
	}{
		{"t:fib#4", 6},
		{"fib#1", 3},
		{"/proj/t.py:fib#5", 7},
		{"/proj/t.py:8#2", 4},
		{"t.py:4#2", 11},
		{"normalize#2", 11},
	}
	tr := fixture()
	for _, tt := range tests {
		r, err := ParseRef(tt.ref)
		require.NoError(t, err, tt.ref)
		got, err := tr.ResolveFrame(r)
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tt.want, got, tt.ref)
	}
}

func TestResolveErrors(t *testing.T) {
	ambiguous := newTrace("/proj",
		ret("a:<module>", 1, -1, 0, "/proj/a.py", 1, "None"),
		ret("a:f", 1, 0, 9, "/proj/a.py", 3, "1"),
		ret("b:f", 1, 0, 10, "/proj/b.py", 3, "1"),
		ret("b:C.g", 1, 0, 11, "/proj/b.py", 6, "1"),
		ret("b:D.g", 1, 0, 12, "/proj/b.py", 9, "1"),
		ret("b:h", 1, 0, 12, "/proj/b.py", 9, "1"),
	)
	tests := []struct {
		tr      *Trace
		ref     string
		frame   bool
		err     string
		notFind bool
	}{
		{fixture(), "fob", false, `no function "fob" in the recording; closest: t:fib`, true},
		{fixture(), "t:nrmalize", false, `no function "t:nrmalize" in the recording; closest: t:normalize`, true},
		{fixture(), "t:run", false, `no function "t:run" in the recording; closest: pkg.util:Helper.run, pkg.util:run`, true},
		{fixture(), "zzz", false, `no function "zzz" in the recording (nothing of it was called, or it is not user code)`, true},
		{fixture(), "zz:f", false, `no module "zz" in the recording (nothing of it was called, or it is not user code)`, true},
		{fixture(), "pkg.utl:run", false, `no module "pkg.utl" in the recording; closest: pkg.util`, true},
		{fixture(), "/proj/x.py:f", false, `no recorded function is defined in /proj/x.py; closest: /proj/t.py`, true},
		{fixture(), "/proj/other/zzz.py:f", false, `no recorded function is defined in /proj/other/zzz.py (nothing of it was called, or it is not user code)`, true},
		{fixture(), "/proj/pkg/utils.py:f", false, `no recorded function is defined in /proj/pkg/utils.py; closest: /proj/pkg/util.py`, true},
		{fixture(), "pkg/util.py:1", false, "line 1 of /proj/pkg/util.py is before every recorded function there (the first is pkg.util:Helper.run at line 2)", true},
		{fixture(), "t:fib#9", true, "t:fib#9: t:fib was called 5 time(s); use an index from 1 to 5", true},
		{fixture(), "t:fib", true, "t:fib names a function, not a frame; add the invocation index, e.g. t:fib#1", false},
		{ambiguous, "f", false, `"f" matches 2 functions: a:f, b:f; write one of them in full`, false},
		{ambiguous, "g", false, `"g" matches 2 functions: b:C.g, b:D.g; write one of them in full`, false},
		{ambiguous, "b.py:10", false, "line 10 of /proj/b.py: b:D.g, b:h are all defined at line 9; name the function instead", false},
	}
	for _, tt := range tests {
		r, err := ParseRef(tt.ref)
		require.NoError(t, err, tt.ref)
		if tt.frame {
			_, err = tt.tr.ResolveFrame(r)
		} else {
			_, err = tt.tr.ResolveFunc(r)
		}
		require.EqualError(t, err, tt.err, tt.ref)
		if tt.notFind {
			assert.ErrorIs(t, err, ErrNotFound, tt.ref)
		} else {
			assert.ErrorIs(t, err, ErrBadInput, tt.ref)
		}
	}
}

// TestLineTarget: a frame's summary names it by "file:line#N" when its function is the only
// recorded one of its file that starts on that line, as a line reference resolves it; lambdas
// defined on one line cannot be named so.
func TestLineTarget(t *testing.T) {
	tr := newTrace("/proj",
		ret("m:f", 1, -1, 0, "/proj/a.py", 3, "1"),
		ret("m:<lambda>", 1, 0, 4, "/proj/a.py", 10, "2"),
		ret("m:g.<locals>.<lambda>", 1, 0, 4, "/proj/a.py", 10, "3"),
		ret("n:h", 1, 0, 5, "/proj/b.py", 10, "4"),
		ret("m:f", 2, 0, 6, "/proj/a.py", 3, "5"),
	)
	want := []string{"/proj/a.py:3#1", "", "", "/proj/b.py:10#1", "/proj/a.py:3#2"}
	for j, w := range want {
		assert.Equal(t, w, tr.FrameSummary(j).LineTarget, "frame %d", j)
		if w == "" {
			continue
		}
		ref, err := ParseRef(w)
		require.NoError(t, err)
		k, err := tr.ResolveFrame(ref)
		require.NoError(t, err)
		assert.Equal(t, j, k, "frame %d", j)
	}
	_, err := tr.ResolveFrame(Ref{Path: "/proj/a.py", Line: 10, Index: 1})
	assert.ErrorContains(t, err, "are all defined at line 10")
}
