package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/bridge"
)

// Config configures a Server.
type Config struct {
	// Listen is HOST:PORT (default 127.0.0.1:0, a free port on loopback).
	Listen string
	// AllowRemote permits a non-loopback Listen address.
	AllowRemote bool
	// Token is required on every API call; "" makes a random one.
	Token string
	// Manager owns the sessions; required. The server does not shut it down.
	Manager *bridge.Manager
	// Python is the default interpreter choice for session.create.
	Python string
	// Static serves the browser viewer at "/" without a token (the page reads the token from its
	// URL fragment); nil serves no viewer.
	Static http.Handler
	// ExitWhenIdle asks the server to stop (Stopped is closed) once no session is open, no client
	// is connected and no call has run for this long; 0 never.
	ExitWhenIdle time.Duration
	Log          hclog.Logger
}

// Server serves the JSON-RPC API over WebSocket (/rpc) and HTTP (POST /api/rpc).
type Server struct {
	cfg   Config
	log   hclog.Logger
	h     *Handler
	ln    net.Listener
	http  *http.Server
	guard *guard
	token string

	up        websocket.Upgrader
	mu        sync.Mutex
	conns     map[*wsConn]struct{}
	nconns    inflight      // len(conns), to wait on
	stop      chan struct{} // closed when a stop is requested (server.shutdown, idle)
	stopOnce  sync.Once
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
	serveErr  chan error
}

// Start checks cfg, listens, and serves in the background until Close.
func Start(cfg Config) (*Server, error) {
	if cfg.Manager == nil {
		return nil, errors.New("adi: server.Config.Manager is required")
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	if err := CheckListen(cfg.Listen, cfg.AllowRemote); err != nil {
		return nil, err
	}
	token := cfg.Token
	if token == "" {
		var err error
		if token, err = NewToken(); err != nil {
			return nil, err
		}
	} else if err := CheckToken(token); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("adi: cannot listen on %s (is the port taken? use :0 for a free one): %w", cfg.Listen, err)
	}
	s := &Server{cfg: cfg, log: cfg.Log, ln: ln, token: token, conns: map[*wsConn]struct{}{},
		stop: make(chan struct{}), closed: make(chan struct{}), serveErr: make(chan error, 1)}
	s.guard = newGuard(token, ln.Addr().(*net.TCPAddr), cfg.AllowRemote)
	s.h = NewHandler(HandlerConfig{Manager: cfg.Manager, Log: cfg.Log.Named("rpc"), Python: cfg.Python, OnShutdown: s.requestStop})
	// The guard checks the origin before the upgrade; the upgrader repeats nothing.
	s.up = websocket.Upgrader{ReadBufferSize: 32 << 10, WriteBufferSize: 32 << 10,
		CheckOrigin: func(*http.Request) bool { return true }}
	s.http = &http.Server{Handler: s.routes(), ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: cfg.Log.StandardLogger(&hclog.StandardLoggerOptions{InferLevels: true})}
	go func() { s.serveErr <- s.http.Serve(ln) }()
	if cfg.ExitWhenIdle > 0 {
		go s.watchIdle(cfg.ExitWhenIdle)
	}
	return s, nil
}

// CheckToken refuses a token too short or with spaces to be sent in a header.
func CheckToken(token string) error {
	if strings.ContainsAny(token, " \t\r\n") || len(token) < 8 {
		return errors.New("adi: --token must be at least 8 characters without spaces; omit it for a random one")
	}
	return nil
}

// Addr returns the address the server listens on (HOST:PORT).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL returns http://ADDR.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Token returns the token clients must send.
func (s *Server) Token() string { return s.token }

// Handler returns the server's JSON-RPC handler.
func (s *Server) Handler() *Handler { return s.h }

// Stopped is closed when a client asked the server to stop (server.shutdown) or it has been
// idle for ExitWhenIdle; the owner then calls Close.
func (s *Server) Stopped() <-chan struct{} { return s.stop }

func (s *Server) requestStop() { s.stopOnce.Do(func() { close(s.stop) }) }

// Close stops the server: it cancels the commands still running (their runs end), closes every
// WebSocket with 1001 after its queued answers, stops accepting, and waits (until ctx ends) for
// the calls in progress to return. It does not shut the Manager down: its owner does.
func (s *Server) Close(ctx context.Context) error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closed)
		s.requestStop()
		s.h.Close()
		s.mu.Lock()
		for c := range s.conns {
			c.closeWith(websocket.CloseGoingAway, "adi server shutting down")
		}
		s.mu.Unlock()
		err = s.http.Shutdown(ctx) // hijacked WebSockets are not waited for here
		s.waitConns(ctx)
		_ = s.h.busy.wait(ctx)
		if e := <-s.serveErr; e != nil && !errors.Is(e, http.ErrServerClosed) {
			err = errors.Join(err, e)
		}
	})
	return err
}

// waitConns waits for the WebSockets to end, then cuts the ones left.
func (s *Server) waitConns(ctx context.Context) {
	if s.nconns.wait(ctx) == nil {
		return
	}
	s.mu.Lock()
	for c := range s.conns {
		_ = c.ws.NetConn().Close()
	}
	s.mu.Unlock()
}

// watchIdle requests a stop once nothing has happened for d. It sleeps until a WebSocket or a
// call ends, or until the idle time could reach d; only while sessions are open (they close on
// their own idle timeout, which sends nothing here) does it look again every d/4.
func (s *Server) watchIdle(d time.Duration) {
	recheck := min(max(d/4, 50*time.Millisecond), 10*time.Second)
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		conns, connsChanged := s.nconns.watch()
		busy, busyChanged := s.h.busy.watch()
		wait := time.Duration(-1) // until a change
		if conns == 0 && busy == 0 {
			if idle := s.h.Idle(); idle < d {
				wait = d - idle
			} else if s.cfg.Manager.OpenCount() == 0 {
				s.log.Info("idle with no session open; stopping", "idle", d)
				s.requestStop()
				return
			} else {
				wait = recheck
			}
		}
		var fire <-chan time.Time
		if wait >= 0 {
			timer.Reset(wait)
			fire = timer.C
		}
		select {
		case <-s.closed:
			return
		case <-connsChanged:
		case <-busyChanged:
		case <-fire:
		}
		timer.Stop() // Reset discards a fire nobody took (Go 1.23 timers)
	}
}
