package bench

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/dap"
)

//go:embed python/*.py
var scripts embed.FS

// Env is what the measurements share: the interpreter with debugpy, where the repository and
// the scratch files are, and how many times a whole run is repeated.
type Env struct {
	// idleRSS is an idle daemon's resident memory, once measured (realbench.go).
	idleRSS int64
	Python  *dap.Python
	// Repo is the repository's root: the probe's own benchmark (probe/python/bench) is there.
	Repo string
	// Work is a scratch directory: workload sources, session state, outputs.
	Work string
	// Scripts holds bench/python's helpers (written out from the binary).
	Scripts string
	// Reps is how many times a whole-run timing repeats (the best counts).
	Reps int
	Log  hclog.Logger
}

// NewEnv finds the python with debugpy and prepares a scratch directory. Close removes it.
func NewEnv(ctx context.Context, repo string, reps int, log hclog.Logger) (*Env, error) {
	py, err := dap.FindPython(ctx, "")
	if err != nil {
		return nil, err
	}
	if err := py.Details(ctx); err != nil {
		return nil, fmt.Errorf("%s finds debugpy but cannot import it: %w", py.Path, err)
	}
	if log == nil {
		log = hclog.NewNullLogger()
	}
	repo, err = filepath.Abs(repo)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(repo, "probe", "python", "bench", "bench_probe.py")); err != nil {
		return nil, fmt.Errorf("%s is not adi's repository (no probe/python/bench/bench_probe.py); run from the repository root or pass -repo", repo)
	}
	work, err := os.MkdirTemp("", "adi-bench-")
	if err != nil {
		return nil, err
	}
	e := &Env{Python: py, Repo: repo, Work: work, Scripts: filepath.Join(work, "scripts"), Reps: max(reps, 1), Log: log}
	if err := writeScripts(e.Scripts); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Close removes the scratch directory.
func (e *Env) Close() { _ = os.RemoveAll(e.Work) }

// Script returns the path of one of bench/python's helpers.
func (e *Env) Script(name string) string { return filepath.Join(e.Scripts, name) }

func writeScripts(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fs.WalkDir(scripts, "python", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := scripts.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
	})
}

// pyOutput runs the benchmark's python with args and returns its trimmed standard output.
func (e *Env) pyOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, e.Python.Path, args...)
	cmd.Dir = dir
	cmd.Env = workloadEnv(nil)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", e.Python.Path, strings.Join(args, " "), err, lastLines(stderr.String(), 5))
	}
	return strings.TrimSpace(string(out)), nil
}

// workloadVars are what every run of a workload adds to the environment, whatever runs it: no
// bytecode written (pytest would otherwise write into the system's site packages), the same hash
// seed.
var workloadVars = []string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0"}

// workloadEnv is the environment every run of a workload gets: this one, workloadVars and extra.
func workloadEnv(extra []string) []string {
	env := append(os.Environ(), workloadVars...)
	return append(env, extra...)
}

// lastLines returns the last n lines of s, for error messages.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
