package server

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/internal/faces"
)

// HandlerConfig configures a Handler.
type HandlerConfig struct {
	// Manager owns the sessions; required.
	Manager *bridge.Manager
	Log     hclog.Logger
	// Python is the interpreter choice session.create uses when the call names none ("" means
	// discover: $ADI_PYTHON, python3 on PATH, /usr/bin/python3).
	Python string
	// OnShutdown is called by the server.shutdown method; nil refuses that method.
	OnShutdown func()
}

// Handler answers JSON-RPC calls against a Manager's sessions. It is the one place that turns a
// method and its params into a bridge call, shared by the WebSocket and HTTP endpoints and by the
// MCP server, so every ADI command has one implementation (bridge.Session.Do) and one wire form.
// It is safe for concurrent use; commands on one session are serialised by the session.
type Handler struct {
	mgr        *bridge.Manager
	log        hclog.Logger
	python     string
	onShutdown func()
	// shutdownAsked is set by server.shutdown; afterAnswer then runs onShutdown.
	shutdownAsked atomic.Bool

	base   context.Context // commands run on it (and on their caller's context: call)
	cancel context.CancelFunc

	busy       inflight     // calls running now
	lastActive atomic.Int64 // unix nanoseconds of the last call's end

	subsMu sync.Mutex
	subs   map[*Subscription]struct{}
	unsub  func()

	// creating serialises session.create calls naming the same id, so that two clients opening
	// one target at once record it once and share it.
	creating sync.Map // id → *sync.Mutex

	// sources caches the source files of each session's recording, for session.create's
	// check that a reused recording is still current; watch watches them (sources.go).
	sources sync.Map // id → *recordedFiles
	watch   sourceWatch

	// inflight holds the cancel function of every request running now, for $/cancelRequest.
	inflightMu sync.Mutex
	inflight   map[inflightKey]map[uint64]context.CancelFunc
	nextCall   uint64
}

// inflightKey names a running request: the scope it came from (a WebSocket connection, or
// httpScope for every HTTP request) and its JSON-RPC id as sent, compacted.
type inflightKey struct {
	scope any
	id    string
}

// httpScope is the scope of requests posted to /api/rpc: a $/cancelRequest posted there cancels
// the HTTP requests of that id (the CLI gives its cancellable calls ids of their own).
type httpScopeT struct{}

var httpScope any = httpScopeT{}

// track registers cancel for the request id of scope; call the returned function when it ends.
func (h *Handler) track(scope any, id json.RawMessage, cancel context.CancelFunc) func() {
	k := inflightKey{scope: scope, id: compactID(id)}
	h.inflightMu.Lock()
	defer h.inflightMu.Unlock()
	if h.inflight == nil {
		h.inflight = map[inflightKey]map[uint64]context.CancelFunc{}
	}
	h.nextCall++
	n := h.nextCall
	if h.inflight[k] == nil {
		h.inflight[k] = map[uint64]context.CancelFunc{}
	}
	h.inflight[k][n] = cancel
	return func() {
		h.inflightMu.Lock()
		defer h.inflightMu.Unlock()
		delete(h.inflight[k], n)
		if len(h.inflight[k]) == 0 {
			delete(h.inflight, k)
		}
	}
}

// cancelInflight cancels the requests of scope with that id and reports how many it cancelled.
func (h *Handler) cancelInflight(scope any, id json.RawMessage) int {
	k := inflightKey{scope: scope, id: compactID(id)}
	h.inflightMu.Lock()
	defer h.inflightMu.Unlock()
	for _, cancel := range h.inflight[k] {
		cancel()
	}
	return len(h.inflight[k])
}

