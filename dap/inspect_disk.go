package dap

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
)

// The inspection of an interpreter is also remembered on disk, in the state directory, so a new
// daemon's first command does not start python (or a pyenv shim, which costs ~0.1 s more) to ask
// again. An answer is reused while the file that runs is the same one, unchanged, and so are the
// directories it imports from (installing debugpy changes one), for at most diskTTL.

// diskTTL bounds how long an answer on disk is reused.
const diskTTL = 24 * time.Hour

// diskFile is the cache's file name in the state directory.
const diskFile = "pythons.json"

var (
	diskMu  sync.Mutex
	diskDir string
)

// SetInspectCacheDir makes the inspections of interpreters persist in dir (adi's state
// directory); "" keeps them in memory only.
func SetInspectCacheDir(dir string) {
	diskMu.Lock()
	diskDir = dir
	diskMu.Unlock()
}

// diskEntry is one interpreter's remembered answer.
type diskEntry struct {
	Target  string           `json:"target"`  // the file that runs (a shim's interpreter)
	Stamps  map[string]int64 `json:"stamps"`  // modification times (ns; -1: absent) of it and its import directories
	Version string           `json:"version"` // the interpreter's version
	Debugpy string           `json:"debugpy"` // "found", or "" with Error
	Error   string           `json:"error"`   // why debugpy cannot be imported
	At      time.Time        `json:"at"`
}

func readDisk() (string, map[string]diskEntry) {
	diskMu.Lock()
	dir := diskDir
	diskMu.Unlock()
	if dir == "" {
		return "", nil
	}
	m := map[string]diskEntry{}
	if b, err := os.ReadFile(filepath.Join(dir, diskFile)); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return dir, m
}

// diskLookup returns the remembered answer for path, if it is still valid (ok).
func diskLookup(path string) (*Python, error, bool) {
	dir, m := readDisk()
	e, found := m[path]
	if dir == "" || !found || time.Since(e.At) > diskTTL || e.Target == "" || e.Target != runTarget(path) {
		return nil, nil, false
	}
	for p, t := range e.Stamps {
		if stamp(p) != t {
			return nil, nil, false
		}
	}
	if e.Debugpy == "" {
		return nil, errors.New(e.Error), true
	}
	return &Python{Path: path, Version: e.Version, Debugpy: e.Debugpy}, nil, true
}

// diskStore remembers inspect's answer for path: only a complete one (the interpreter ran and
// said whether it finds debugpy), and only when the file that runs is known.
func diskStore(path string, py *Python, err error) {
	if py == nil {
		return
	}
	target := runTarget(path)
	if target == "" {
		return
	}
	e := diskEntry{Target: target, Stamps: map[string]int64{path: stamp(path), target: stamp(target)},
		Version: py.Version, Debugpy: py.Debugpy, At: time.Now()}
	if err != nil {
		e.Debugpy, e.Error = "", err.Error()
	}
	for _, p := range py.paths {
		e.Stamps[p] = stamp(p)
	}
	diskMu.Lock()
	defer diskMu.Unlock()
	if diskDir == "" {
		return
	}
	m := map[string]diskEntry{}
	file := filepath.Join(diskDir, diskFile)
	if b, rerr := os.ReadFile(file); rerr == nil {
		_ = json.Unmarshal(b, &m)
	}
	m[path] = e
	b, merr := json.Marshal(m)
	if merr != nil {
		return
	}
	tmp := file + ".tmp"
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, file)
	}
}

// stamp is a file's or directory's modification time in ns, -1 when it does not exist.
func stamp(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return st.ModTime().UnixNano()
}

var pyenvRoot = regexp.MustCompile(`(?m)^export PYENV_ROOT="([^"]+)"$`)

// runTarget returns the interpreter that running path starts: path itself with its symlinks
// resolved, or for a pyenv shim the interpreter of the version pyenv picks here. It returns ""
// when that is not known (another script), so the answer is not remembered.
func runTarget(path string) string {
	if !strings.ContainsRune(path, '/') {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	head := make([]byte, 2048)
	n, _ := f.Read(head)
	_ = f.Close()
	head = head[:n]
	if !bytes.HasPrefix(head, []byte("#!")) {
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return ""
		}
		return real
	}
	m := pyenvRoot.FindSubmatch(head)
	if m == nil || !bytes.Contains(head, []byte(`libexec/pyenv" exec`)) {
		return ""
	}
	return pyenvTarget(string(m[1]), filepath.Base(path))
}

// pyenvTarget resolves a pyenv shim of program the way pyenv does for its first version:
// $PYENV_VERSION, else the nearest .python-version from the working directory up, else
// PYENV_ROOT/version, else the system's. "" when it cannot tell.
func pyenvTarget(root, program string) string {
	version := os.Getenv("PYENV_VERSION")
	if version == "" && os.Getenv("PYENV_DIR") == "" {
		if dir, err := os.Getwd(); err == nil {
			for {
				if b, err := os.ReadFile(filepath.Join(dir, ".python-version")); err == nil {
					version = firstVersion(string(b))
					break
				}
				up := filepath.Dir(dir)
				if up == dir {
					break
				}
				dir = up
			}
		}
	} else if version == "" {
		return "" // pyenv looks from PYENV_DIR: not followed here
	}
	if version == "" {
		if b, err := os.ReadFile(filepath.Join(root, "version")); err == nil {
			version = firstVersion(string(b))
		}
	}
	version = firstVersion(version)
	if version == "" || version == "system" {
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			if dir == "" || strings.HasPrefix(dir, root+"/") {
				continue
			}
			p := filepath.Join(dir, program)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				real, err := filepath.EvalSymlinks(p)
				if err != nil {
					return ""
				}
				return real
			}
		}
		return ""
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, "versions", version, "bin", program))
	if err != nil {
		return ""
	}
	return real
}

// firstVersion returns the first version a pyenv version file or variable names.
func firstVersion(s string) string {
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		return strings.FieldsFunc(line, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' })[0]
	}
	return ""
}
