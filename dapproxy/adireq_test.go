package dapproxy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
)

func adiReq(t *testing.T, command, args string) (adi.Command, adi.TextOptions, error) {
	t.Helper()
	raw := fmt.Sprintf(`{"seq":4,"type":"request","command":%q,"arguments":%s}`, command, args)
	return adiCommand(msg(t, raw))
}

// Each adi/ request builds the command the CLI line beside it parses to: the two faces share
// one implementation behind Session.Do.
func TestADIRequestsBuildTheCLICommands(t *testing.T) {
	for _, tc := range []struct{ command, args, line string }{
		{"adi/break", `{"func": "t:f", "cond": "x > 3"}`, "break t:f x > 3"},
		{"adi/clear", `{}`, "clear"},
		{"adi/clear", `{"func": "f"}`, "clear f"},
		{"adi/continue", `{}`, "continue"},
		{"adi/prev", `{}`, "prev"},
		{"adi/stepInto", `{"frame": "g#2"}`, "step-into g#2"},
		{"adi/step-in", `{"frame": "g#2"}`, "step-into g#2"},
		{"adi/stepOut", `{}`, "step-out"},
		{"adi/callTree", `{}`, "call-tree"},
		{"adi/call-tree", `{"frame": "main#1", "depth": 2, "width": 5}`, "call-tree main#1 --depth 2 --width 5"},
		{"adi/listFrames", `{"func": "add", "caller": "main", "limit": 3}`, "list-frames add --caller main --limit 3"},
		{"adi/diff", `{"a": "f#1", "b": "f#2"}`, "diff f#1 f#2"},
		{"adi/state", `{}`, "state"},
		{"adi/list", `{}`, "list"},
		{"adi/flt", `{}`, "flt"},
		{"adi/flt", `{"frame": "t.py:f#3"}`, "flt t.py:f#3"},
		{"adi/exec", `{"frame": "f#1", "stmt": "print(x)", "line": 12}`, "exec f#1 -l 12 print(x)"},
		{"adi/execute", `{"frame": "f#1", "stmt": "x", "visit": 2}`, "exec f#1 -k 2 x"},
		{"adi/run", `{"line": "break t:f x > 3"}`, "break t:f x > 3"},
	} {
		got, _, err := adiReq(t, tc.command, tc.args)
		require.NoError(t, err, tc.command+" "+tc.args)
		want, err := adi.ParseCommand(tc.line)
		require.NoError(t, err, tc.line)
		assert.Equal(t, want, got, tc.command+" "+tc.args)
	}
	_, opts, err := adiReq(t, "adi/state", `{"budget": 300}`)
	require.NoError(t, err)
	assert.Equal(t, 300, opts.Budget)
}

func TestADIRequestErrors(t *testing.T) {
	for _, tc := range []struct{ command, args, err string }{
		{"adi/nope", `{}`, `adi: unknown request "adi/nope"; use one of adi/break, adi/callTree, adi/clear, adi/continue, adi/diff, adi/exec, adi/flt, adi/list, adi/listFrames, adi/prev, adi/run, adi/state, adi/stepInto, adi/stepOut, adi/session`},
		{"adi/flt", `{"frame": "add"}`, `adi/flt: argument "frame": add names a function; add the invocation index, e.g. add#1`},
		{"adi/break", `{}`, `adi/break: argument "func" is missing`},
		{"adi/diff", `{"a": "f#1"}`, `adi/diff: argument "b" is missing`},
		{"adi/clear", `{"cond": "x"}`, `adi/clear: argument "cond" needs "func": clear FUNC COND removes one conditional breakpoint`},
		{"adi/run", `{"line": 3}`, `adi/run: argument "line" must be a command line such as "break t:f x > 3"`},
		{"adi/flt", `{"frame": 3}`, "the arguments of adi/flt are not what it takes: decode adi/flt body: json: cannot unmarshal number into Go struct field adiArgs.frame of type string"},
	} {
		_, _, err := adiReq(t, tc.command, tc.args)
		require.Error(t, err, tc.command)
		assert.Equal(t, tc.err, err.Error(), tc.command+" "+tc.args)
	}
	_, _, err := adiReq(t, "adi/nope", `{}`)
	assert.True(t, errors.Is(err, errUnknownCommand))
	_, _, err = adiReq(t, "adi/break", `{}`)
	assert.Equal(t, ErrIDBadInput, errorID(err))
}
