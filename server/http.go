package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/gorilla/websocket"

	"github.com/adi-bridge/adi/internal/faces"
	"github.com/adi-bridge/adi/internal/wire"
)

// routes returns the server's HTTP handler:
//
//	/rpc       WebSocket, JSON-RPC 2.0 (token and origin checked on the handshake)
//	/api/rpc   POST one JSON-RPC message (a request or a batch), get the answer
//	/          the browser viewer, when Config.Static is set
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/rpc", s.serveWS)
	mux.HandleFunc("/api/rpc", s.serveHTTP)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if rf := s.guard.check(r, true); rf != nil {
			refuse(w, rf)
			return
		}
		writeJSONError(w, http.StatusNotFound, "adi: no such API path; POST JSON-RPC to /api/rpc or use ws://ADDR/rpc")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if rf := s.guard.check(r, false); rf != nil {
			refuse(w, rf)
			return
		}
		if s.cfg.Static == nil {
			writeJSONError(w, http.StatusNotFound, "adi: this server has no viewer; use ws://ADDR/rpc or POST /api/rpc")
			return
		}
		s.cfg.Static.ServeHTTP(w, r)
	})
	return mux
}

// serveWS upgrades an authorised request to a WebSocket and serves it.
func (s *Server) serveWS(w http.ResponseWriter, r *http.Request) {
	if rf := s.guard.check(r, true); rf != nil {
		refuse(w, rf)
		return
	}
	if !websocket.IsWebSocketUpgrade(r) {
		writeJSONError(w, http.StatusBadRequest, "adi: /rpc speaks WebSocket; connect with a WebSocket client, or POST to /api/rpc")
		return
	}
	ws, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return // the upgrader has answered
	}
	// The read limit is enforced by the connection itself, so that an oversized message gets a
	// JSON-RPC error before the 1009 close.
	c := newConn(ws, s.h, s.log.Named("ws"))
	s.mu.Lock()
	select {
	case <-s.closed:
		s.mu.Unlock()
		_ = ws.Close()
		return
	default:
	}
	s.conns[c] = struct{}{}
	s.nconns.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.nconns.Add(-1)
		s.mu.Unlock()
	}()
	c.serve()
}

// FaceHeader names the face whose words a client of /api/rpc shows adi's messages in: "cli" for
// the bash CLI (`adi live break`, --keep); without it, the JSON-RPC names (live.set_breakpoint,
// keep).
const FaceHeader = wire.FaceHeader

// FaceOf returns the face a request asks for with FaceHeader (the JSON-RPC API's by default).
func FaceOf(r *http.Request) faces.Face {
	if faces.Face(r.Header.Get(FaceHeader)) == faces.CLI {
		return faces.CLI
	}
	return faces.WebSocket
}

// serveHTTP answers one JSON-RPC message posted to /api/rpc. The call runs detached from the
// request: a client that hangs up does not cancel it.
func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	if rf := s.guard.check(r, true); rf != nil {
		refuse(w, rf)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSONError(w, http.StatusMethodNotAllowed, "adi: POST a JSON-RPC 2.0 message to /api/rpc")
		return
	}
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxMessage))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = w.Write(encode(&response{JSONRPC: "2.0", ID: nullID, Error: tooLarge()}))
		return
	case err != nil:
		writeJSONError(w, http.StatusBadRequest, "adi: cannot read the request body: "+err.Error())
		return
	}
	out := s.h.serveMessage(context.Background(), data, nil, FaceOf(r))
	defer s.h.afterAnswer()
	if out == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	// With its length the answer goes out in one piece, not chunked (the CLI reads it so).
	w.Header().Set("Content-Length", strconv.Itoa(len(out)))
	_, _ = w.Write(out)
}
