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

	"github.com/adi-bridge/adi/internal/errkind"
)

// Python is an interpreter that can run debugpy.
type Python struct {
	Path     string `json:"path"`
	Version  string `json:"version"`
	Debugpy  string `json:"debugpy"`
	Pydevd   string `json:"pydevd"`
	Speedups bool   `json:"speedups"` // pydevd's Cython speedups are importable
	Source   string `json:"source"`   // where the path came from: flag, ADI_PYTHON, PATH, default

	// paths are the directories the interpreter imports from (InspectPython's), whose changes
	// (a package installed) make its remembered answer stale.
	paths []string
}

// ErrNoPython is wrapped by FindPython's error when no candidate imports debugpy.
// Its kind is errkind.RunFailed.
var ErrNoPython = errkind.Sentinel(errkind.RunFailed, "no python with debugpy")

// inspectScript prints the interpreter's version and whether debugpy and pydevd can be found,
// without importing them: importing pydevd costs about 0.2 s, which every first command of a new
// daemon would pay. detailScript (Details) imports them for their versions.
const inspectScript = `import json, os, site, sys
info = {"version": sys.version.split()[0]}
if not (3, 6) <= sys.version_info[:2] <= (3, 13):
    info["unsupported"] = True
    print(json.dumps(info))
    sys.exit(0)
import importlib.util as u
try:
    user = [site.getusersitepackages()]
except Exception:
    user = []
info["paths"] = [p for p in sys.path if p and os.path.isdir(p)] + user
for name in ("debugpy", "pydevd"):
    try:
        found = u.find_spec(name) is not None
    except Exception as e:
        found = False
    if not found:
        info["error"] = "ModuleNotFoundError: No module named '%s'" % name
        break
else:
    info["debugpy"] = "found"
print(json.dumps(info))
`

const detailScript = `import json, sys
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

// ChosenPython returns the interpreter the user chose, if any, and how: flag (the --python flag)
// first, then $ADI_PYTHON; "" when neither is set.
func ChosenPython(flag string) (path, source string) {
	if flag != "" {
		return flag, "--python"
	}
	if env := os.Getenv("ADI_PYTHON"); env != "" {
		return env, "ADI_PYTHON"
	}
	return "", ""
}

// FindPython returns the first interpreter that imports debugpy, trying in order: flag (the
// --python flag), $ADI_PYTHON, python3 on PATH, /usr/bin/python3. The error lists every candidate
// and why it was passed over, and says how to fix it.
func FindPython(ctx context.Context, flag string) (*Python, error) {
	type cand struct{ path, source string }
	var cands []cand
	// an explicit choice that fails is an error (below), so the other one is never tried
	if path, source := ChosenPython(flag); path != "" {
		cands = append(cands, cand{path, source})
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

// SupportedRange is the range of Python versions adi runs targets on (the probe's run script,
// adi_probe_run.py, refuses the others in the same words).
const SupportedRange = "3.6 to 3.13"

// ErrUnsupportedPython is matched (errors.Is) by the error of an interpreter outside
// SupportedRange. Its kind is errkind.BadInput.
var ErrUnsupportedPython = errkind.Sentinel(errkind.BadInput, "unsupported python")

// unsupported is that error: its text is one line naming the version and the range.
type unsupported struct{ msg string }

func (e unsupported) Error() string        { return e.msg }
func (e unsupported) Is(target error) bool { return target == ErrUnsupportedPython }

func unsupportedPython(version, path string) error {
	return unsupported{fmt.Sprintf("python %s (%s) is not supported: adi runs Python %s; choose another interpreter", version, path, SupportedRange)}
}

// ErrNoDebugpy is matched (errors.Is) by NeedDebugpy's error when the interpreter has no debugpy.
// Its kind is errkind.RunFailed.
var ErrNoDebugpy = errkind.Sentinel(errkind.RunFailed, "no debugpy")

// noDebugpy is NeedDebugpy's error: its text is only the message.
type noDebugpy struct{ msg string }

func (e noDebugpy) Error() string        { return e.msg }
func (e noDebugpy) Is(target error) bool { return target == ErrNoDebugpy }

// NeedDebugpy checks, before anything is started under debugpy, that the interpreter python can
// find debugpy (without importing it; the answer is cached per interpreter like FindPython's), and
// otherwise says in one line that it cannot and how to install it. what names what needs it
// ("exec --then-continue", "live mode"). Without the check, debugpy's adapter waits 15 s for a
// debuggee that cannot start and then refuses the launch.
func NeedDebugpy(ctx context.Context, python, what string) error {
	_, err := cachedInspect(ctx, python)
	if err == nil || errors.Is(err, ErrUnsupportedPython) {
		return err
	}
	if !strings.Contains(err.Error(), "cannot import debugpy") {
		return fmt.Errorf("cannot check that %s has debugpy, which %s needs: %w", python, what, err)
	}
	return noDebugpy{fmt.Sprintf("%s has no debugpy, which %s needs (recording and exec do not); install it into that python "+
		"(`%s -m pip install debugpy`), or for /usr/bin/python3 run `make deps` (Debian's python3-debugpy)", python, what, python)}
}

// InspectPython runs path to learn its version and whether debugpy can be found (Debugpy is then
// "found"; Details fills in the versions).
func InspectPython(ctx context.Context, path string) (*Python, error) {
	py, err := inspect(ctx, path, inspectScript)
	if err != nil {
		return nil, err
	}
	return py, nil
}

// Details imports debugpy and pydevd in the interpreter for their versions and whether pydevd's
// speedups are present (for adi doctor and the benchmark's report).
func (p *Python) Details(ctx context.Context) error {
	d, err := inspect(ctx, p.Path, detailScript)
	if err != nil {
		return err
	}
	p.Version, p.Debugpy, p.Pydevd, p.Speedups = d.Version, d.Debugpy, d.Pydevd, d.Speedups
	return nil
}

func inspect(ctx context.Context, path, script string) (*Python, error) {
	if script == inspectScript {
		inspections.Add(1)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-c", script)
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
		Version  string   `json:"version"`
		Debugpy  string   `json:"debugpy"`
		Pydevd   string   `json:"pydevd"`
		Speedups bool     `json:"speedups"`
		Error    string   `json:"error"`
		Paths    []string `json:"paths"`
		Unsup    bool     `json:"unsupported"`
	}
	if err := json.Unmarshal(out, &info); err != nil {
		return nil, fmt.Errorf("unexpected output %q", strings.TrimSpace(string(out)))
	}
	if info.Unsup {
		return nil, unsupportedPython(info.Version, path)
	}
	if info.Debugpy == "" {
		return &Python{Path: path, Version: info.Version, paths: info.Paths}, fmt.Errorf("python %s cannot import debugpy (%s)", info.Version, info.Error)
	}
	return &Python{Path: path, Version: info.Version, Debugpy: info.Debugpy, Pydevd: info.Pydevd, Speedups: info.Speedups, paths: info.Paths}, nil
}
