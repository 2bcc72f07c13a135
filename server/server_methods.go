package server

import (
	"os"
	"time"
)

// The server.* methods describe and stop the server itself.
func init() {
	register(
		&method{name: "server.info", usage: "{}", summary: "the server's pid, uptime and open sessions", call: serverInfo},
		&method{name: "server.methods", usage: "{}", summary: "every method with its params", call: serverMethods},
		&method{name: "server.shutdown", usage: "{}", summary: "stop the server: every session's processes end, data stays on disk", call: serverShutdown},
		&method{name: "$/cancelRequest", usage: "{id}", summary: "cancel a request still running on this connection (over HTTP: the HTTP requests of that id); it ends at once, its runs with it, and answers with the cancelled error", call: cancelRequest},
	)
}

// cancelRequest cancels the running requests of the caller's scope that have the given id
// (usually sent as a notification; as a request it answers {cancelled: N}, how many it found).
func cancelRequest(c *call) (any, error) {
	id := c.p.raw("id", true)
	if err := c.p.done(); err != nil {
		return nil, err
	}
	if c.scope == nil {
		return map[string]any{"cancelled": 0}, nil
	}
	return map[string]any{"cancelled": c.h.cancelInflight(c.scope, id)}, nil
}

var started = time.Now()

func serverInfo(c *call) (any, error) {
	if err := c.p.done(); err != nil {
		return nil, err
	}
	return map[string]any{"pid": os.Getpid(), "uptime_ms": time.Since(started).Milliseconds(), "open_sessions": c.h.mgr.OpenCount()}, nil
}

func serverMethods(c *call) (any, error) {
	if err := c.p.done(); err != nil {
		return nil, err
	}
	return map[string]any{"methods": Methods()}, nil
}

func serverShutdown(c *call) (any, error) {
	if err := c.p.done(); err != nil {
		return nil, err
	}
	if c.h.onShutdown == nil {
		return nil, newError(CodeRefused, "this server cannot be stopped over the API; stop the process that runs it")
	}
	// Answer first: the shutdown closes the connection this answer travels on, so the transport
	// starts it once the answer is on its way (afterAnswer).
	c.h.shutdownAsked.Store(true)
	return map[string]bool{"stopping": true}, nil
}
