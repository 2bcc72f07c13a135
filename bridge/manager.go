package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/reaper"
	"github.com/adi-bridge/adi/internal/sessionid"
	"github.com/adi-bridge/adi/internal/statedir"
)

// ErrNoSession is wrapped by errors about a session id that does not exist. It is the kind
// errkind.SessionNotFound.
var ErrNoSession error = errkind.SessionNotFound

// ManagerConfig configures a Manager.
type ManagerConfig struct {
	// StateDir holds the sessions (StateDir/sessions/<id>); default StateDir().
	StateDir string
	// IdleTimeout closes sessions unused for this long (0: never).
	IdleTimeout time.Duration
	Log         hclog.Logger
}

// StateDir returns where adi keeps sessions: $ADI_STATE_DIR, or adi under the user's state
// directory ($XDG_STATE_HOME or ~/.local/state), or under the temporary directory.
func StateDir() string { return statedir.Dir() }

// Manager owns the sessions of one adi process: it creates, finds, lists, closes and deletes them,
// reopens sessions left on disk by an earlier process, and closes idle ones. It runs one goroutine
// (the idle reaper) when IdleTimeout is set; Shutdown ends it.
type Manager struct {
	cfg  ManagerConfig
	log  hclog.Logger
	root string

	mu       sync.Mutex
	sessions map[string]*Session
	creating map[string]bool
	subs     map[int]func(Event)
	nextSub  int
	done     chan struct{}
	stopOnce sync.Once
	closing  int               // closes in progress (under mu); Shutdown waits for them
	closed   *sync.Cond        // signalled (on mu) when a close ends
	gone     map[string]string // id → why it was closed (closed, expired), for messages
	goneList []string          // ids in gone, oldest first (bounded by maxGone)
}

// maxGone bounds how many closed ids a Manager remembers the reason of.
const maxGone = 256

// NewManager returns a Manager over cfg.StateDir.
func NewManager(cfg ManagerConfig) (*Manager, error) {
	if cfg.StateDir == "" {
		cfg.StateDir = StateDir()
	}
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	root := filepath.Join(cfg.StateDir, "sessions")
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the state directory %s (set ADI_STATE_DIR): %w", root, err)
	}
	m := &Manager{cfg: cfg, log: cfg.Log, root: root, sessions: map[string]*Session{},
		creating: map[string]bool{}, subs: map[int]func(Event){}, done: make(chan struct{}), gone: map[string]string{}}
	m.closed = sync.NewCond(&m.mu)
	if cfg.IdleTimeout > 0 {
		go m.reapIdle()
	}
	return m, nil
}

// Subscribe registers fn for every session's events; the returned function unregisters it. fn is
// called from the goroutine doing the work and must not block.
func (m *Manager) Subscribe(fn func(Event)) (cancel func()) {
	m.mu.Lock()
	id := m.nextSub
	m.nextSub++
	m.subs[id] = fn
	m.mu.Unlock()
	return func() {
		m.mu.Lock()
		delete(m.subs, id)
		m.mu.Unlock()
	}
}

func (m *Manager) emit(ev Event) {
	m.mu.Lock()
	subs := make([]func(Event), 0, len(m.subs))
	for _, fn := range m.subs {
		subs = append(subs, fn)
	}
	m.mu.Unlock()
	for _, fn := range subs {
		fn(ev)
	}
}

// NewID returns a fresh session id.
func NewID() string { return sessionid.New("", 6) }

// Create records a new session. id may be "" for a fresh one.
func (m *Manager) Create(ctx context.Context, id string, opts Options) (*Session, error) {
	return m.add(id, func(id, dir string) (*Session, error) {
		return NewSession(ctx, opts, SessionConfig{ID: id, Dir: dir, Log: m.log.Named(id), Events: m.emit})
	})
}