// compactID writes a JSON-RPC id without insignificant spaces, so that 7 and " 7" match.
func compactID(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

// lockID serialises work on one session id; call the returned function to unlock.
func (h *Handler) lockID(id string) func() {
	m, _ := h.creating.LoadOrStore(id, &sync.Mutex{})
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// NewHandler returns a Handler over cfg.Manager. Close it when done.
func NewHandler(cfg HandlerConfig) *Handler {
	if cfg.Log == nil {
		cfg.Log = hclog.NewNullLogger()
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Handler{mgr: cfg.Manager, log: cfg.Log, python: cfg.Python, onShutdown: cfg.OnShutdown,
		base: ctx, cancel: cancel, subs: map[*Subscription]struct{}{}}
	h.lastActive.Store(time.Now().UnixNano())
	h.unsub = cfg.Manager.Subscribe(h.fanOut)
	return h
}

// Close cancels the commands still running, stops event delivery and ends the source watch.
func (h *Handler) Close() {
	h.unsub()
	h.cancel()
	h.watch.close()
}

// Idle reports how long no call has been running (0 while one runs).
func (h *Handler) Idle() time.Duration {
	if h.busy.Load() > 0 {
		return 0
	}
	return time.Since(time.Unix(0, h.lastActive.Load()))
}

// Call runs one method. peer is the connection that receives the session events it subscribes
// to; nil where there is none (HTTP, in-process callers). A panic in a method becomes an
// internal error and the handler stays usable.
func (h *Handler) Call(name string, raw json.RawMessage, peer Peer) (result any, rerr *Error) {
	return h.CallContext(context.Background(), name, raw, peer)
}

// CallContext is Call that the caller can cancel: when ctx ends, the method's runs end at once
// and the answer is the error cancelledError describes (the server's shutdown cancels too).
func (h *Handler) CallContext(ctx context.Context, name string, raw json.RawMessage, peer Peer) (result any, rerr *Error) {
	return h.call(ctx, name, raw, peer, nil)
}

// call runs one method for CallContext and serveMessage; scope is the requests' scope for
// $/cancelRequest (nil: in-process).
func (h *Handler) call(caller context.Context, name string, raw json.RawMessage, peer Peer, scope any) (result any, rerr *Error) {
	h.busy.Add(1)
	defer func() {
		h.lastActive.Store(time.Now().UnixNano())
		h.busy.Add(-1)
	}()
	m, ok := methods[name]
	if !ok {
		return nil, unknownMethod(name)
	}
	if m.stream && peer == nil {
		return nil, newError(CodeInvalidRequest, "%s needs a WebSocket connection (ws://ADDR/rpc); this endpoint cannot send notifications", name)
	}
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("method panicked", "method", name, "panic", r, "stack", string(debug.Stack()))
			result, rerr = nil, newError(CodeInternal, "internal error in %s: %v (the server is still up; please report this)", name, r)
		}
	}()
	ctx, cancel := context.WithCancel(h.base)
	defer cancel()
	defer context.AfterFunc(caller, cancel)()
	start := time.Now()
	res, err := m.call(&call{ctx: ctx, h: h, p: newParams(m, raw), peer: peer, scope: scope})
	h.log.Debug("call", "method", name, "elapsed", time.Since(start), "error", err)
	if err != nil {
		if caller.Err() != nil && h.base.Err() == nil {
			return nil, cancelledError(name)
		}
		return nil, errorFrom(err)
	}
	return res, nil
}

// cancelledError is the answer to a call its client cancelled.
func cancelledError(name string) *Error {
	return newError(CodeCancelled, "%s was cancelled by the client; the runs it started were ended and the session is still usable", faces.Cmd(name))
}

// afterAnswer runs what a method asked to happen once its answer is sent (queued on a WebSocket,
// whose close frame follows the queued answers; written on HTTP): a server.shutdown.
func (h *Handler) afterAnswer() {
	if h.shutdownAsked.CompareAndSwap(true, false) {
		go h.onShutdown()
	}
}

// CallJSON is Call with the result marshalled and its messages (the result's and an error's)
// in the words of face (adi.run's in the command language it takes: faces.ForMethod), for
// in-process callers (the MCP server, the editor proxy). Ending ctx cancels the call
// (CallContext).
func (h *Handler) CallJSON(ctx context.Context, face faces.Face, name string, params any) (json.RawMessage, *Error) {
	face = face.ForMethod(name)
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, newError(CodeInvalidParams, "%s: params cannot be encoded: %v", name, err)
	}
	res, rerr := h.CallContext(ctx, name, raw, nil)
	if rerr != nil {
		e := *rerr
		e.Message = face.Render(e.Message)
		return nil, &e
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, newError(CodeInternal, "cannot encode the result of %s: %v (please report this)", name, err)
	}
	return face.RenderJSON(b), nil
}

