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
	"sync/atomic"
	"time"

	"github.com/adi-bridge/adi/internal/cachedir"
)

// The inspection of an interpreter is also remembered on disk, in adi's per-user cache directory
// (cachedir.Root(): $ADI_CACHE_DIR, else adi under the user's cache directory), shared by every
// state directory and every daemon, so a new daemon's first command does not start python to ask
// again (a pyenv shim takes about 0.5 s to start on a 2-core machine, a python 0.05 s; when
// python3 on PATH is a shim whose python has no debugpy, /usr/bin/python3 is asked too). An
// answer is reused while the interpreter as named runs the same file (its real path; a pyenv shim
// resolved without running it) with the same modification time and size, and the directories it
// imports from are unchanged (installing debugpy changes one), for at most diskTTL.

// diskTTL bounds how long an answer on disk is reused.
const diskTTL = 24 * time.Hour

// diskFile is the cache's file name in the cache directory.
const diskFile = "pythons.json"

// diskMax bounds the answers the file keeps (the most recent).
const diskMax = 64

var diskMu sync.Mutex // serialises this process's writes of the file

// inspections counts the interpreters this process started to inspect (tests).
var inspections atomic.Int64

// diskEntry is one interpreter's remembered answer.
type diskEntry struct {
	Path    string           `json:"path"`    // the interpreter as named (a pyenv shim, /usr/bin/python3)
	Target  string           `json:"target"`  // the file that runs, symlinks resolved
	Size    int64            `json:"size"`    // Target's size
	Stamps  map[string]int64 `json:"stamps"`  // modification times (ns; -1: absent) of Path, Target and the import directories
	Version string           `json:"version"` // the interpreter's version
	Debugpy string           `json:"debugpy"` // "found", or "" with Error
	Error   string           `json:"error"`   // why debugpy cannot be imported
	At      time.Time        `json:"at"`
}

// diskData is the file's content.
type diskData struct {
	Pythons []diskEntry `json:"pythons"`
}

func readDisk(file string) diskData {
	var d diskData
	if b, err := os.ReadFile(file); err == nil {
		if json.Unmarshal(b, &d) != nil {
			d = diskData{}
		}
	}
	return d
}

// diskLookup returns the remembered answer for path, if it is still valid (ok).
func diskLookup(path string) (*Python, error, bool) {
	target := runTarget(path)
	if target == "" {
		return nil, nil, false
	}
	d := readDisk(filepath.Join(cachedir.Root(), diskFile))
	for _, e := range d.Pythons {
		if e.Path != path || e.Target != target {
			continue
		}
		if time.Since(e.At) > diskTTL || size(target) != e.Size {
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
	return nil, nil, false
}

// diskStore remembers inspect's answer for path: only a complete one (the interpreter ran and
// said whether it finds debugpy), and only when the file that runs is known. The file is
// replaced whole (written beside it, then renamed), so a reader never sees half of it; two
// daemons storing at once may lose one answer, which is then asked again.
func diskStore(path string, py *Python, err error) {
	if py == nil {
		return
	}
	target := runTarget(path)
	if target == "" {
		return
	}
	e := diskEntry{Path: path, Target: target, Size: size(target), Stamps: map[string]int64{path: stamp(path), target: stamp(target)},
		Version: py.Version, Debugpy: py.Debugpy, At: time.Now()}
	if err != nil {
		e.Debugpy, e.Error = "", err.Error()
	}
	for _, p := range py.paths {
		e.Stamps[p] = stamp(p)
	}
	diskMu.Lock()
	defer diskMu.Unlock()
	dir := cachedir.Root()
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	file := filepath.Join(dir, diskFile)
	var keep []diskEntry
	for _, o := range readDisk(file).Pythons {
		if (o.Path != path || o.Target != target) && time.Since(o.At) <= diskTTL {
			keep = append(keep, o)
		}
	}
	keep = append(keep, e)
	if len(keep) > diskMax {
		keep = keep[len(keep)-diskMax:]
	}
	b, merr := json.Marshal(diskData{Pythons: keep})
	if merr != nil {
		return
	}
	tmp, terr := os.CreateTemp(dir, diskFile+".*.tmp")
	if terr != nil {
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil || os.Rename(tmp.Name(), file) != nil {
		_ = os.Remove(tmp.Name())
	}
}

// size is a file's size, -1 when it does not exist.
func size(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return st.Size()
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
