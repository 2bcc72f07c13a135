// Package errkind is adi's one vocabulary of error kinds and the one table that says what each
// kind is called on each face: its JSON-RPC code (WebSocket, HTTP, MCP), its DAP error id (the
// editor proxy's own error responses, body.error.id) and the CLI's exit status.
//
// A package that fails marks its error with a kind (adi.NotFoundf, adi.Errorf(kind, ...), or a
// sentinel made with Sentinel) and never chooses a code; a face asks Of for the kind of an error
// and reads its code here. Messages carry no "adi: " prefix: the faces that print a message for a
// person (the CLI, the editor's DAP messages) add it with Prefixed.
package errkind

import (
	"context"
	"errors"
	"strings"
)

// Kind is one kind of error. It is itself an error (its text is the kind's short description),
// so that a package can use a kind as its sentinel and callers test it with errors.Is.
type Kind struct {
	name string
	text string
	// rpc is the JSON-RPC code, dap the DAP error id, exit the CLI's exit status.
	rpc, dap, exit int
}

// Error returns the kind's short description ("not found").
func (k *Kind) Error() string { return k.text }

// Name returns the kind's word ("not_found"), which travels in JSON-RPC's error.data.kind.
func (k *Kind) Name() string { return k.name }

// RPC returns the kind's JSON-RPC error code.
func (k *Kind) RPC() int { return k.rpc }

// DAP returns the kind's DAP error id (body.error.id of the proxy's error responses).
func (k *Kind) DAP() int { return k.dap }

// Exit returns the exit status of the CLI when a command fails with this kind.
func (k *Kind) Exit() int { return k.exit }

// Exit statuses of the CLI.
const (
	exitFailed      = 1   // the command failed (cli.ExitFailed)
	exitInterrupted = 130 // the command was cancelled (cli.ExitInterrupted)
)

// The kinds, with their codes on every face. A kind that only one face makes (AdapterGone, Route,
// NotRecording: the editor proxy's) shares its code on the other faces with the closest kind there. The JSON-RPC codes are documented in docs/api.md
// ("Errors"); the DAP ids are the proxy's (3001-3003: the DAP conversation itself, 31xx: adi/
// requests).
var (
	// ParseError: a message that is not JSON.
	ParseError = &Kind{"parse_error", "parse error", -32700, 3001, exitFailed}
	// InvalidRequest: a message that is JSON but not a valid request (JSON-RPC 2.0 or DAP), or
	// one too large.
	InvalidRequest = &Kind{"invalid_request", "invalid request", -32600, 3001, exitFailed}
	// MethodNotFound: an unknown method, or an adi/ request naming no ADI command.
	MethodNotFound = &Kind{"method_not_found", "unknown method", -32601, 3102, exitFailed}
	// InvalidParams: missing, unknown or wrongly typed params (the arguments of an adi/ request).
	InvalidParams = &Kind{"invalid_params", "invalid params", -32602, 3103, exitFailed}
	// Internal: a bug in adi; the server or the connection stays up.
	Internal = &Kind{"internal", "internal error", -32603, 3199, exitFailed}
	// SessionNotFound: an unknown or deleted session id.
	SessionNotFound = &Kind{"session_not_found", "no such session", -32001, 3107, exitFailed}
	// NotFound: an unknown function, frame, line or visit.
	NotFound = &Kind{"not_found", "not found", -32002, 3104, exitFailed}
	// BadInput: a bad target, condition, statement or reference.
	BadInput = &Kind{"bad_input", "bad input", -32003, 3103, exitFailed}
	// SessionClosed: the session was closed or expired while the call waited for it or ran.
	SessionClosed = &Kind{"session_closed", "session closed", -32004, 3105, exitFailed}
	// Timeout: the run hit its wall-clock limit.
	Timeout = &Kind{"timeout", "timed out", -32005, 3106, exitFailed}
	// Refused: the call is invalid here (a live command in the wrong state, a shutdown that is
	// not allowed).
	Refused = &Kind{"refused", "refused", -32006, 3108, exitFailed}
	// RunFailed: the target or a tool adi starts (python, debugpy) failed to run. An error that
	// carries no kind is of this kind (Of).
	RunFailed = &Kind{"run_failed", "run failed", -32007, 3109, exitFailed}
	// Cancelled: the client cancelled the call.
	Cancelled = &Kind{"cancelled", "cancelled", -32800, 3110, exitInterrupted}
	// AdapterGone: the debug adapter (debugpy) ended or cannot be reached.
	AdapterGone = &Kind{"adapter_gone", "the debug adapter is gone", -32007, 3002, exitFailed}
	// Route: an attach names an adapter the proxy cannot reach.
	Route = &Kind{"route", "no route to the debug adapter", -32007, 3003, exitFailed}
	// NotRecording: an adi/ request on an editor connection whose run is not recorded.
	NotRecording = &Kind{"not_recording", "not recorded", -32006, 3101, exitFailed}
	// NoDebugpy: an editor's launch names a python without debugpy, which debugpy's launcher and
	// the debuggee need (the proxy refuses it before debugpy times out; elsewhere run_failed).
	NoDebugpy = &Kind{"no_debugpy", "no debugpy", -32007, 3004, exitFailed}
)

