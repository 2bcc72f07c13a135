// Package server is adi's JSON-RPC 2.0 API (docs/api.md): a WebSocket endpoint (/rpc), the same
// calls over HTTP (POST /api/rpc), and a hook for the browser viewer (Config.Static at /). It owns
// the wire (decoding, params, batches, the error table), the security of the listener (loopback
// unless allowed, the token, the Origin and Host checks) and the connections; package bridge owns
// the sessions and runs every command (bridge.Session.Do); package live owns live sessions (the
// live.* methods call live.Session.Do; a live session is a session of the one bridge.Manager
// with a live part, so adi.* methods answer about what its watches caught).
// Handler is the method table; the MCP server calls it in-process so that every face shares one
// wire form.
//
// Goroutines: net/http's accept loop and one goroutine per HTTP request; per WebSocket, the read
// pump (the request's goroutine), one write pump, and one goroutine per incoming message while it
// is answered (at most 32 per connection). A WebSocket's commands run on a context the
// connection's end cancels (the client went away: its commands would otherwise keep their
// sessions busy, answering no one); an HTTP request's calls run detached from the request;
// Close cancels what still runs. With
// Config.ExitWhenIdle, one goroutine watches for idleness. Session events reach connections
// through bounded queues, never blocking the session that emits them.
package server
