package dapproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/dap"
	"github.com/adi-bridge/adi/server"
)

// Config configures a Server.
type Config struct {
	// Python is the interpreter whose debugpy adapter serves each connection (required).
	Python *dap.Python
	// Manager receives a session for every launch it records; nil records nothing (the proxy
	// then only forwards).
	Manager *bridge.Manager
	// Handler answers the editor's adi/ requests: its method table is the one the WebSocket API
	// serves (`adi serve --dap` passes its own). It must serve Manager's sessions. When nil and
	// Manager is set, the Server makes one over Manager and closes it in Close.
	Handler *server.Handler
	// Session holds the defaults of recorded sessions: Timeout (of the re-runs that record
	// FLTs), Limits, ReprLimit.
	Session bridge.Options
	Log     hclog.Logger
	// BodyTimeout bounds the arrival of one editor message (DefaultBodyTimeout when zero).
	BodyTimeout time.Duration
	// OnSession is called when a launch starts being recorded (may be nil).
	OnSession func(id, dir string)
	// Wiretap, when set, sees every message of every connection as the bytes that crossed the
	// wire, in the order each side read or wrote them (for tests and traffic dumps). It is
	// called from the connection's goroutines and must not block.
	Wiretap func(conn int64, dir Direction, raw []byte)
}

// Direction says where a message seen by Config.Wiretap went.
type Direction string

// The four streams of a connection.
const (
	FromEditor  Direction = "editor->proxy"
	ToAdapter   Direction = "proxy->adapter"
	FromAdapter Direction = "adapter->proxy"
	ToEditor    Direction = "proxy->editor"
)

// Server serves editor connections: each gets its own debugpy adapter and is forwarded to it.
// It runs one goroutine per listener (the accept loop), the goroutines of each connection (see
// link), and background recordings (the FLTs of an editor's stops, after its run ended).
type Server struct {
	cfg Config
	log hclog.Logger
	// handler answers adi/ requests (Config.Handler, or ownHandler); nil when nothing is recorded.
	handler *server.Handler
	// ownHandler is the handler the Server made (Close closes it); nil when Config gave one.
	ownHandler *server.Handler

	ctx    context.Context // background work; ended by Close
	cancel context.CancelFunc

	mu       sync.Mutex
	self     *net.TCPAddr // where child sessions are sent (the first listener); nil: nowhere
	children map[int]childRoute
	links    map[*link]struct{}
	nextID   atomic.Int64
	work     sync.WaitGroup
	closed   bool

	// newBackend starts the adapter of a new connection (startBackend; a fake one in tests).
	newBackend func(log hclog.Logger, tap func([]byte)) (*backend, error)
}

// childRoute is where a child process's adapter listens, and the connection that announced it.
type childRoute struct {
	addr   string
	parent *link
}

// NewServer returns a Server.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Python == nil {
		return nil, errors.New("the DAP proxy needs a python with debugpy; run `adi doctor`")
	}
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, log: cfg.Log, ctx: ctx, cancel: cancel,
		children: map[int]childRoute{}, links: map[*link]struct{}{}, handler: cfg.Handler}
	if s.handler == nil && cfg.Manager != nil {
		s.ownHandler = server.NewHandler(server.HandlerConfig{Manager: cfg.Manager, Log: cfg.Log.Named("adi"), Python: cfg.Python.Path})
		s.handler = s.ownHandler
	}
	s.newBackend = func(log hclog.Logger, tap func([]byte)) (*backend, error) {
		return startBackend(cfg.Python, log, tap)
	}
	return s, nil
}

// Serve accepts editor connections on ln until ctx ends or ln is closed. The first listener a
// Server serves is where it sends the editor to open child processes' sessions.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	s.mu.Lock()
	if a, ok := ln.Addr().(*net.TCPAddr); ok && s.self == nil {
		self := *a
		if self.IP.IsUnspecified() {
			self.IP = net.IPv4(127, 0, 0, 1)
		}
		s.self = &self
	}
	s.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = ln.Close() })
	defer stop()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accepting DAP connections failed: %w", err)
		}
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		go func() { _ = s.ServeConn(ctx, c, c, c) }()
	}
}

