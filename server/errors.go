package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
)

// JSON-RPC error codes. The table below (codeKinds) is the one place that says what each means;
// docs/api.md repeats it for clients.
const (
	CodeParseError      = -32700
	CodeInvalidRequest  = -32600
	CodeMethodNotFound  = -32601
	CodeInvalidParams   = -32602
	CodeInternal        = -32603
	CodeSessionNotFound = -32001
	CodeNotFound        = -32002
	CodeBadInput        = -32003
	CodeSessionClosed   = -32004
	CodeTimeout         = -32005
	CodeRefused         = -32006
	CodeRunFailed       = -32007
	// CodeCancelled is LSP's RequestCancelled: the client cancelled the call.
	CodeCancelled = -32800
)

// codeKinds names every code; the name travels in error.data.kind so that clients can switch on
// a word instead of a number.
var codeKinds = map[int]string{
	CodeParseError:      "parse_error",     // not JSON
	CodeInvalidRequest:  "invalid_request", // not a JSON-RPC 2.0 request, or too large
	CodeMethodNotFound:  "method_not_found",
	CodeInvalidParams:   "invalid_params",    // missing, unknown or wrongly typed params
	CodeInternal:        "internal",          // a bug; the server stays up
	CodeSessionNotFound: "session_not_found", // unknown or deleted session id
	CodeNotFound:        "not_found",         // unknown function, frame, line or visit
	CodeBadInput:        "bad_input",         // a bad target, condition, statement or reference
	CodeSessionClosed:   "session_closed",    // closed or expired while the call waited
	CodeTimeout:         "timeout",           // the run hit its wall-clock limit
	CodeRefused:         "refused",           // the command is invalid in the current state
	CodeRunFailed:       "run_failed",        // the target or a tool it needs failed to run
	CodeCancelled:       "cancelled",         // the client cancelled the call ($/cancelRequest)
}

// Error is a JSON-RPC error object. Message is one line: what is wrong and what to do.
type Error struct {
	Code    int        `json:"code"`
	Message string     `json:"message"`
	Data    *ErrorData `json:"data,omitempty"`
}

// ErrorData is the data member of every error adi sends.
type ErrorData struct {
	Kind string `json:"kind"`
	// Valid lists what would have been accepted (method names, param names), when that helps.
	Valid []string `json:"valid,omitempty"`
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// Kind returns the error's kind word ("not_found", ...).
func (e *Error) Kind() string { return codeKinds[e.Code] }

// newError returns an error with the given code and a formatted one-line message.
func newError(code int, format string, a ...any) *Error {
	return &Error{Code: code, Message: oneLine(fmt.Sprintf(format, a...)), Data: &ErrorData{Kind: codeKinds[code]}}
}

// errorFrom turns any error of a method into a JSON-RPC error, choosing the code from the
// sentinel the error wraps. An error that wraps none is a runtime failure of the target or of a
// tool adi starts (python, debugpy), not a bug in adi.
func errorFrom(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	code := CodeRunFailed
	switch {
	case errors.Is(err, bridge.ErrNoSession):
		code = CodeSessionNotFound
	case errors.Is(err, bridge.ErrClosed):
		code = CodeSessionClosed
	case errors.Is(err, context.DeadlineExceeded):
		code = CodeTimeout
	case errors.Is(err, adi.ErrNotFound):
		code = CodeNotFound
	case errors.Is(err, adi.ErrBadInput):
		code = CodeBadInput
	}
	return newError(code, "%s", err.Error())
}

// oneLine folds a message onto one line and drops the "adi: " prefix (clients add their own).
func oneLine(s string) string {
	s = strings.TrimSpace(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s))
	return strings.TrimPrefix(s, "adi: ")
}
