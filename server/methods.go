package server

import (
	"context"
	"sort"
	"strings"

	"github.com/adi-bridge/adi/bridge"
)

// method is one JSON-RPC method: its name, the params it takes (usage, e.g.
// "{session, frame, depth?}"), and its implementation.
type method struct {
	name    string
	usage   string
	summary string
	// frameOK lets a function param carry #N (break's peer form: set it and show that frame).
	frameOK bool
	// stream marks methods that need a streaming connection (WebSocket).
	stream bool
	// answers marks the ADI methods, which answer with bridge.Answer and so also take
	// TextOnlyParam (not listed in usage: it changes what the answer carries, not what it says).
	answers bool
	call    func(c *call) (any, error)
}

// call is one method call being served.
type call struct {
	// ctx ends when the server shuts down, when the client's $/cancelRequest names the call, when
	// a WebSocket client's connection ends, or, for an in-process caller, with its context. An
	// HTTP request's call is detached from the request.
	ctx  context.Context
	h    *Handler
	p    *params
	peer Peer
	// scope is where the request came from, for $/cancelRequest (nil: an in-process caller).
	scope any
}

// session returns the session named by the "session" param.
func (c *call) session(id string) (*bridge.Session, error) {
	return c.h.mgr.Get(c.ctx, id)
}

// methods is the method table, filled by the files that implement each group.
var methods = map[string]*method{}

func register(ms ...*method) {
	for _, m := range ms {
		methods[m.name] = m
	}
}

// takes reports whether the method takes a param of that name.
func (m *method) takes(name string) bool {
	if m.answers && name == TextOnlyParam {
		return true
	}
	for _, n := range m.paramNames() {
		if n == name {
			return true
		}
	}
	return false
}

// paramNames lists the params of the method's usage, without the optional marks.
func (m *method) paramNames() []string {
	u := strings.Trim(m.usage, "{}")
	if u == "" {
		return nil
	}
	var out []string
	for _, f := range strings.Split(u, ",") {
		f = strings.TrimSpace(f)
		if i := strings.IndexAny(f, "?:"); i >= 0 {
			f = f[:i]
		}
		out = append(out, f)
	}
	return out
}

// MethodInfo describes one method for listings and documentation.
type MethodInfo struct {
	Name    string `json:"name"`
	Params  string `json:"params"`
	Summary string `json:"summary"`
}

// Methods lists every method, sorted by name.
func Methods() []MethodInfo {
	out := make([]MethodInfo, 0, len(methods))
	for _, m := range methods {
		out = append(out, MethodInfo{Name: m.name, Params: m.usage, Summary: m.summary})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}
