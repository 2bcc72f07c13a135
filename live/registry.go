package live

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/reaper"
	"github.com/adi-bridge/adi/internal/sessionid"
)

// RegistryConfig configures a Registry.
type RegistryConfig struct {
	// Idle closes sessions unused for this long (0: never, as bridge.ManagerConfig.IdleTimeout).
	Idle time.Duration
	Log  hclog.Logger
}

// Registry owns the live sessions of one adi process: it names them, finds them, closes idle ones
// (their processes end) and remembers why a closed id is gone. With an idle timeout it runs one
// reaper goroutine until Shutdown.
type Registry struct {
	cfg RegistryConfig
	log hclog.Logger

	mu       sync.Mutex
	sessions map[string]*Session
	starting map[string]bool
	gone     map[string]string // id → why it is gone (closed, expired), for messages
	goneList []string          // ids in gone, oldest first (bounded)
	done     chan struct{}
	stopOnce sync.Once
	closing  int        // closes in progress (under mu); Shutdown waits for them
	closed   *sync.Cond // signalled (on mu) when a close ends
}

// maxGone bounds how many closed ids a registry remembers.
const maxGone = 256

// NewRegistry returns a Registry; Shutdown it when done.
func NewRegistry(cfg RegistryConfig) *Registry {
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	r := &Registry{cfg: cfg, log: cfg.Log, sessions: map[string]*Session{}, starting: map[string]bool{},
		gone: map[string]string{}, done: make(chan struct{})}
	r.closed = sync.NewCond(&r.mu)
	if cfg.Idle > 0 {
		go r.reap()
	}
	return r
}

// NewID returns a fresh live session id.
func NewID() string { return sessionid.New("live-", 4) }

// Start launches a new live session under id ("" for a fresh one) and answers with its first
// summary. An open session of that id is an error unless replace is set: it is then closed first.
func (r *Registry) Start(ctx context.Context, id string, replace bool, opts Options) (*Session, *Answer, error) {
	if id == "" {
		id = NewID()
	}
	if !sessionid.Valid(id) {
		return nil, nil, adi.BadInputf("live session id %q is not valid; use letters, digits, '-' and '_' (at most 64)", id)
	}
	r.mu.Lock()
	if r.starting[id] {
		r.mu.Unlock()
		return nil, nil, adi.BadInputf("live session %s is being started by another call; wait for it or pick another id", id)
	}
	old := r.sessions[id]
	if old != nil && !replace {
		r.mu.Unlock()
		return nil, nil, adi.BadInputf("live session %s is already open; %s it, %s it, or pass %s to start it over", id, cmdMark(CmdClose), cmdMark(CmdRestart), faces.Param("live.start", "replace"))
	}
	r.starting[id] = true
	delete(r.sessions, id)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.starting, id)
		r.mu.Unlock()
	}()
	if old != nil {
		r.mu.Lock()
		r.closing++
		r.mu.Unlock()
		old.Close()
		r.closeEnded()
	}
	s, err := newSession(ctx, id, opts, r.log.Named(id))
	if err != nil {
		return nil, nil, err
	}
	s.onClose = func() { r.dropped(id, s, "closed") }
	r.mu.Lock()
	r.sessions[id] = s
	delete(r.gone, id)
	r.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	text := fmt.Sprintf("Started `%s` under debugpy as live session %s (watchdog %s). No line has run yet: set breakpoints (%s), then %s. Every answer ends with the session's summary.",
		s.Command, id, seconds(ms(s.opts.Timeout)), cmdMark(CmdSetBreakpoint)+" "+faces.Param("live.set_breakpoint", "location"), cmdMark(CmdContinue))
	if s.attach != "" {
		text = s.attachedText()
	}
	return s, s.answer("start", result{text: text}), nil
}

// Get returns the open session id.
func (r *Registry) Get(id string) (*Session, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.sessions[id]; ok {
		return s, nil
	}
	if why, ok := r.gone[id]; ok {
		return nil, errNoSession(id, why)
	}
	return nil, errNoSession(id, "it was never started in this server")
}

// Close closes the session id (every process of it ends) and answers with its last summary.
func (r *Registry) Close(id string) (*Answer, error) {
	return r.remove(id, "closed")
}

func (r *Registry) remove(id, why string) (*Answer, error) {
	r.mu.Lock()
	s, ok := r.sessions[id]
	if ok {
		delete(r.sessions, id)
		r.forget(id, why)
		r.closing++
	}
	r.mu.Unlock()
	if !ok {
		_, err := r.Get(id)
		return nil, err
	}
	defer r.closeEnded()
	return s.Close(), nil
}

// closeEnded counts a close as ended.
func (r *Registry) closeEnded() {
	r.mu.Lock()
	r.closing--
	r.mu.Unlock()
	r.closed.Broadcast()
}

// dropped takes s out of the registry when it closed by itself (Session.Close), unless the id
// names another session by now.
func (r *Registry) dropped(id string, s *Session, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions[id] == s {
		delete(r.sessions, id)
		r.forget(id, why)
	}
}

// forget remembers why id is gone; r.mu is held.
func (r *Registry) forget(id, why string) {
	if _, ok := r.gone[id]; !ok {
		r.goneList = append(r.goneList, id)
	}
	r.gone[id] = why
	for len(r.goneList) > maxGone {
		delete(r.gone, r.goneList[0])
		r.goneList = r.goneList[1:]
	}
}

// Info describes an open live session for listings.
type Info struct {
	ID       string    `json:"id"`
	Command  string    `json:"command"`
	Dir      string    `json:"dir"`
	State    State     `json:"state"`
	Run      int       `json:"run"`
	Busy     bool      `json:"busy"`
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"last_used"`
}

// List describes the open sessions, oldest first. A session busy with a command shows the state
// it had before that command.
func (r *Registry) List() []Info {
	r.mu.Lock()
	all := make([]*Session, 0, len(r.sessions))
	for _, s := range r.sessions {
		all = append(all, s)
	}
	r.mu.Unlock()
	out := make([]Info, 0, len(all))
	for _, s := range all {
		out = append(out, s.info())
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Created.Before(out[b].Created) })
	return out
}

// Open counts the open sessions.
func (r *Registry) Open() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sessions)
}

// Shutdown closes every session, stops the reaper, and returns once every close (also those in
// progress) has ended its processes.
func (r *Registry) Shutdown() {
	r.stopOnce.Do(func() { close(r.done) })
	r.mu.Lock()
	ids := make([]string, 0, len(r.sessions))
	for id := range r.sessions {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	for _, id := range ids {
		_, _ = r.remove(id, "closed when the server stopped")
	}
	r.mu.Lock()
	for r.closing > 0 { // closes the reaper (or a caller) started end before Shutdown returns
		r.closed.Wait()
	}
	r.mu.Unlock()
}

func (r *Registry) reap() {
	reaper.Run(r.done, r.cfg.Idle, &r.mu, r.sessions, func(id string) {
		r.log.Info("closing idle live session", "live", id)
		_, _ = r.remove(id, fmt.Sprintf("it expired after %s unused", r.cfg.Idle))
	})
}
