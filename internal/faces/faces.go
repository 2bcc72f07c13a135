// Package faces is the one catalog of the names adi's three faces give its commands and their
// parameters, so that a message naming one speaks each face's words: the bash CLI
// (`adi live break`, `--keep`), MCP (the tool live_set_breakpoint and its argument keep) and the
// WebSocket JSON-RPC API (the method live.set_breakpoint and its param keep).
//
// A package that writes such a message (live, bridge, adi, server) puts a marker where the name
// goes, Cmd("live.set_breakpoint") or Param("live.set_breakpoint", "keep"); the face that sends
// the message renders the markers in its own names (Face.Render, Face.RenderJSON). Commands and
// params are named by the JSON-RPC method and param, the one naming every face shares.
package faces

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// Face is one of adi's faces.
type Face string

// The faces.
const (
	WebSocket Face = "ws"  // the JSON-RPC API (WebSocket and HTTP): method and param names
	CLI       Face = "cli" // the bash commands: `adi live break`, --keep
	MCP       Face = "mcp" // the MCP tools: live_set_breakpoint, keep
	// Line is the command language that adi.run and the editor's adi/run take, the reference
	// CLI's commands without the program's name: `break FUNC --cond EXPR`, `continue`.
	Line Face = "line"
)

// ForMethod returns the face an answer of method speaks: the command language for adi.run (its
// answers are read by whoever typed the command line), else f.
func (f Face) ForMethod(method string) Face {
	if method == "adi.run" && f != CLI {
		return Line
	}
	return f
}

// The markers: ⟦method⟧ and ⟦method param⟧. Their characters pass through JSON encoding
// unescaped, so a face can render an encoded answer as well as a string.
const (
	open  = "\u27e6"
	close = "\u27e7"
)

// markers finds the markers; compiled at the first message that has one (a CLI command that
// prints none does not pay for it as it starts).
var markers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(open + `([a-z_]+\.[a-z_]+)(?: ([a-z_]+|\{[a-z_?, ]*\}))?` + close)
})

// Cmd returns the marker of the command that the JSON-RPC method calls.
func Cmd(method string) string { return open + method + close }

// Param returns the marker of one param of the command that the method calls.
func Param(method, param string) string { return open + method + " " + param + close }

// Usage returns the marker of the params a method takes, written as its usage in JSON-RPC names
// ("{session, frame, depth?}": a trailing ? marks an optional one), which each face renders as
// its own list: the CLI's arguments and flags, MCP's argument names.
func Usage(method, usage string) string { return open + method + " " + usage + close }

// names is what the CLI and MCP call one command or param; "" means the face has no name of
// its own for it (the JSON-RPC name is used), "-" that the face does not take the param (its
// usage leaves it out).
type names struct{ cli, mcp string }

// commands names every command on the CLI and MCP faces, by its JSON-RPC method.
var commands = map[string]names{
	"session.create":      {`a command given the target, e.g. adi call-tree "python t.py"`, "adi_open"},
	"session.list":        {"adi sessions", "adi_sessions"},
	"session.close":       {"", "adi_close"},
	"session.delete":      {"", "adi_close with delete"},
	"adi.break":           {"adi break", "adi_break"},
	"adi.clear":           {"adi clear", "adi_clear"},
	"adi.continue":        {"adi continue", "adi_continue"},
	"adi.prev":            {"adi prev", "adi_prev"},
	"adi.step_into":       {"adi step-into", "adi_step_into"},
	"adi.step_out":        {"adi step-out", "adi_step_out"},
	"adi.call_tree":       {"adi call-tree", "adi_call_tree"},
	"adi.list_frames":     {"adi list-frames", "adi_list_frames"},
	"adi.diff":            {"adi diff", "adi_diff"},
	"adi.state":           {"adi state", "adi_state"},
	"adi.list":            {"adi list", "adi_list"},
	"adi.flt":             {"adi flt", "adi_flt"},
	"adi.execute":         {"adi exec", "adi_exec"},
	"live.start":          {"adi live start", "live_start"},
	"live.attach":         {"adi live attach", "live_attach"},
	"live.set_breakpoint": {"adi live break", "live_set_breakpoint"},
	"live.clear":          {"adi live clear", "live_clear"},
	"live.continue":       {"adi live continue", "live_continue"},
	"live.restart":        {"adi live restart", "live_restart"},
	"live.interact":       {"adi live interact", "live_interact"},
	"live.stack":          {"adi live stack", "live_stack"},
	"live.where":          {"adi live where", "live_where"},
	"live.status":         {"adi live status", "live_status"},
	"live.close":          {"adi live close", "live_close"},
	"live.list":           {"adi live list", ""},
	"live.watch":          {"adi live watch", "live_watch"},
	"live.unwatch":        {"adi live unwatch", "live_unwatch"},
	"live.caught":         {"adi live caught", "live_caught"},
	"live.flt":            {"adi live flt", "live_flt"},
}

