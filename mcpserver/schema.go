package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/live"
	"github.com/adi-bridge/adi/server"
)

// flexInt is an integer argument, sent as a JSON number or as a string holding one ("16"), as
// the JSON-RPC API takes it: the argument goes on to the method as sent, and the method's own
// check refuses anything else with the same message on both faces ("param "depth" must be a
// whole number, got "abc"").
type flexInt json.RawMessage

// UnmarshalJSON keeps the value as sent.
func (f *flexInt) UnmarshalJSON(b []byte) error {
	*f = append((*f)[:0], b...)
	return nil
}

// MarshalJSON passes the value on as sent (null when absent).
func (f flexInt) MarshalJSON() ([]byte, error) {
	if len(bytes.TrimSpace(f)) == 0 {
		return []byte("null"), nil
	}
	return f, nil
}

// inputSchema is In's schema, with flexInt as an integer or a string of one.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[flexInt](): {Types: []string{"integer", "string"}},
	}})
	if err != nil {
		panic(fmt.Errorf("mcpserver: the input schema of %T: %w", *new(In), err))
	}
	return s
}

// sessionsOut is session.list's result.
type sessionsOut struct {
	Sessions []bridge.Info `json:"sessions"`
}

// closeOut is session.close's result ({"closed": true}), or session.delete's ({"deleted": true})
// when adi_close deletes.
type closeOut struct {
	Closed  bool `json:"closed,omitempty"`
	Deleted bool `json:"deleted,omitempty"`
}

// The result schemas, one per kind of method.
var (
	answerSchema, createSchema, sessionsSchema = outputSchema[bridge.Answer](), outputSchema[server.CreateResult](), outputSchema[sessionsOut]()
	closeSchema, liveSchema                    = outputSchema[closeOut](), outputSchema[live.Answer]()
)

// outputSchemaOf describes a method's result, the structuredContent of the tool that calls it.
func outputSchemaOf(method string) *jsonschema.Schema {
	switch {
	case method == "session.create":
		return createSchema
	case method == "session.list":
		return sessionsSchema
	case method == "session.close":
		return closeSchema
	case strings.HasPrefix(method, "live."):
		return liveSchema
	}
	return answerSchema
}

func outputSchema[Out any]() *jsonschema.Schema {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		panic(fmt.Errorf("mcpserver: the output schema of %T: %w", *new(Out), err))
	}
	// A property of any value (a Go any, such as an answer's result) has the empty schema, which
	// is written as the boolean schema true; clients that take every property's schema for an
	// object (the TypeScript SDK's) then refuse the whole tool list. A description keeps it an
	// object that still allows any value.
	for name, p := range s.Properties {
		if p != nil && reflect.ValueOf(*p).IsZero() {
			p.Description = fmt.Sprintf("any JSON value: the %s of the command's answer (docs/api.md)", name)
		}
	}
	return s
}

// readOnly are the tools that change nothing: not the session's frame under inspection, its
// breakpoints, nor a program. adi_exec is not among them: it runs the program's code again.
var readOnly = map[string]bool{"adi_call_tree": true, "adi_list_frames": true, "adi_diff": true, "adi_state": true,
	"adi_flt": true, "adi_list": true, "adi_sessions": true, "live_stack": true, "live_where": true, "live_status": true}

// annotations are a tool's hints to the client: read-only tools say so.
func annotations(t tool) *mcp.ToolAnnotations {
	if readOnly[t.name] {
		return &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	return nil
}

// secondsToMS turns the timeout_seconds argument into the method's timeout_ms param: a number,
// or a string holding one, is converted; anything else goes on as it is, for the method to
// refuse.
func secondsToMS(params map[string]any) {
	v, ok := params["timeout_seconds"]
	delete(params, "timeout_seconds")
	if !ok || v == nil {
		return
	}
	secs, isNum := v.(float64)
	if s, isStr := v.(string); isStr {
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			params["timeout_ms"] = v
			return
		}
		secs, isNum = f, true
	}
	if isNum {
		params["timeout_ms"] = int64(secs * 1000)
		return
	}
	params["timeout_ms"] = v
}