// add reserves id (a fresh one when id is ""), builds the session in its directory with build,
// and registers it. The id is taken from the moment it is reserved, so two creations of one id
// cannot race; a session that fails to build leaves no directory behind.
func (m *Manager) add(id string, build func(id, dir string) (*Session, error)) (*Session, error) {
	if id == "" {
		id = NewID()
	}
	if !sessionid.Valid(id) {
		return nil, adi.Errorf(ErrNoSession, "session id %q is not valid; use letters, digits, '-' and '_'", id)
	}
	m.mu.Lock()
	if _, ok := m.sessions[id]; ok || m.creating[id] {
		m.mu.Unlock()
		return nil, fmt.Errorf("session %s already exists; close it first or pick another id", id)
	}
	m.creating[id] = true
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.creating, id)
		m.mu.Unlock()
	}()
	dir := filepath.Join(m.root, id)
	_ = os.RemoveAll(dir) // a closed session of the same id is replaced
	s, err := build(id, dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	m.mu.Lock()
	m.sessions[id] = s
	delete(m.gone, id)
	m.mu.Unlock()
	return s, nil
}

// Open returns the open session id, or nil (it never reopens one from disk).
func (m *Manager) Open(id string) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sessions[id]
}

// OpenSessions returns the open sessions (in no order); unlike List it reads nothing from disk.
func (m *Manager) OpenSessions() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s)
	}
	return out
}

// Gone says why the session id was closed in this process (closed, expired, replaced), if it was.
func (m *Manager) Gone(id string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	why, ok := m.gone[id]
	return why, ok
}

// forget remembers why id is gone; m.mu is held.
func (m *Manager) forget(id, why string) {
	if _, ok := m.gone[id]; !ok {
		m.goneList = append(m.goneList, id)
	}
	m.gone[id] = why
	for len(m.goneList) > maxGone {
		delete(m.gone, m.goneList[0])
		m.goneList = m.goneList[1:]
	}
}

// Get returns an open session, reopening it from disk when an earlier process left it there.
func (m *Manager) Get(ctx context.Context, id string) (*Session, error) {
	m.mu.Lock()
	s, ok := m.sessions[id]
	m.mu.Unlock()
	if ok {
		return s, nil
	}
	if !sessionid.Valid(id) {
		return nil, adi.Errorf(ErrNoSession, "no session %q", id)
	}
	dir := filepath.Join(m.root, id)
	if _, err := os.Stat(filepath.Join(dir, "session.json")); err != nil {
		return nil, adi.Errorf(ErrNoSession, "no session %q; list them with %s or create one with %s", id, faces.Cmd("session.list"), faces.Cmd("session.create"))
	}
	s, err := LoadSession(ctx, dir, m.log.Named(id), m.emit)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if prev, ok := m.sessions[id]; ok {
		s = prev // another caller reopened it first
	} else {
		m.sessions[id] = s
	}
	m.mu.Unlock()
	return s, nil
}

// IdleTimeout returns how long the Manager's sessions may stay unused before they are closed (0:
// never). Live sessions (package live) expire on the same clock.
func (m *Manager) IdleTimeout() time.Duration { return m.cfg.IdleTimeout }

// OpenCount returns how many sessions are open (in memory); List also reads closed ones from disk.
func (m *Manager) OpenCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.sessions)
}

// IsOpen reports whether the session id is open.
func (m *Manager) IsOpen(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.sessions[id]
	return ok
}

// List returns every session: the open ones and those on disk.
func (m *Manager) List() []Info {
	m.mu.Lock()
	open := make(map[string]*Session, len(m.sessions))
	for id, s := range m.sessions {
		open[id] = s
	}
	m.mu.Unlock()
	var out []Info
	for _, s := range open {
		out = append(out, s.Info())
	}
	ents, _ := os.ReadDir(m.root)
	for _, e := range ents {
		if _, ok := open[e.Name()]; ok || !e.IsDir() {
			continue
		}
		if info, ok := diskInfo(filepath.Join(m.root, e.Name())); ok {
			out = append(out, info)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Created.Before(out[b].Created) })
	return out
}

