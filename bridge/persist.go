package bridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/probe"
)

// sessionMeta is session.json.
type sessionMeta struct {
	ID      string  `json:"id"`
	Options Options `json:"options"`
	// Dir is the directory the command runs in (Options.Dir resolved), for session lists.
	Dir     string    `json:"dir,omitempty"`
	Python  string    `json:"python"`
	Created time.Time `json:"created"`
	// Live marks a live session: its runs are the processes its watches recorded, not re-runs.
	Live bool `json:"live,omitempty"`
}

func (s *Session) meta() sessionMeta {
	return sessionMeta{ID: s.ID, Options: s.Opts, Dir: s.prog.Dir, Python: s.prog.Python, Created: s.created, Live: s.isLive}
}

// stateFile is state.json: Σ's B and i, and the condition results, so a restarted bridge resumes.
type stateFile struct {
	Breakpoints []adi.Breakpoint `json:"breakpoints"`
	Current     int              `json:"current"`
	// CurrentFID names the frame Current indexes (func#N), for lists of sessions on disk.
	CurrentFID string     `json:"current_fid,omitempty"`
	Hits       []condHits `json:"hits"`
}

type condHits struct {
	Breakpoint adi.Breakpoint `json:"breakpoint"`
	Frames     []int          `json:"frames"`
	// At says, for a condition checked at a line, where it held: [frame, line, visit] (Session.hitAt).
	At [][3]int `json:"at,omitempty"`
}

func (s *Session) saveState() {
	if err := s.writeState(); err != nil {
		s.log.Warn("cannot save session state", "error", err)
	}
}

// writeState writes state.json and says whether it could.
func (s *Session) writeState() error {
	st := stateFile{Breakpoints: nonNil(s.state.Breakpoints), Current: s.state.Cur, Hits: []condHits{}}
	if f := s.trace.Frame(s.state.Cur); f != nil {
		st.CurrentFID = f.FID().String()
	}
	for b, h := range s.hits {
		c := condHits{Breakpoint: b, Frames: h}
		for _, j := range h {
			if at, ok := s.hitAt[b][j]; ok {
				c.At = append(c.At, [3]int{j, at[0], at[1]})
			}
		}
		st.Hits = append(st.Hits, c)
	}
	sort.Slice(st.Hits, func(a, b int) bool { return st.Hits[a].Breakpoint.String() < st.Hits[b].Breakpoint.String() })
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if bytes.Equal(b, s.savedState) {
		return nil // most commands move nothing that is saved: no write
	}
	if err := overwriteFile(filepath.Join(s.Dir, "state.json"), b); err != nil {
		return err
	}
	s.savedState = b
	return nil
}

// keptFLTs is the file a re-run's directory keeps once it has been adopted: the FLTs it added to
// the session, by index in T (JSON). The rest of the run (its own T, its record files) is deleted,
// so a session's disk holds one T and the FLTs recorded since.
const keptFLTs = "flts.json"

// keptValues is the file in which a re-run's directory keeps the values it recorded for frames
// the recording holds bare (values.go), by frame.
const keptValues = "values.json"

// keep leaves in a re-run's directory only what the session took from it: its FLTs (keptFLTs),
// the values of bare frames (keptValues) and how it ended; a run that added nothing is discarded.
func (s *Session) keep(run *Run, flts map[int]*adi.FLT, values map[int]frameValues) {
	if len(flts) == 0 && len(values) == 0 {
		s.discard(run)
		return
	}
	kept := []struct {
		name string
		n    int
		v    any
	}{{keptFLTs, len(flts), flts}, {keptValues, len(values), values}}
	for _, k := range kept {
		if k.n == 0 {
			continue
		}
		b, err := json.Marshal(k.v)
		if err == nil {
			err = writeFile(filepath.Join(run.Dir, k.name), b)
		}
		if err != nil {
			s.log.Warn("cannot keep what a re-run recorded on disk; a restarted adi records it again", "dir", run.Dir, "file", k.name, "error", err)
			return
		}
	}
	for _, name := range []string{"calls.bin", "flt.bin", "config.json"} {
		if err := os.Remove(filepath.Join(run.Dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			s.log.Warn("cannot delete a re-run's records", "file", name, "error", err)
		}
	}
}

// discard deletes a run that adds nothing to the session (an exec's, a refused re-run's).
func (s *Session) discard(run *Run) {
	run.files.Lock()
	run.gone = true
	run.files.Unlock()
	if err := os.RemoveAll(run.Dir); err != nil {
		s.log.Warn("cannot delete a run that added nothing", "dir", run.Dir, "error", err)
	}
}

// loadKept reads what a re-run's directory keeps: its FLTs (keptFLTs) and the values of bare
// frames (keptValues); ok is false when it keeps neither.
func loadKept(dir string) (flts map[int]*adi.FLT, values map[int]frameValues, ok bool, err error) {
	for name, v := range map[string]any{keptFLTs: &flts, keptValues: &values} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, nil, false, err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return nil, nil, false, fmt.Errorf("%s is corrupt: %w", filepath.Join(dir, name), err)
		}
		ok = true
	}
	return flts, values, ok, nil
}