// params names the params whose CLI or MCP name differs from the JSON-RPC one, by
// "method param". A CLI flag not listed here is --param (with '-' for '_').
var params = map[string]names{
	"session.create timeout_ms":     {"--timeout SECONDS", "timeout_seconds"},
	"session.create id":             {"--session", "session"},
	"adi.break func":                {"FUNC", ""},
	"adi.break cond":                {"--cond EXPR", ""},
	"adi.clear func":                {"FUNC", ""},
	"adi.clear cond":                {"COND", ""},
	"adi.step_into frame":           {"FUNC#N", ""},
	"adi.call_tree frame":           {"FUNC#N", ""},
	"adi.flt frame":                 {"FUNC#N", ""},
	"adi.list_frames func":          {"FUNC", ""},
	"adi.diff a":                    {"FUNC#N", ""},
	"adi.diff b":                    {"FUNC#M", ""},
	"adi.execute frame":             {"FUNC#N", ""},
	"adi.execute stmt":              {"-s STMT", ""},
	"adi.execute line":              {"-l", ""},
	"adi.execute visit":             {"-k", ""},
	"live.start command":            {"CMD", ""},
	"live.start timeout_ms":         {"-t SECONDS", "timeout_seconds"},
	"live.set_breakpoint location":  {"FILE:LINE", ""},
	"live.set_breakpoint condition": {"--cond EXPR", ""},
	"live.clear location":           {"FILE:LINE", ""},
	"live.interact code":            {"CODE", ""},
	"live.watch func":               {"FUNC", ""},
	"live.watch condition":          {"--cond EXPR", ""},
	"live.watch max":                {"--max N", ""},
	"live.unwatch func":             {"FUNC", ""},
	"live.continue background":      {"--background", ""},
	"live.flt frame":                {"FUNC#N", ""},
	"live.flt finish":               {"--finish", ""},
	"live.start replace":            {"-", "-"},
	"live.start dir":                {"-", ""},
	"live.start env":                {"-", ""},
	"live.start python":             {"", "-"},
	"live.attach address":           {"HOST:PORT", ""},
	"live.attach timeout_ms":        {"-t SECONDS", "timeout_seconds"},
	"live.attach replace":           {"-", "-"},
	"live.attach dir":               {"-", ""},
	"adi.break when":                {"--on-entry|--on-return", ""},
	"adi.break line":                {"--if-eval-lineno L", ""},
}

// anyParams names params whose CLI name differs from the JSON-RPC one in every method that
// takes them (the FLT view's params).
var anyParams = map[string]names{
	"watch": {"--full-watch", ""},
}

// Name returns the face's name of a command (method "live.set_breakpoint") or of one of its
// params (param "keep"; "" for the command itself).
func (f Face) Name(method, param string) string {
	if param == "" {
		n := commands[method]
		switch {
		case f == CLI && n.cli != "":
			return n.cli
		case f == MCP && n.mcp != "":
			return n.mcp
		case f == Line && strings.HasPrefix(method, "adi.") && n.cli != "":
			return strings.TrimPrefix(n.cli, "adi ")
		}
		return method
	}
	if strings.HasPrefix(param, "{") {
		return f.usage(method, param)
	}
	n, ok := params[method+" "+param]
	if !ok {
		n = anyParams[param]
	}
	switch f {
	case CLI, Line:
		if n.cli != "" && n.cli != "-" {
			return n.cli
		}
		return "--" + strings.ReplaceAll(param, "_", "-")
	case MCP:
		if n.mcp != "" && n.mcp != "-" {
			return n.mcp
		}
	}
	return param
}

// usage renders a method's usage (Usage) in the face's names: the JSON-RPC list as written; on
// MCP the same list in its argument names, session optional (the tools default to the session
// used last); on the CLI and the command language the arguments and flags, optional ones in
// brackets, without the session (the CLI picks it, --session overrides).
func (f Face) usage(method, u string) string {
	if f == WebSocket {
		return u
	}
	var parts []string
	for _, p := range strings.Split(strings.Trim(u, "{}"), ",") {
		p = strings.TrimSpace(p)
		opt := strings.HasSuffix(p, "?")
		p = strings.TrimSuffix(p, "?")
		n := params[method+" "+p]
		switch {
		case p == "", f == MCP && n.mcp == "-", f != MCP && n.cli == "-":
		case f == MCP:
			name := f.Name(method, p)
			if opt || p == "session" {
				name += "?"
			}
			parts = append(parts, name)
		case p == "session":
		case opt:
			parts = append(parts, "["+f.Name(method, p)+"]")
		default:
			parts = append(parts, f.Name(method, p))
		}
	}
	if f == MCP {
		return "{" + strings.Join(parts, ", ") + "}"
	}
	if len(parts) == 0 {
		return "no arguments"
	}
	return strings.Join(parts, " ")
}

// Render replaces the markers in s by the face's names.
func (f Face) Render(s string) string {
	if !strings.Contains(s, open) {
		return s
	}
	marker := markers()
	return marker.ReplaceAllStringFunc(s, func(m string) string {
		sub := marker.FindStringSubmatch(m)
		return f.Name(sub[1], sub[2])
	})
}

// RenderJSON replaces the markers in encoded JSON by the face's names, escaped for the strings
// they stand in.
func (f Face) RenderJSON(b []byte) []byte {
	if !strings.Contains(string(b), open) {
		return b
	}
	marker := markers()
	return marker.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := marker.FindSubmatch(m)
		q, _ := json.Marshal(f.Name(string(sub[1]), string(sub[2])))
		return q[1 : len(q)-1]
	})
}

// Commands lists the JSON-RPC methods the catalog names, for tests that check a face's own
// table against it.
func Commands() []string {
	out := make([]string, 0, len(commands))
	for m := range commands {
		out = append(out, m)
	}
	return out
}
