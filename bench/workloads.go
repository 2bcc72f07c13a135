package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/adi-bridge/adi/target"
)

// Workload is one program the benchmark runs, and the function its command latencies use.
type Workload struct {
	Name string // for tables: "fib(25)"
	Dir  string // working directory
	// Argv is what follows the interpreter: ["fib25.py"] or ["-m", "pytest", ...].
	Argv []string
	// Include lists globs of library files that count as user code (adi's include).
	Include []string
	// Env adds KEY=VALUE pairs to every run of the workload, whatever runs it.
	Env []string
	// Func is the function commands navigate (adi's module:qualname), File its source file and
	// Line a line of it that every invocation runs (where exec stops).
	Func string
	File string
	Line int
	// Stmt is what exec runs there.
	Stmt string
}

// Command is the target command line as an agent types it.
func (w *Workload) Command() string {
	parts := []string{"python"}
	for _, a := range w.Argv {
		parts = append(parts, target.Quote(a))
	}
	return strings.Join(parts, " ")
}

// Qualname is Func without its module.
func (w *Workload) Qualname() string {
	_, q, _ := strings.Cut(w.Func, ":")
	return q
}

// PeerTarget is the frame FILE:FUNC#n in the artifact's target form.
func (w *Workload) PeerTarget(n int) string { return fmt.Sprintf("%s:%s#%d", w.File, w.Qualname(), n) }

const fibSource = `def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print(fib(25))
`

// loopSource runs one frame of 2n+3 statements (n from argv, default 50,000: about 100k). With a
// second argument it then prints "loop-done" and sleeps that many seconds (for LogpointCost).
const loopSource = `import sys
import time


def loop(n):
    s = 0
    for i in range(n):
        s += i
    return s


print(loop(int(sys.argv[1]) if len(sys.argv) > 1 else 50000))
if len(sys.argv) > 2:
    print("loop-done", flush=True)
    time.sleep(float(sys.argv[2]))
`

// Fib is fib(25): 242,785 calls of one small function.
func (e *Env) Fib() (*Workload, error) {
	dir := filepath.Join(e.Work, "fib")
	if err := writeFile(dir, "fib25.py", fibSource); err != nil {
		return nil, err
	}
	return &Workload{Name: "fib(25)", Dir: dir, Argv: []string{"fib25.py"}, Func: "fib25:fib",
		File: filepath.Join(dir, "fib25.py"), Line: 4, Stmt: "print(n * 10)"}, nil
}

// Loop is one frame looping n times (about 2n statements).
func (e *Env) Loop(n int) (*Workload, error) {
	dir := filepath.Join(e.Work, "loop")
	if err := writeFile(dir, "loop.py", loopSource); err != nil {
		return nil, err
	}
	return &Workload{Name: fmt.Sprintf("loop of %d iterations", n), Dir: dir, Argv: []string{"loop.py", fmt.Sprint(n)},
		Func: "loop:loop", File: filepath.Join(dir, "loop.py"), Line: 9, Stmt: "print(s)"}, nil
}

// sympyTest is the pytest test of the Debian package python3-sympy the benchmark runs; the test
// file and the module it tests count as user code.
const (
	sympyTest = "ntheory/tests/test_continued_fraction.py"
	sympyFunc = "sympy.ntheory.continued_fraction:continued_fraction_periodic"
	sympyFile = "ntheory/continued_fraction.py"
)

// sympySeedPlugin is the pytest plugin that makes sympy's Dummy symbols the same in every run.
const sympySeedPlugin = `"""adi benchmark: number sympy's Dummy symbols from a fixed base in every run."""


def pytest_configure(config):
    from sympy.core.symbol import Dummy
    Dummy._base_dummy_index = 1000000
`

// Sympy is a real library's pytest test: sympy's continued fractions test, with the test and
// sympy.ntheory.continued_fraction recorded. It fails when sympy is not installed (make deps installs python3-sympy).
func (e *Env) Sympy(ctx context.Context) (*Workload, error) {
	root, err := e.pyOutput(ctx, e.Work, "-c", "import os, sympy; print(os.path.dirname(sympy.__file__))")
	if err != nil {
		return nil, fmt.Errorf("sympy is not importable by %s (run make deps, which installs python3-sympy): %w", e.Python.Path, err)
	}
	dir := filepath.Join(e.Work, "sympy")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	file := filepath.Join(root, sympyFile)
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	// exec stops at the function's first statement, which every invocation runs.
	line := firstBodyLine(string(b), "def continued_fraction_periodic(")
	if line == 0 {
		return nil, fmt.Errorf("%s has no continued_fraction_periodic: another sympy version?", file)
	}
	// sympy's Dummy symbols number themselves from a random base, and their values reach the
	// arguments this test passes: a small pytest plugin fixes the base, as a seeded test run
	// would, so that every run of the test is the same program (adi refuses to answer from a
	// re-run that differs from its recording).
	seed := filepath.Join(e.Work, "sympyseed")
	if err := writeFile(seed, "adi_bench_seed.py", sympySeedPlugin); err != nil {
		return nil, err
	}
	return &Workload{Name: "sympy test (pytest)", Dir: dir,
		Argv:    []string{"-m", "pytest", filepath.Join(root, sympyTest), "-q", "-p", "no:cacheprovider", "-p", "adi_bench_seed"},
		Include: []string{file, filepath.Join(root, sympyTest)}, Env: []string{"PYTHONPATH=" + seed},
		Func: sympyFunc, File: file, Line: line, Stmt: "print(p, q, d)"}, nil
}

// firstBodyLine returns the line number of the first statement of the function defined by the
// line starting with def, past its signature and docstring: the first line indented deeper than
// def that is not inside the docstring and does not continue the signature.
func firstBodyLine(src, def string) int {
	lines := strings.Split(src, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), def) {
			start = i
			break
		}
	}
	if start < 0 {
		return 0
	}
	i := start
	for i < len(lines) && !strings.HasSuffix(strings.TrimSpace(lines[i]), ":") {
		i++ // the signature may span lines
	}
	i++
	inDoc := false
	for ; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "" || strings.HasPrefix(t, "#"):
		case strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, `r"""`):
			if !(strings.Count(t, `"""`) == 2) {
				inDoc = !inDoc
			}
		case inDoc:
			if strings.Contains(t, `"""`) {
				inDoc = false
			}
		default:
			return i + 1
		}
	}
	return 0
}

func writeFile(dir, name, src string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
}
