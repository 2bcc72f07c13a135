package adi

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/internal/faces"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got, in the CLI's words, with testdata/name, or rewrites that file under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	got = faces.CLI.Render(got) // the goldens show the CLI face's names of commands (package faces)
	p := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
	}
	want, err := os.ReadFile(p)
	require.NoError(t, err, "run: go test ./adi/ -update")
	assert.Equal(t, string(want), got)
}

// newTrace indexes frames into a Trace.
func newTrace(root string, frames ...Frame) *Trace {
	t := &Trace{Root: root, Frames: frames, Threads: []string{"MainThread"}}
	t.Index()
	return t
}

// ret builds a frame that returned value.
func ret(fn string, n, caller, callLine int, file string, line int, value string, args ...Arg) Frame {
	return Frame{N: int32(n), Caller: int32(caller), CallLine: int32(callLine),
		Arguments: &Arguments{Code: &Code{Func: fn, File: file, Line: int32(line)}, Args: args}, Status: Returned, Outcome: Returning(value)}
}

// fixture is the recording of this program (root /proj):
//
//	/proj/t.py                                  /proj/pkg/util.py
//	 1 import pkg.util                           1 class Helper:
//	 2                                           2     def run(self):
//	 3 def normalize(x):                         3         return run()
//	 4     y = x + 1                             4
//	 5     return y * 2                          5 def run():
//	 6                                           6     return 'ok'
//	 7 def fib(n):                               7
//	 8     if n < 2:                             8 def check(v):
//	 9         return n                          9     if v > 2:
//	10     return fib(n - 1) + fib(n - 2)       10         raise ValueError(f"bad value {v}")
//	11
//	12 def main():
//	13     a = normalize(20)
//	14     b = fib(3)
//	15     pkg.util.Helper().run()
//	16     try:
//	17         pkg.util.check(3)
//	18     except ValueError:
//	19         pass
//	20     return a + b + normalize(1)
//	21
//	22 main()
func fixture() *Trace {
	const t, u = "/proj/t.py", "/proj/pkg/util.py"
	check := ret("pkg.util:check", 1, 1, 17, u, 8, "", Arg{"v", "3"})
	check.Status, check.Exception = Raised, &Exception{Type: "ValueError", Message: "bad value 3", Line: 10}
	return newTrace("/proj",
		ret("t:<module>", 1, -1, 0, t, 1, "None"),
		ret("t:main", 1, 0, 22, t, 12, "48"),
		ret("t:normalize", 1, 1, 13, t, 3, "42", Arg{"x", "20"}),
		ret("t:fib", 1, 1, 14, t, 7, "2", Arg{"n", "3"}),
		ret("t:fib", 2, 3, 10, t, 7, "1", Arg{"n", "2"}),
		ret("t:fib", 3, 4, 10, t, 7, "1", Arg{"n", "1"}),
		ret("t:fib", 4, 4, 10, t, 7, "0", Arg{"n", "0"}),
		ret("t:fib", 5, 3, 10, t, 7, "1", Arg{"n", "1"}),
		ret("pkg.util:Helper.run", 1, 1, 15, u, 2, "'ok'", Arg{"self", "<pkg.util.Helper object at 0x…>"}),
		ret("pkg.util:run", 1, 8, 3, u, 5, "'ok'"),
		check,
		ret("t:normalize", 2, 1, 20, t, 3, "4", Arg{"x", "1"}),
	)
}

// mainFLT is the FLT of t:main#1 in fixture.
func mainFLT() *FLT {
	return &FLT{Frame: 1, Steps: []Step{
		{Line: 13, Stmt: "a = normalize(20)", Changes: []Change{{Name: "a", New: "42", Kind: New}}, Callees: []int{2}},
		{Line: 14, Stmt: "b = fib(3)", Changes: []Change{{Name: "b", New: "2", Kind: New}}, Callees: []int{3}},
		{Line: 15, Stmt: "pkg.util.Helper().run()", Callees: []int{8}},
		{Line: 16, Stmt: "try:"},
		{Line: 17, Stmt: "pkg.util.check(3)", Callees: []int{10}, Raise: &Exception{Type: "ValueError", Message: "bad value 3", Line: 17}},
		{Line: 18, Stmt: "except ValueError:"},
		{Line: 19, Stmt: "pass"},
		{Line: 20, Stmt: "return a + b + normalize(1)", Callees: []int{11}},
	}}
}

// normalizeFLT is the FLT of t:normalize#1 in fixture.
func normalizeFLT() *FLT {
	return &FLT{Frame: 2, Steps: []Step{
		{Line: 4, Stmt: "y = x + 1", Changes: []Change{{Name: "y", New: "21", Kind: New}}},
		{Line: 5, Stmt: "return y * 2"},
	}}
}
