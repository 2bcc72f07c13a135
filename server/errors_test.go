package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
)

func TestErrorFrom(t *testing.T) {
	for _, tc := range []struct {
		err  error
		code int
		msg  string
	}{
		{adi.Errorf(bridge.ErrNoSession, "adi: no session %q", "x"), CodeSessionNotFound, `no session "x"`},
		{adi.Errorf(bridge.ErrClosed, "adi: session s is closed; create a new one"), CodeSessionClosed, "session s is closed; create a new one"},
		{adi.NotFoundf("adi: no function \"f\""), CodeNotFound, `no function "f"`},
		{adi.BadInputf("adi: bad\ncondition"), CodeBadInput, "bad condition"},
		{fmt.Errorf("run: %w", context.DeadlineExceeded), CodeTimeout, "run: context deadline exceeded"},
		{errors.New("adi: debugpy died"), CodeRunFailed, "debugpy died"},
		{newError(CodeRefused, "no"), CodeRefused, "no"},
	} {
		e := errorFrom(tc.err)
		assert.Equal(t, tc.code, e.Code, tc.err.Error())
		assert.Equal(t, tc.msg, e.Message)
		assert.Equal(t, codeKinds[tc.code], e.Data.Kind)
	}
}

// TestEveryCodeHasAKind keeps the error table whole.
func TestEveryCodeHasAKind(t *testing.T) {
	for _, c := range []int{CodeParseError, CodeInvalidRequest, CodeMethodNotFound, CodeInvalidParams, CodeInternal,
		CodeSessionNotFound, CodeNotFound, CodeBadInput, CodeSessionClosed, CodeTimeout, CodeRefused, CodeRunFailed, CodeCancelled} {
		assert.NotEmpty(t, codeKinds[c], "code %d", c)
	}
	assert.Len(t, codeKinds, 13)
}

func TestUnknownMethodSuggests(t *testing.T) {
	for in, want := range map[string]string{
		"adi.step-into": "adi.step_into",
		"adi.stepinto":  "adi.step_into",
		"state":         "adi.state",
		"session.creat": "session.create",
		"adi.calltree":  "adi.call_tree",
	} {
		e := unknownMethod(in)
		assert.Equal(t, CodeMethodNotFound, e.Code)
		assert.Contains(t, e.Message, "did you mean "+want, in)
		assert.Contains(t, e.Data.Valid, "adi.break")
	}
	e := unknownMethod("zzzzzzzz")
	assert.Equal(t, `unknown method "zzzzzzzz"; methods are session.*, adi.*, trace.* and live.*, e.g. session.create, adi.call_tree, adi.state (see docs/api.md)`, e.Message)
}