// serveMessage answers one incoming message (a request or a batch), its messages in the words
// of face (package faces). It returns nil when nothing is to be sent back (only notifications).
// The elements of a batch run in order, one after the other, so a batch [break, continue] means
// what it says; and a batch [session.create, X] means "X on that session": once a session.create
// of a batch fails, the later elements that name its session are not run (notRunAfter), so that
// X never acts on an older recording the create did not replace.
//
// conn is the connection's context: when it ends (a WebSocket client went away), the calls of
// the message still running are cancelled, as $/cancelRequest cancels one (context.Background()
// for HTTP, whose calls run detached from the request).
func (h *Handler) serveMessage(conn context.Context, data []byte, peer Peer, face faces.Face) []byte {
	if len(data) > MaxMessage {
		return encode(&response{JSONRPC: "2.0", ID: nullID, Error: tooLarge()})
	}
	reqs, errs, batch, perr := decodeMessage(data)
	if perr != nil {
		return encode(&response{JSONRPC: "2.0", ID: nullID, Error: perr})
	}
	var scope any = httpScope
	if peer != nil {
		scope = peer
	}
	var out [][]byte
	var failed []string // the sessions whose session.create failed earlier in this batch
	for i, r := range reqs {
		resp := &response{JSONRPC: "2.0", ID: r.ID}
		if errs[i] != nil {
			resp.Error = errs[i]
		} else if len(failed) > 0 && slices.Contains(failed, paramString(r.Params, "session")) {
			resp.Error = notRunAfter(paramString(r.Params, "session"))
		} else {
			ctx, cancel := context.WithCancel(conn)
			untrack := func() {}
			if !r.notification() {
				untrack = h.track(scope, r.ID, cancel)
			}
			resp.Result, resp.Error = h.call(ctx, r.Method, r.Params, peer, scope)
			untrack()
			cancel()
			if batch && resp.Error != nil && r.Method == "session.create" {
				if id := paramString(r.Params, "id"); id != "" {
					failed = append(failed, id)
				}
			}
			if r.notification() {
				continue
			}
			if resp.Error == nil && resp.Result == nil {
				resp.Result = struct{}{}
			}
		}
		out = append(out, face.ForMethod(r.Method).RenderJSON(encode(resp)))
	}
	switch {
	case len(out) == 0:
		return nil
	case !batch:
		return out[0]
	}
	b := []byte{'['}
	for i, o := range out {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, o...)
	}
	return append(b, ']')
}

// notRunAfter is the error of a batch element not run because the session.create of its session
// failed before it in the batch.
func notRunAfter(session string) *Error {
	return newError(CodeRefused, "not run: the session.create of %s before it in this batch failed; see that error", session)
}

// paramString returns the string member key of a request's params ("" when there is none).
func paramString(params json.RawMessage, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil {
		return ""
	}
	var v string
	if json.Unmarshal(m[key], &v) != nil {
		return ""
	}
	return v
}

// Peer is a connection that can receive session events.
type Peer interface {
	// Events returns the connection's subscription.
	Events() *Subscription
}

// Subscription says which sessions' events a connection wants and delivers them without
// blocking (deliver must not block: it is called from the goroutine doing a session's work).
type Subscription struct {
	deliver func(bridge.Event)

	mu       sync.Mutex
	all      bool
	sessions map[string]bool
}

// NewSubscription returns a subscription that wants nothing yet and delivers with fn.
func NewSubscription(fn func(bridge.Event)) *Subscription {
	return &Subscription{deliver: fn, sessions: map[string]bool{}}
}

func (s *Subscription) add(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if session == "" {
		s.all = true
		return
	}
	s.sessions[session] = true
}

func (s *Subscription) remove(session string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if session == "" {
		s.all = false
		s.sessions = map[string]bool{}
		return
	}
	delete(s.sessions, session)
}

func (s *Subscription) wants(session string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.all || s.sessions[session]
}

// attach starts delivering events to sub (filtered by what it subscribed to).
func (h *Handler) attach(sub *Subscription) {
	h.subsMu.Lock()
	h.subs[sub] = struct{}{}
	h.subsMu.Unlock()
}

// detach stops delivering events to sub.
func (h *Handler) detach(sub *Subscription) {
	h.subsMu.Lock()
	delete(h.subs, sub)
	h.subsMu.Unlock()
}

// fanOut hands a session event to every subscription that wants it.
func (h *Handler) fanOut(ev bridge.Event) {
	h.subsMu.Lock()
	subs := make([]*Subscription, 0, len(h.subs))
	for s := range h.subs {
		subs = append(subs, s)
	}
	h.subsMu.Unlock()
	for _, s := range subs {
		if s.wants(ev.Session) {
			s.deliver(ev)
		}
	}
}
