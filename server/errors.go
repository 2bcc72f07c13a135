package server

import (
	"errors"
	"fmt"

	"github.com/adi-bridge/adi/internal/errkind"
	"github.com/adi-bridge/adi/internal/wire"
)

// JSON-RPC error codes, named for the server's callers and tests. The table that says what each
// means is errkind's (one kind per code); docs/api.md repeats it for clients.
var (
	CodeParseError      = errkind.ParseError.RPC()
	CodeInvalidRequest  = errkind.InvalidRequest.RPC()
	CodeMethodNotFound  = errkind.MethodNotFound.RPC()
	CodeInvalidParams   = errkind.InvalidParams.RPC()
	CodeInternal        = errkind.Internal.RPC()
	CodeSessionNotFound = errkind.SessionNotFound.RPC()
	CodeNotFound        = errkind.NotFound.RPC()
	CodeBadInput        = errkind.BadInput.RPC()
	CodeSessionClosed   = errkind.SessionClosed.RPC()
	CodeTimeout         = errkind.Timeout.RPC()
	CodeRefused         = errkind.Refused.RPC()
	CodeRunFailed       = errkind.RunFailed.RPC()
	// CodeCancelled is LSP's RequestCancelled: the client cancelled the call.
	CodeCancelled = errkind.Cancelled.RPC()
)

// codeKinds names every code the server sends by its kind word; it is errkind's table read by
// code.
var codeKinds = func() map[int]string {
	m := map[int]string{}
	for _, k := range errkind.All {
		m[k.RPC()] = errkind.ByRPC(k.RPC()).Name()
	}
	return m
}()

// Error is a JSON-RPC error object (package wire's, which clients decode without this package).
type Error = wire.Error

// ErrorData is the data member of every error adi sends.
type ErrorData = wire.ErrorData

// newError returns an error with the given code and a formatted one-line message.
func newError(code int, format string, a ...any) *Error {
	return &Error{Code: code, Message: errkind.Unprefixed(fmt.Sprintf(format, a...)), Data: &ErrorData{Kind: errkind.ByRPC(code).Name()}}
}

// errorFrom turns any error of a method into a JSON-RPC error, choosing the code from the kind
// the error wraps (errkind.Of: an error of no kind is a runtime failure of the target or of a
// tool adi starts, not a bug in adi).
func errorFrom(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return newError(errkind.Of(err).RPC(), "%s", err.Error())
}
