package server

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testMethod = &method{name: "t.m", usage: "{session, depth?, on?, env?, frame?, fn?, list?}"}

func TestParamsLenientNumbersAndBooleans(t *testing.T) {
	p := newParams(testMethod, json.RawMessage(`{"session":"s","depth":" 3 ","on":"true","env":{"A":1,"B":"x"},"list":"one"}`))
	assert.Equal(t, "s", p.String("session", true))
	assert.Equal(t, 3, p.Int("depth", false, 1))
	assert.True(t, p.Bool("on"))
	assert.Equal(t, []string{"A=1", "B=x"}, p.StringMap("env"))
	assert.Equal(t, []string{"one"}, p.Strings("list"))
	assert.Nil(t, p.done())
}

// TestLoopIndexParam: loop_index names a loop by its header line ("122:2") or, bare, every loop (a
// number or a string of one).
func TestLoopIndexParam(t *testing.T) {
	m := &method{name: "t.m", usage: "{loop_index?}"}
	for in, want := range map[string][2]int{`{"loop_index":"122:2"}`: {122, 2}, `{"loop_index":3}`: {0, 3}, `{"loop_index":"4"}`: {0, 4}, `{}`: {0, 0}} {
		p := newParams(m, json.RawMessage(in))
		line, k := p.LoopIndex("loop_index")
		assert.Equal(t, want, [2]int{line, k}, in)
		assert.Nil(t, p.done(), in)
	}
	p := newParams(m, json.RawMessage(`{"loop_index":"122:x"}`))
	p.LoopIndex("loop_index")
	err := p.done()
	require.NotNil(t, err)
	assert.Equal(t, `t.m: param "loop_index" takes "LINE:K", iteration K of the loop whose header is line LINE (e.g. "122:2"), or K, iteration K of every loop; got "122:x"`, err.Message)
}

func TestParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		read     func(p *params)
		code     int
		msg      string
	}{
		{"missing", `{}`, func(p *params) { p.String("session", true) }, CodeInvalidParams,
			`t.m: param "session" is missing; it takes {session, depth?, on?, env?, frame?, fn?, list?}`},
		{"wrong type", `{"session":5}`, func(p *params) { p.String("session", true) }, CodeInvalidParams,
			`t.m: param "session" must be a string, got 5`},
		{"fraction", `{"depth":1.5}`, func(p *params) { p.Int("depth", false, 1) }, CodeInvalidParams,
			`t.m: param "depth" must be a whole number, got 1.5`},
		{"word for a number", `{"depth":"two"}`, func(p *params) { p.Int("depth", false, 1) }, CodeInvalidParams,
			`t.m: param "depth" must be a whole number, got "two"`},
		{"below min", `{"depth":0}`, func(p *params) { p.Int("depth", false, 1) }, CodeInvalidParams,
			`t.m: param "depth" must be at least 1, got 0`},
		{"unknown", `{"sesion":"x"}`, func(p *params) {}, CodeInvalidParams,
			`t.m: unknown param "sesion"; it takes {session, depth?, on?, env?, frame?, fn?, list?}`},
		{"array params", `[1]`, func(p *params) {}, CodeInvalidParams,
			`t.m: params must be an object with named members: {session, depth?, on?, env?, frame?, fn?, list?}`},
		{"function for a frame", `{"frame":"f"}`, func(p *params) { p.Ref("frame", true, true) }, CodeBadInput,
			`t.m: param "frame": f names a function; add the invocation index, e.g. f#1`},
		{"frame for a function", `{"fn":"f#2"}`, func(p *params) { p.Ref("fn", true, false) }, CodeBadInput,
			`t.m: param "fn": f#2 names a frame, but this method takes a function (drop the #2)`},
		{"bad reference", `{"frame":"f#x"}`, func(p *params) { p.Ref("frame", true, true) }, CodeBadInput,
			`t.m: param "frame": "f#x": after '#' comes the invocation index, a whole number from 1 (e.g. f#1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newParams(testMethod, json.RawMessage(tc.in))
			tc.read(p)
			err := p.done()
			require.NotNil(t, err)
			assert.Equal(t, tc.code, err.Code)
			assert.Equal(t, tc.msg, err.Message)
			assert.Equal(t, codeKinds[tc.code], err.Data.Kind)
		})
	}
}

func TestLimitsParam(t *testing.T) {
	m := methods["session.create"]
	p := newParams(m, json.RawMessage(`{"command":"python t.py","limits":{"max_calls":"1000","max_bytes":5}}`))
	p.String("command", true)
	l := limits(p)
	require.Nil(t, p.done())
	assert.Equal(t, 1000, l.MaxCalls)
	assert.Equal(t, int64(5), l.MaxBytes)

	p = newParams(m, json.RawMessage(`{"command":"python t.py","limits":{"max_cals":1}}`))
	p.String("command", true)
	limits(p)
	err := p.done()
	require.NotNil(t, err)
	assert.Equal(t, `session.create limits: unknown param "max_cals"; it takes {max_calls?, max_steps?, max_bytes?}`, err.Message)
}