// diskInfo describes a session on disk without loading its recording.
func diskInfo(dir string) (Info, bool) {
	var meta sessionMeta
	if err := readJSON(filepath.Join(dir, "session.json"), &meta); err != nil {
		return Info{}, false
	}
	info := Info{ID: meta.ID, Command: meta.Options.Command, Dir: meta.Dir, Created: meta.Created, Closed: true}
	if info.Dir == "" {
		info.Dir = meta.Options.Dir // written by an adi that did not record the resolved directory
	}
	var st stateFile
	if readJSON(filepath.Join(dir, "state.json"), &st) == nil {
		info.Current = st.CurrentFID
	}
	if meta.Live {
		// a live session's recording is what the watches of its last process caught: it has no
		// result.json and no exit status (the program was not run by adi to its end)
		info.ExitCode, info.Partial = -1, true
		if runs, err := listRuns(filepath.Join(dir, "runs")); err == nil && len(runs) > 0 {
			info.Frames = liveCalls(filepath.Join(dir, "runs", fmt.Sprintf("%04d", runs[len(runs)-1])))
		}
		return info, true
	}
	var rm runMeta
	if readJSON(filepath.Join(dir, "runs", "0000", "run.json"), &rm) == nil {
		info.ExitCode = rm.ExitCode
	}
	var res struct {
		Calls    int    `json:"calls"`
		Complete bool   `json:"complete"`
		Stopped  string `json:"stopped"`
	}
	if readJSON(filepath.Join(dir, "runs", "0000", "result.json"), &res) == nil {
		// a run the probe stopped (its time was up) wrote all it recorded: cut, not partial
		info.Frames, info.Partial = res.Calls, !res.Complete && res.Stopped == ""
	} else {
		info.Partial = true
	}
	return info, true
}

// Close closes a session: its processes end (the run of a command in flight, and the run it keeps
// ready for its next exec), its data stays on disk.
func (m *Manager) Close(id string) error { return m.CloseWhy(id, "closed") }

// CloseWhy closes a session as Close does and remembers why (for the messages about its id).
func (m *Manager) CloseWhy(id, why string) error {
	m.mu.Lock()
	s, ok := m.sessions[id]
	delete(m.sessions, id)
	if ok {
		m.closing++
		m.forget(id, why)
	}
	m.mu.Unlock()
	if !ok {
		if _, err := os.Stat(filepath.Join(m.root, id, "session.json")); err == nil && sessionid.Valid(id) {
			return nil // on disk only: already closed
		}
		return adi.Errorf(ErrNoSession, "no session %q", id)
	}
	defer func() { // also after a panic in Close, so that Shutdown never waits for it forever
		m.mu.Lock()
		m.closing--
		m.closed.Broadcast()
		m.mu.Unlock()
	}()
	s.Close()
	releaseSoon() // its recording is garbage now: return it to the OS once the daemon is idle
	return nil
}

// Delete closes a session and removes its directory.
func (m *Manager) Delete(id string) error {
	if err := m.Close(id); err != nil {
		return err
	}
	if !sessionid.Valid(id) || strings.ContainsAny(id, "/.") {
		return adi.Errorf(ErrNoSession, "no session %q", id)
	}
	return os.RemoveAll(filepath.Join(m.root, id))
}

// Shutdown closes every open session and stops the reaper. It returns once every close has ended,
// also those the reaper or a caller started before.
func (m *Manager) Shutdown() {
	m.stopOnce.Do(func() { close(m.done) })
	m.mu.Lock()
	ids := make([]string, 0, len(m.sessions))
	for id := range m.sessions {
		ids = append(ids, id)
	}
	m.mu.Unlock()
	for _, id := range ids {
		_ = m.CloseWhy(id, "closed when the server stopped")
	}
	m.mu.Lock()
	for m.closing > 0 {
		m.closed.Wait()
	}
	m.mu.Unlock()
}

func (m *Manager) reapIdle() {
	reaper.Run(m.done, m.cfg.IdleTimeout, &m.mu, m.sessions, func(id string) {
		m.log.Info("closing idle session", "session", id)
		_ = m.CloseWhy(id, fmt.Sprintf("it expired after %s unused", m.cfg.IdleTimeout))
	})
}
