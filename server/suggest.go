package server

import (
	"github.com/adi-bridge/adi/adi"

	"sort"
	"strings"
)

// unknownMethod is the error for a method that does not exist: it names the closest methods,
// and data.valid lists them all.
func unknownMethod(name string) *Error {
	close := closeMethods(name)
	var e *Error
	if len(close) > 0 {
		e = newError(CodeMethodNotFound, "unknown method %q; did you mean %s?", name, strings.Join(close, " or "))
	} else {
		e = newError(CodeMethodNotFound, "unknown method %q; methods are session.*, adi.*, trace.* and live.*, e.g. session.create, adi.call_tree, adi.state (see docs/api.md)", name)
	}
	for _, m := range Methods() {
		e.Data.Valid = append(e.Data.Valid, m.Name)
	}
	return e
}

// closeMethods returns up to three method names near name: the same after normalising case,
// '-' and the group prefix, or within a small edit distance.
func closeMethods(name string) []string {
	norm := func(s string) string {
		s = strings.ToLower(strings.ReplaceAll(s, "-", "_"))
		if i := strings.LastIndexByte(s, '.'); i >= 0 {
			s = s[i+1:]
		}
		return strings.ReplaceAll(s, "_", "")
	}
	want := norm(name)
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for n := range methods {
		d := adi.EditDistance(want, norm(n))
		if full := adi.EditDistance(strings.ToLower(name), n); full < d {
			d = full
		}
		if d <= 2 || (len(want) >= 4 && strings.Contains(norm(n), want)) {
			cs = append(cs, cand{n, d})
		}
	}
	sort.Slice(cs, func(a, b int) bool {
		if cs[a].d != cs[b].d {
			return cs[a].d < cs[b].d
		}
		return cs[a].name < cs[b].name
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].name)
	}
	return out
}
