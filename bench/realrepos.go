package bench

import (
	"context"
	"embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

//go:embed realrepos/*_repro.py
var repros embed.FS

// DebianPython is the interpreter the Debian packages of the real-repository workloads are
// installed for; every run of those workloads uses it.
const DebianPython = "/usr/bin/python3"

// RealRepo is one real library of the "real repositories" table: its Debian package, copied into
// a scratch directory so that it counts as user code, and a reproduce script run there as
// `python3 repro.py`.
type RealRepo struct {
	// Name is the library's name in the table and of its script (realrepos/NAME_repro.py, or
	// Script when set).
	Name string
	// Script names the reproduce script when it is not NAME_repro.py (a second workload of the
	// same library).
	Script string
	// Package is the importable package copied from dist-packages (e.g. "sklearn").
	Package string
	// Debian is the Debian package that installs it (scripts/deps.sh bench installs it).
	Debian string
	// File is the target function's source file, relative to the scratch directory.
	File string
	// Func is the function's qualified name in File, called more than once, several calls deep.
	Func string
	// Stmt is what exec runs at the function's first statement.
	Stmt string
	// Test, when set, is a test file of the package (relative to the scratch directory): the
	// workload is then `python3 -m pytest TEST -q -p no:cacheprovider` instead of its script.
	Test string
}

// argv is what follows the interpreter in r's target command.
func (r RealRepo) argv() []string {
	if r.Test != "" {
		return []string{"-m", "pytest", r.Test, "-q", "-p", "no:cacheprovider"}
	}
	return []string{"repro.py"}
}

// command is r's target command line, as adi's commands are given it.
func (r RealRepo) command() string {
	return "python3 " + strings.Join(r.argv(), " ")
}

// RealRepos are the libraries of the table, in its order (roughly by run time).
var RealRepos = []RealRepo{
	{Name: "requests", Package: "requests", Debian: "python3-requests", File: "requests/models.py",
		Func: "PreparedRequest.prepare_url", Stmt: "print(url, params)"},
	{Name: "flask", Package: "flask", Debian: "python3-flask", File: "flask/json/provider.py",
		Func: "DefaultJSONProvider.response", Stmt: "print(args, kwargs)"},
	{Name: "networkx", Package: "networkx", Debian: "python3-networkx", File: "networkx/algorithms/shortest_paths/weighted.py",
		Func: "_dijkstra_multisource", Stmt: "print(sorted(sources))"},
	{Name: "django", Package: "django", Debian: "python3-django", File: "django/template/base.py",
		Func: "Variable.resolve", Stmt: "print(self.var)"},
	{Name: "scikit-learn", Package: "sklearn", Debian: "python3-sklearn", File: "sklearn/utils/validation.py",
		Func: "check_array", Stmt: "print(getattr(array, 'shape', None))"},
	{Name: "sympy", Package: "sympy", Debian: "python3-sympy", File: "sympy/polys/factortools.py",
		Func: "dup_zz_factor", Stmt: "print(f)"},
	{Name: "matplotlib", Package: "matplotlib", Debian: "python3-matplotlib", File: "matplotlib/transforms.py",
		Func: "Affine2D.rotate", Stmt: "print(theta)"},
	// Frames that hold big structures: a graph of 900 nodes (Dijkstra's dist, seen and heap grow
	// to its size) and a 10,000 x 20 array.
	{Name: "networkx (big graph)", Script: "networkx_graph_repro.py", Package: "networkx", Debian: "python3-networkx",
		File: "networkx/algorithms/shortest_paths/weighted.py", Func: "_dijkstra_multisource", Stmt: "print(sorted(sources))"},
	{Name: "scikit-learn (big array)", Script: "sklearn_array_repro.py", Package: "sklearn", Debian: "python3-sklearn",
		File: "sklearn/utils/validation.py", Func: "check_array", Stmt: "print(getattr(array, 'shape', None))"},
	{Name: "networkx (pytest)", Package: "networkx", Debian: "python3-networkx", File: "networkx/algorithms/shortest_paths/weighted.py",
		Func: "_dijkstra_multisource", Stmt: "print(sorted(sources))", Test: "networkx/algorithms/shortest_paths/tests/test_weighted.py"},
}

// script returns the library's reproduce script (bench/realrepos/NAME_repro.py).
func (r RealRepo) script() ([]byte, error) {
	if r.Script != "" {
		return repros.ReadFile("realrepos/" + r.Script)
	}
	name := strings.ReplaceAll(r.Name, "scikit-learn", "sklearn")
	return repros.ReadFile("realrepos/" + name + "_repro.py")
}

// RealRepoWorkload copies r's package from the Debian python's dist-packages into the scratch
// directory (once per benchmark run), writes its script there as repro.py, and returns the
// workload: `python3 repro.py` in that directory, with exec stopping at the function's first
// statement.
func (e *Env) RealRepoWorkload(ctx context.Context, r RealRepo) (*Workload, error) {
	dir := filepath.Join(e.Work, "realrepos", r.Package)
	if err := e.copyPackage(ctx, r.Package, r.Debian, dir); err != nil {
		return nil, err
	}
	if r.Test == "" {
		b, err := r.script()
		if err != nil {
			return nil, fmt.Errorf("the reproduce script of %s: %w", r.Name, err)
		}
		if err := writeFile(dir, "repro.py", string(b)); err != nil {
			return nil, err
		}
	}
	file := filepath.Join(dir, r.File)
	srcText, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("the target file of %s: %w", r.Name, err)
	}
	line := qualnameBodyLine(string(srcText), r.Func)
	if line == 0 {
		return nil, fmt.Errorf("%s defines no %s: another %s version?", file, r.Func, r.Debian)
	}
	mod := strings.TrimSuffix(strings.ReplaceAll(r.File, "/", "."), ".py")
	return &Workload{Name: r.Name, Dir: dir, Argv: r.argv(), Func: mod + ":" + r.Func,
		File: file, Line: line, Stmt: r.Stmt}, nil
}

