package errkind

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEveryKindOnEveryFace lists every kind with its word and its code on each face: the
// JSON-RPC code (docs/api.md), the DAP error id and the CLI's exit status.
func TestEveryKindOnEveryFace(t *testing.T) {
	want := []struct {
		kind      *Kind
		name      string
		rpc, dap  int
		exit      int
		rpcAsKind string // the word JSON-RPC's data.kind says for it
	}{
		{ParseError, "parse_error", -32700, 3001, 1, "parse_error"},
		{InvalidRequest, "invalid_request", -32600, 3001, 1, "invalid_request"},
		{MethodNotFound, "method_not_found", -32601, 3102, 1, "method_not_found"},
		{InvalidParams, "invalid_params", -32602, 3103, 1, "invalid_params"},
		{Internal, "internal", -32603, 3199, 1, "internal"},
		{SessionNotFound, "session_not_found", -32001, 3107, 1, "session_not_found"},
		{NotFound, "not_found", -32002, 3104, 1, "not_found"},
		{BadInput, "bad_input", -32003, 3103, 1, "bad_input"},
		{SessionClosed, "session_closed", -32004, 3105, 1, "session_closed"},
		{Timeout, "timeout", -32005, 3106, 1, "timeout"},
		{Refused, "refused", -32006, 3108, 1, "refused"},
		{RunFailed, "run_failed", -32007, 3109, 1, "run_failed"},
		{Cancelled, "cancelled", -32800, 3110, 130, "cancelled"},
		{AdapterGone, "adapter_gone", -32007, 3002, 1, "run_failed"},
		{Route, "route", -32007, 3003, 1, "run_failed"},
		{NotRecording, "not_recording", -32006, 3101, 1, "refused"},
		{NoDebugpy, "no_debugpy", -32007, 3004, 1, "run_failed"},
	}
	assert.Len(t, All, len(want), "a kind is missing from this table")
	assert.Len(t, precedence, len(All), "a kind is missing from Of's order")
	for i, w := range want {
		k := All[i]
		assert.Same(t, w.kind, k)
		assert.Equal(t, w.name, k.Name())
		assert.Equal(t, w.rpc, k.RPC(), w.name)
		assert.Equal(t, w.dap, k.DAP(), w.name)
		assert.Equal(t, w.exit, k.Exit(), w.name)
		assert.Equal(t, w.rpcAsKind, ByRPC(k.RPC()).Name(), w.name)
		assert.Same(t, k, Of(fmt.Errorf("wrapped: %w", k)), w.name)
	}
	assert.Same(t, RunFailed, ByRPC(-1))
}

func TestOf(t *testing.T) {
	assert.Same(t, RunFailed, Of(errors.New("debugpy died")), "an error of no kind")
	assert.Same(t, Timeout, Of(fmt.Errorf("run: %w", context.DeadlineExceeded)))
	s := Sentinel(AdapterGone, "DAP connection closed")
	assert.Equal(t, "DAP connection closed", s.Error())
	assert.Same(t, AdapterGone, Of(fmt.Errorf("read: %w", s)))
	assert.True(t, errors.Is(s, AdapterGone))
	both := fmt.Errorf("%w after %w", NotFound, SessionClosed)
	assert.Same(t, SessionClosed, Of(both), "a closed session comes first")
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "a b", OneLine("a\n  b"))
	assert.Equal(t, "bad condition", OneLine("  bad\r\ncondition \n"))
	assert.Equal(t, "x  = 1", OneLine("x  = 1"), "spaces inside a line are kept")
	assert.Equal(t, "adi: a b", Prefixed("a\nb"))
	assert.Equal(t, "adi: a", Prefixed("adi: a"))
	assert.Equal(t, "a", Unprefixed("adi: a"))
}
