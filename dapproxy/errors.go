package dapproxy

import (
	"context"
	"errors"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
)

// Error ids of the proxy's own error responses (body.error.id), all in one place. debugpy's own
// errors pass through unchanged.
const (
	// ErrIDMalformed: the editor's message is a request, but not a valid one.
	ErrIDMalformed = 3001
	// ErrIDAdapterGone: the debug adapter ended before it could answer.
	ErrIDAdapterGone = 3002
	// ErrIDRoute: an attach names an adapter the proxy cannot reach.
	ErrIDRoute = 3003
	// ErrIDNoDebugpy: the launch names a python without debugpy, which debugpy's launcher and
	// the debuggee need.
	ErrIDNoDebugpy = 3004
	// ErrIDNotRecording: an adi/ request on a connection whose run is not recorded.
	ErrIDNotRecording = 3101
	// ErrIDUnknownCommand: adi/<name> is not an ADI command.
	ErrIDUnknownCommand = 3102
	// ErrIDBadInput: the arguments of an adi/ request are wrong (adi.ErrBadInput).
	ErrIDBadInput = 3103
	// ErrIDNotFound: an adi/ request names a function, frame or line that does not exist
	// (adi.ErrNotFound).
	ErrIDNotFound = 3104
	// ErrIDSessionClosed: the session was closed.
	ErrIDSessionClosed = 3105
	// ErrIDTimeout: the command ran out of time.
	ErrIDTimeout = 3106
	// ErrIDInternal: a bug in adi; the connection stays usable.
	ErrIDInternal = 3199
)

// errorID returns the id of an error from an adi/ request.
func errorID(err error) int {
	switch {
	case errors.Is(err, adi.ErrBadInput):
		return ErrIDBadInput
	case errors.Is(err, adi.ErrNotFound):
		return ErrIDNotFound
	case errors.Is(err, bridge.ErrClosed):
		return ErrIDSessionClosed
	case errors.Is(err, context.DeadlineExceeded):
		return ErrIDTimeout
	}
	return ErrIDInternal
}

// errorResponse is a failed response to the request requestSeq, in DAP's form.
func errorResponse(requestSeq int, command string, id int, text string) map[string]any {
	return map[string]any{
		"type": "response", "request_seq": requestSeq, "command": command, "success": false,
		"message": text,
		"body":    map[string]any{"error": map[string]any{"id": id, "format": text, "showUser": true}},
	}
}

// response is a successful response to the request requestSeq.
func response(requestSeq int, command string, body any) map[string]any {
	m := map[string]any{"type": "response", "request_seq": requestSeq, "command": command, "success": true}
	if body != nil {
		m["body"] = body
	}
	return m
}

// event is an event the proxy makes.
func event(name string, body any) map[string]any {
	m := map[string]any{"type": "event", "event": name}
	if body != nil {
		m["body"] = body
	}
	return m
}
