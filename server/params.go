package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/internal/faces"
)

// params reads the named params of one call. Getters record the first problem and return zero
// values after it, so a method reads all its params and checks err once; done also refuses
// params the method does not take. Numbers and booleans sent as strings are accepted ("12",
// "true"), since that is unambiguous.
type params struct {
	m      *method
	fields map[string]json.RawMessage
	err    *Error
}

func newParams(m *method, raw json.RawMessage) *params {
	p := &params{m: m, fields: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return p
	}
	if raw[0] != '{' || json.Unmarshal(raw, &p.fields) != nil {
		p.fail("params must be an object with named members: %s", p.usage())
	}
	return p
}

func (p *params) fail(format string, a ...any) {
	if p.err == nil {
		p.err = newError(CodeInvalidParams, "%s: %s", p.label(), fmt.Sprintf(format, a...))
	}
}

// raw returns a param's JSON, or nil when it is absent or null; a required one is reported.
func (p *params) raw(name string, required bool) json.RawMessage {
	v, ok := p.fields[name]
	if ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return v
	}
	if required {
		p.fail("param %s is missing; it takes %s", p.quoted(name), p.usage())
	}
	return nil
}

// String reads a string param.
func (p *params) String(name string, required bool) string {
	v := p.raw(name, required)
	if v == nil {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		p.fail("param %s must be a string, got %s", p.quoted(name), short(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		p.fail("param %s is empty; it takes %s", p.quoted(name), p.usage())
	}
	return s
}

// Int reads a whole number from min up, sent as a JSON number or a string holding one.
func (p *params) Int(name string, required bool, min int) int {
	v := p.raw(name, required)
	if v == nil {
		return 0
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		v = json.RawMessage(strings.TrimSpace(s))
	}
	var f float64
	if json.Unmarshal(v, &f) != nil || f != math.Trunc(f) || math.Abs(f) > 1e15 {
		p.fail("param %s must be a whole number, got %s", p.quoted(name), short(p.fields[name]))
		return 0
	}
	if int(f) < min {
		p.fail("param %s must be at least %d, got %s", p.quoted(name), min, short(p.fields[name]))
		return 0
	}
	return int(f)
}

// LoopIndex reads a loop index (adi.ParseLoopIndex): "LINE:K", or K as a number or a string;
// 0, 0 when absent.
func (p *params) LoopIndex(name string) (line, k int) {
	v := p.raw(name, false)
	if v == nil {
		return 0, 0
	}
	s := strings.TrimSpace(string(v))
	var text string
	if json.Unmarshal(v, &text) == nil {
		s = text
	}
	line, k, err := adi.ParseLoopIndex(s)
	if err != nil {
		p.fail("param %s takes \"LINE:K\", iteration K of the loop whose header is line LINE (e.g. \"122:2\"), or K, iteration K of every loop; got %s", p.quoted(name), short(v))
		return 0, 0
	}
	return line, k
}

// Bool reads a boolean, sent as true/false or as the string "true"/"false".
func (p *params) Bool(name string) bool {
	v := p.raw(name, false)
	if v == nil {
		return false
	}
	var b bool
	if json.Unmarshal(v, &b) == nil {
		return b
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return b
		}
	}
	p.fail("param %s must be true or false, got %s", p.quoted(name), short(v))
	return false
}

// Strings reads a list of strings; a single string is a list of one.
func (p *params) Strings(name string) []string {
	v := p.raw(name, false)
	if v == nil {
		return nil
	}
	var one string
	if json.Unmarshal(v, &one) == nil {
		return []string{one}
	}
	var list []string
	if json.Unmarshal(v, &list) != nil {
		p.fail("param %s must be a list of strings, got %s", p.quoted(name), short(v))
	}
	return list
}

// StringMap reads an object of strings (numbers and booleans are taken as their text), sorted
// by key into KEY=VALUE pairs.
func (p *params) StringMap(name string) []string {
	v := p.raw(name, false)
	if v == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(v, &m) != nil {
		p.fail("param %s must be an object of strings, e.g. {\"DEBUG\": \"1\"}, got %s", p.quoted(name), short(v))
		return nil
	}
	var out []string
	for k, raw := range m {
		var s string
		raw = bytes.TrimSpace(raw)
		switch {
		case json.Unmarshal(raw, &s) == nil:
		case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9' || raw[0] == 't' || raw[0] == 'f'):
			s = string(raw)
		default:
			p.fail("param %s: the value of %q must be a string, got %s", p.quoted(name), k, short(raw))
			return nil
		}
		if k == "" || strings.ContainsAny(k, "=\x00") {
			p.fail("param %s: %q is not a valid environment variable name", p.quoted(name), k)
			return nil
		}
		out = append(out, k+"="+s)
	}
	sort.Strings(out)
	return out
}

// Ref reads a reference (func#N, module:func, file.py:func#N, ...). frame says whether it must
// name one invocation (#N). A reference that does not parse is bad input, not a type error.
func (p *params) Ref(name string, required, frame bool) *adi.Ref {
	s := p.String(name, required)
	if s == "" || p.err != nil {
		return nil
	}
	r, err := adi.ParseRef(s)
	if err != nil {
		if p.err == nil {
			p.err = newError(CodeBadInput, "%s: param %s: %s", p.label(), p.quoted(name), errorFrom(err).Message)
		}
		return nil
	}
	switch {
	case frame && !r.NamesFrame():
		p.badInput("param %s: %s names a function; add the invocation index, e.g. %s#1", p.quoted(name), r, r)
		return nil
	case !frame && r.Pinned() && !p.m.frameOK:
		drop := "[" + r.Param + "]"
		if r.Index > 0 {
			drop = "#" + strconv.Itoa(r.Index)
		}
		p.badInput("param %s: %s names a frame, but this method takes a function (drop the %s)", p.quoted(name), r, drop)
		return nil
	}
	return &r
}

func (p *params) badInput(format string, a ...any) {
	if p.err == nil {
		p.err = newError(CodeBadInput, "%s: %s", p.label(), fmt.Sprintf(format, a...))
	}
}

// done refuses params the method does not take and returns the first problem. An unknown param
// is reported before any other problem: it is most often a misspelt one ("fram" for "frame"),
// which would otherwise be reported as missing.
func (p *params) done() *Error {
	var unknown []string
	for k := range p.fields {
		if !p.m.takes(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		p.err = newError(CodeInvalidParams, "%s: unknown param %q; it takes %s", p.label(), unknown[0], p.usage())
		p.err.Data.Valid = p.m.paramNames()
	}
	return p.err
}

// short quotes a raw JSON value for an error message, cut to a readable length.
func short(v json.RawMessage) string {
	s := string(bytes.TrimSpace(v))
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}

// label names the method at the head of a message, as a marker each face renders in its own name
// (package faces); a part of a method's params (session.create's limits) keeps its own name.
func (p *params) label() string {
	if _, ok := methods[p.m.name]; ok {
		return faces.Cmd(p.m.name)
	}
	return p.m.name
}

// usage is the params the method takes, as a marker each face renders as its own list (a part
// of a method's params keeps its own usage).
func (p *params) usage() string {
	if _, ok := methods[p.m.name]; ok {
		return faces.Usage(p.m.name, p.m.usage)
	}
	return p.m.usage
}

// quoted names one of the method's params in a message, quoted, as a marker each face renders.
func (p *params) quoted(name string) string {
	if _, ok := methods[p.m.name]; ok {
		return `"` + faces.Param(p.m.name, name) + `"`
	}
	return strconv.Quote(name)
}