// listRuns returns the run numbers under dir, ascending.
func listRuns(dir string) ([]int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		if n, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Ints(out)
	return out, nil
}

// loadRun reads a finished run from its directory.
func loadRun(dir string) (*Run, error) {
	rec, err := probe.Read(dir)
	if err != nil {
		return nil, err
	}
	releaseSoon() // the garbage of decoding the recording
	r := &Run{Dir: dir, Rec: rec, ExitCode: -1}
	r.Stdout, _ = os.ReadFile(filepath.Join(dir, "stdout"))
	r.Stderr, _ = os.ReadFile(filepath.Join(dir, "stderr"))
	var m runMeta
	if b, err := os.ReadFile(filepath.Join(dir, "run.json")); err == nil && json.Unmarshal(b, &m) == nil {
		r.ExitCode, r.TimedOut, r.Debug = m.ExitCode, m.TimedOut, m.Debug
		r.TimeLimit = time.Duration(m.TimeLimitMS) * time.Millisecond
		r.Elapsed = time.Duration(m.ElapsedMS) * time.Millisecond
		markTimedOut(r)
	} else if rec.Result != nil {
		r.ExitCode = rec.Result.Exit.Code
	}
	return r, nil
}

// runMeta is run.json: how a run ended, kept next to what the probe wrote.
type runMeta struct {
	ExitCode    int   `json:"exit_code"`
	TimedOut    bool  `json:"timed_out"`
	TimeLimitMS int64 `json:"time_limit_ms,omitempty"`
	ElapsedMS   int64 `json:"elapsed_ms"`
	Debug       bool  `json:"debug"`
}

// saveOutput keeps the target's output and how the run ended in the run directory.
func saveOutput(r *Run) error {
	for _, o := range []struct {
		name string
		b    []byte
	}{{"stdout", r.Stdout}, {"stderr", r.Stderr}} {
		name := o.name
		if err := os.WriteFile(filepath.Join(r.Dir, name), o.b, 0o644); err != nil {
			return fmt.Errorf("save target %s (is the disk full?): %w", name, err)
		}
	}
	return writeJSON(filepath.Join(r.Dir, "run.json"), runMeta{
		ExitCode: r.ExitCode, TimedOut: r.TimedOut, TimeLimitMS: r.TimeLimit.Milliseconds(), ElapsedMS: r.Elapsed.Milliseconds(),
		Debug: r.Debug,
	})
}

// writeJSON writes v to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, b)
}

// writeFile writes b to path atomically (a temporary file renamed into place).
func writeFile(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("cannot write %s (is the disk full?): %w", path, err)
	}
	return os.Rename(tmp, path)
}

// overwriteFile writes b over the small file at path in place: one write at offset 0, padded
// with spaces (which JSON ignores) to the file's length when b is shorter, so that the file is
// never truncated or replaced. Replacing a file by rename, or truncating it, makes ext4 write the
// old file's data out first (its auto_da_alloc: 250 µs a save measured on these machines), and
// state.json is saved at every move of the cursor, inside the command's answer. A write of one
// page at offset 0 is whole or absent when the process is killed, like a rename; bigger contents,
// and a file that would stay much longer than its contents, are written by writeFile.
func overwriteFile(path string, b []byte) error {
	const page = 4096
	if len(b) > page {
		return writeFile(path, b)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	st, err := f.Stat()
	if err == nil && st.Size() > page {
		f.Close()
		return writeFile(path, b)
	}
	if err == nil && st.Size() > int64(len(b)) {
		b = append(b[:len(b):len(b)], bytes.Repeat([]byte{' '}, int(st.Size())-len(b))...)
	}
	if _, err = f.WriteAt(b, 0); err != nil {
		f.Close()
		return fmt.Errorf("cannot write %s (is the disk full?): %w", path, err)
	}
	return f.Close()
}

// readJSON reads path into v.
func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