// copyPackage copies the importable package pkg (installed by the Debian package debian) from
// the Debian python's dist-packages into dir, unless dir already holds it, so that all of it is
// user code there.
func (e *Env) copyPackage(ctx context.Context, pkg, debian, dir string) error {
	src, err := e.packageDir(ctx, pkg, debian)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, pkg)); os.IsNotExist(err) {
		// cp -a keeps the modification times, so the copied __pycache__ stays valid.
		if out, err := exec.CommandContext(ctx, "cp", "-a", src, dir+"/").CombinedOutput(); err != nil {
			return fmt.Errorf("copy %s into %s: %w: %s", src, dir, err, out)
		}
	}
	return nil
}

// packageDir returns where the Debian python imports the package pkg from, without importing it.
func (e *Env) packageDir(ctx context.Context, pkg, debian string) (string, error) {
	cmd := exec.CommandContext(ctx, DebianPython, "-c",
		"import importlib.util as u, sys; s = u.find_spec(sys.argv[1]); print(s.submodule_search_locations[0])", pkg)
	cmd.Dir = e.Work
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s has no package %s (run scripts/deps.sh bench, which installs %s): %w", DebianPython, pkg, debian, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// qualnameBodyLine returns the line number of the first statement of the function named by a
// qualified name such as "Class.method" or "func" in src: each class is looked for after the
// previous name's line, then the def, then firstBodyLine finds the body. 0 when it is not there.
func qualnameBodyLine(src, qualname string) int {
	lines := strings.Split(src, "\n")
	parts := strings.Split(qualname, ".")
	from := 0
	for i, name := range parts {
		kw := "class "
		if i == len(parts)-1 {
			kw = "def "
		}
		at := findDef(lines, from, kw+name)
		if at < 0 {
			return 0
		}
		from = at
	}
	n := firstBodyLine(strings.Join(lines[from:], "\n"), "def "+parts[len(parts)-1]+"(")
	if n == 0 {
		return 0
	}
	return from + n
}

// findDef returns the index of the first line at or after from that starts (past its indent)
// with head followed by "(" or ":", or -1.
func findDef(lines []string, from int, head string) int {
	for i := from; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, head+"(") || strings.HasPrefix(t, head+":") {
			return i
		}
	}
	return -1
}