// ServeConn serves one editor connection (an accepted socket, or adi's own stdio) until it
// ends: the editor leaves, its adapter ends, ctx ends, or the Server closes.
func (s *Server) ServeConn(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) error {
	l, err := s.newLink(ctx, r, w, c)
	if err != nil {
		return err
	}
	go l.serve()
	select {
	case <-l.done:
	case <-ctx.Done():
		l.teardown("adi is shutting down")
	}
	l.workers.Wait()
	return nil
}

func (s *Server) newLink(ctx context.Context, r io.Reader, w io.Writer, c io.Closer) (*link, error) {
	id := s.nextID.Add(1)
	log := s.log.Named(fmt.Sprintf("conn%d", id))
	lctx, cancel := context.WithCancel(context.Background())
	l := &link{
		srv: s, id: id, log: log, ctx: lctx, cancel: cancel,
		editor: newSide("editor", dap.NewLimitedConn(r, w, c, dap.Limits{MaxBody: dap.EditorMaxBody, BodyTimeout: s.bodyTimeout()}), log, s.tap(id, ToEditor)),
		econn:  c, gate: newGate(), settled: newGate(), done: make(chan struct{}),
		tapFromEditor: s.tap(id, FromEditor), tapFromAdapter: s.tap(id, FromAdapter),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		_ = c.Close()
		return nil, errors.New("the DAP proxy is shutting down")
	}
	s.links[l] = struct{}{}
	s.mu.Unlock()
	b, err := s.newBackend(log, s.tap(id, ToAdapter))
	if err != nil {
		log.Error("cannot start the debugpy adapter", "error", err)
		l.beErr = err
	} else {
		l.be = b
		go l.readBackend(b)
	}
	return l, nil
}

// tap returns the wiretap of one stream of connection id (nil when there is none).
func (s *Server) tap(id int64, dir Direction) func([]byte) {
	fn := s.cfg.Wiretap
	if fn == nil {
		return nil
	}
	return func(raw []byte) { fn(id, dir, raw) }
}

// bodyTimeout is Config.BodyTimeout or its default.
func (s *Server) bodyTimeout() time.Duration {
	if s.cfg.BodyTimeout > 0 {
		return s.cfg.BodyTimeout
	}
	return DefaultBodyTimeout
}

// DefaultBodyTimeout bounds the arrival of one editor message when Config.BodyTimeout is zero.
const DefaultBodyTimeout = dap.DefaultBodyTimeout

// forget drops a closed connection and the child routes it announced.
func (s *Server) forget(l *link) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.links, l)
	for pid, c := range s.children {
		if c.parent == l {
			delete(s.children, pid)
		}
	}
}

// childAddr is the address debugpyAttach events are rewritten to (nil: leave them).
func (s *Server) childAddr() *net.TCPAddr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.self
}

func (s *Server) addChild(pid int, c childRoute) {
	s.mu.Lock()
	s.children[pid] = c
	s.mu.Unlock()
}

// takeChild returns (and forgets) the route of a child process the proxy announced.
func (s *Server) takeChild(pid int) (childRoute, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.children[pid]
	delete(s.children, pid)
	return c, ok
}

// isSelf reports whether host:port is the proxy's own listener.
func (s *Server) isSelf(host string, port int) bool {
	self := s.childAddr()
	if self == nil || port != self.Port {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.Equal(self.IP) || ip.IsUnspecified())
}

// background runs fn outside any connection (it outlives the editor's), until Close.
func (s *Server) background(fn func(ctx context.Context)) {
	s.work.Add(1)
	go func() {
		defer s.work.Done()
		defer func() {
			if v := recover(); v != nil {
				s.log.Error("a background recording panicked; it is abandoned", "panic", v, "stack", string(debug.Stack()))
			}
		}()
		fn(s.ctx)
	}()
}

// Close ends every connection (and their processes), then waits up to wait for the background
// recordings to end before cancelling them. Later calls do nothing.
func (s *Server) Close(wait time.Duration) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	links := make([]*link, 0, len(s.links))
	for l := range s.links {
		links = append(links, l)
	}
	s.mu.Unlock()
	for _, l := range links {
		l.teardown("adi is shutting down")
	}
	done := make(chan struct{})
	go func() {
		s.work.Wait()
		close(done)
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.cancel()
		<-done
	}
	s.cancel()
	if s.ownHandler != nil {
		s.ownHandler.Close()
	}
}
