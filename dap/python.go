package dap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Python is an interpreter that can run debugpy.
type Python struct {
	Path     string `json:"path"`
	Version  string `json:"version"`
	Debugpy  string `json:"debugpy"`
	Pydevd   string `json:"pydevd"`
	Speedups bool   `json:"speedups"` // pydevd's Cython speedups are importable
	Source   string `json:"source"`   // where the path came from: flag, ADI_PYTHON, PATH, default
}

// ErrNoPython is wrapped by FindPython's error when no candidate imports debugpy.
var ErrNoPython = errors.New("no python with debugpy")

const inspectScript = `import json, sys
info = {"version": sys.version.split()[0]}
try:
    import debugpy
    info["debugpy"] = debugpy.__version__
except Exception as e:
    info["error"] = "%s: %s" % (type(e).__name__, e)
try:
    import pydevd
    info["pydevd"] = pydevd.__version__
    from _pydevd_bundle.pydevd_trace_dispatch import USING_CYTHON
    info["speedups"] = bool(USING_CYTHON)
except Exception:
    info.setdefault("speedups", False)
print(json.dumps(info))
`

// FindPython returns the first interpreter that imports debugpy, trying in order: flag (the
// --python flag), $ADI_PYTHON, python3 on PATH, /usr/bin/python3. The error lists every candidate
// and why it was passed over, and says how to fix it.
func FindPython(ctx context.Context, flag string) (*Python, error) {
	type cand struct{ path, source string }
	var cands []cand
	if flag != "" {
		cands = append(cands, cand{flag, "--python"})
	}
	if env := os.Getenv("ADI_PYTHON"); env != "" {
		cands = append(cands, cand{env, "ADI_PYTHON"})
	}
	if p, err := exec.LookPath("python3"); err == nil {
		cands = append(cands, cand{p, "PATH"})
	}
	cands = append(cands, cand{"/usr/bin/python3", "default"})

	var why []string
	seen := map[string]bool{}
	for _, c := range cands {
		if seen[c.path] {
			continue
		}
		seen[c.path] = true
		py, err := cachedInspect(ctx, c.path)
		if err != nil {
			why = append(why, fmt.Sprintf("%s (%s): %v", c.path, c.source, err))
			// An explicit choice that fails is an error, not a reason to pick another python.
			if c.source == "--python" || c.source == "ADI_PYTHON" {
				return nil, fmt.Errorf("%w: %s; install debugpy for it or choose another with --python", ErrNoPython, why[len(why)-1])
			}
			continue
		}
		py.Source = c.source
		return py, nil
	}
	return nil, fmt.Errorf("%w: tried %s; run `make deps` (installs python3-debugpy) or pass --python",
		ErrNoPython, strings.Join(why, "; "))
}

// InspectPython runs path to learn its version and whether debugpy imports.
func InspectPython(ctx context.Context, path string) (*Python, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-c", inspectScript)
	cmd.Env = append(os.Environ(), "PYDEVD_DISABLE_FILE_VALIDATION=1")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("exited with %d", ee.ExitCode())
		}
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("not found")
		}
		return nil, err
	}
	var info struct {
		Version  string `json:"version"`
		Debugpy  string `json:"debugpy"`
		Pydevd   string `json:"pydevd"`
		Speedups bool   `json:"speedups"`
		Error    string `json:"error"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return nil, fmt.Errorf("unexpected output %q", strings.TrimSpace(string(out)))
	}
	if info.Debugpy == "" {
		return nil, fmt.Errorf("python %s cannot import debugpy (%s)", info.Version, info.Error)
	}
	return &Python{Path: path, Version: info.Version, Debugpy: info.Debugpy, Pydevd: info.Pydevd, Speedups: info.Speedups}, nil
}