// All lists every kind, for tables and tests.
var All = []*Kind{ParseError, InvalidRequest, MethodNotFound, InvalidParams, Internal, SessionNotFound,
	NotFound, BadInput, SessionClosed, Timeout, Refused, RunFailed, Cancelled, AdapterGone, Route, NotRecording,
	NoDebugpy}

// rpcKinds are the kinds the JSON-RPC face names, by code: the first kind of All with the code.
var rpcKinds = map[int]*Kind{}

func init() {
	for _, k := range All {
		if _, ok := rpcKinds[k.rpc]; !ok {
			rpcKinds[k.rpc] = k
		}
	}
}

// ByRPC returns the kind a JSON-RPC code stands for (RunFailed for a code adi does not send).
func ByRPC(code int) *Kind {
	if k, ok := rpcKinds[code]; ok {
		return k
	}
	return RunFailed
}

// precedence is the order in which Of tests the kinds: an error that wraps several (a closed
// session's error wrapping a not-found one) is of the first.
var precedence = []*Kind{SessionNotFound, SessionClosed, Timeout, NotFound, BadInput, Refused, Cancelled,
	InvalidParams, MethodNotFound, InvalidRequest, ParseError, NotRecording, Route, AdapterGone, Internal, NoDebugpy, RunFailed}

// Of returns the kind of err: the first kind it wraps (errors.Is, in the order of precedence),
// Timeout for a context deadline, and RunFailed for an error of no kind (a failure of the target
// or of a tool adi starts).
func Of(err error) *Kind {
	for _, k := range precedence {
		if errors.Is(err, k) {
			return k
		}
		if k == Timeout && errors.Is(err, context.DeadlineExceeded) {
			return Timeout
		}
	}
	return RunFailed
}

// sentinel is an error of a kind with a text of its own.
type sentinel struct {
	text string
	kind *Kind
}

func (s *sentinel) Error() string        { return s.text }
func (s *sentinel) Is(target error) bool { return target == s.kind }

// Sentinel returns a sentinel error whose text is text and whose kind is kind: errors.Is holds
// for both the sentinel and the kind.
func Sentinel(kind *Kind, text string) error { return &sentinel{text: text, kind: kind} }

// OneLine folds a message onto one line: each line break, with the spaces around it, becomes one
// space, and the ends are trimmed; spaces inside a line are kept. It is the one helper every face
// uses to make a message one line.
func OneLine(s string) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
	out := lines[:0]
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, " ")
}

// Prefix is what a message printed for a person begins with.
const Prefix = "adi: "

// Prefixed returns the message as one line beginning with "adi: ", for the faces that print
// it (the CLI's stderr, the editor's DAP messages). A message that already begins so is kept.
func Prefixed(s string) string {
	s = OneLine(s)
	if strings.HasPrefix(s, "adi:") {
		return s
	}
	return Prefix + s
}

// Unprefixed returns the message as one line without a leading "adi: ", for the faces that send
// it to a program (JSON-RPC, MCP), whose clients add their own.
func Unprefixed(s string) string { return strings.TrimPrefix(OneLine(s), Prefix) }
