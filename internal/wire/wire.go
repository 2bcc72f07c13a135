// Package wire holds the JSON-RPC types that the server sends and its clients decode (the bash
// CLI among them), so that a client can decode them without linking the server: the thin `adi`
// binary imports this package, never package server (cmd/adi's tests check it).
package wire

import (
	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/errkind"
)

// FaceHeader names the face whose words a client of /api/rpc shows adi's messages in: "cli" for
// the bash CLI (`adi live break`, --keep); without it, the JSON-RPC names (live.set_breakpoint,
// keep).
const FaceHeader = "X-Adi-Face"

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
func (e *Error) Kind() string { return errkind.ByRPC(e.Code).Name() }

// RunInfo describes a session's recording run.
type RunInfo struct {
	ExitCode  int    `json:"exit_code"`
	TimedOut  bool   `json:"timed_out"`
	Stdout    string `json:"stdout"`
	Stderr    string `json:"stderr"`
	ElapsedMS int64  `json:"elapsed_ms"`
	Frames    int    `json:"frames"`
	Partial   bool   `json:"partial"`
	// Tests counts the tests by how they ended, for a test target (pytest, unittest).
	Tests *adi.TestCounts `json:"tests,omitempty"`
	// TimeLimitMS is set when the run was stopped at its time limit (that limit): the recording
	// ends there.
	TimeLimitMS int64 `json:"time_limit_ms,omitempty"`
}
