package adi

import (
	"fmt"
	"strings"
)

// paramInvocation finds the invocation of fn that a parametrized pytest id names (r.Param, the
// "2-3" of "test_f[2-3]"). pytest makes such an id from the parameters' values joined by "-":
// numbers, booleans and None as written, strings without their quotes. An invocation matches when
// some of its arguments, each used once and in any order, spell the id that way. Exactly one
// invocation must match; otherwise (ids given by hand, values pytest names by argument and
// position, duplicates) the error lists the invocations to pick from by index.
//
// A run of pytest tells which invocation is which: the probe records the node id pytest gave each
// test it called (Trace.NodeID), and when fn's invocations have them, the id is looked up there,
// exactly, whatever made it (ids given by hand included).
func (t *Trace) paramInvocation(r Ref, fn string) (int, error) {
	inv := t.Invocations(fn)
	if j, ok, err := t.nodeInvocation(r, fn, inv); ok {
		return j, err
	}
	var found []int32
	for _, j := range inv {
		if spells(r.Param, idTokens(t.Frames[j].Args), 0) {
			found = append(found, j)
		}
	}
	if len(found) == 1 {
		return int(found[0]), nil
	}
	why := "no invocation of %s has arguments that spell pytest's id [%s]"
	if len(found) > 1 {
		why = "several invocations of %s have arguments that spell pytest's id [%s]"
	}
	return -1, NotFoundf("%q: "+why+"; pick one by index: %s", r.String(), fn, r.Param, t.invocationList(inv))
}

// nodeInvocation finds the invocation of fn among inv whose recorded node id has the parametrize
// id r.Param; ok is false when none of inv has a recorded node id (the run's runner is not pytest).
func (t *Trace) nodeInvocation(r Ref, fn string, inv []int32) (j int, ok bool, err error) {
	var found, named []int32
	for _, k := range inv {
		id := t.NodeID(int(k))
		if id == "" {
			continue
		}
		named = append(named, k)
		if paramOf(id) == r.Param {
			found = append(found, k)
		}
	}
	switch {
	case len(named) == 0:
		return -1, false, nil
	case len(found) == 1:
		return int(found[0]), true, nil
	}
	ids := make([]string, 0, min(len(named), 11))
	for i, k := range named {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("… and %d more", len(named)-10))
			break
		}
		ids = append(ids, fmt.Sprintf("%s [%s]", t.Frames[k].FID(), paramOf(t.NodeID(int(k)))))
	}
	why := "no test %s ran with pytest's id [%s]"
	if len(found) > 1 {
		why = "several tests %s ran with pytest's id [%s]"
	}
	return -1, true, NotFoundf("%q: "+why+"; the ids pytest gave it: %s", r.String(), fn, r.Param, strings.Join(ids, ", "))
}

// paramOf returns the parametrize id of a pytest node id: the "a-1" of "t.py::test_f[a-1]", or "".
func paramOf(nodeID string) string {
	_, test, _ := strings.Cut(nodeID, "::")
	k := strings.IndexByte(test, '[')
	if k < 0 || !strings.HasSuffix(test, "]") {
		return ""
	}
	return test[k+1 : len(test)-1]
}

// paramText writes a test's parametrize id after its fid in a listing (" [a-1]"), or nothing.
func paramText(nodeID string) string {
	if p := paramOf(nodeID); p != "" {
		return " [" + p + "]"
	}
	return ""
}

// invocationList names up to ten invocations with their arguments, for an error.
func (t *Trace) invocationList(inv []int32) string {
	d := detail{valueLimit: 20}
	parts := make([]string, 0, min(len(inv), 11))
	for k, j := range inv {
		if k == 10 {
			parts = append(parts, fmt.Sprintf("… and %d more", len(inv)-10))
			break
		}
		f := &t.Frames[j]
		parts = append(parts, fmt.Sprintf("%s (%s)", f.FID(), d.sigArgs(f.Args)))
	}
	return strings.Join(parts, ", ")
}

// maxIDArgs bounds the arguments tried when matching an id (the search tries their orders).
const maxIDArgs = 8

// idTokens turns argument reprs into the words pytest would put in an id: a quoted string loses
// its quotes; a value written as a container or an object ("[…]", "<…>") gives no word ("").
func idTokens(args []Arg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		v := a.Value
		switch {
		case i == maxIDArgs:
			return out[:i]
		case wrapped(v):
			out[i] = v[1 : len(v)-1]
		case v == "" || strings.ContainsAny(v[:1], "<[({") || hasSpace(v):
		default:
			out[i] = v
		}
	}
	return out
}

// spells reports whether id is some of the tokens not in used (a bit set), each at most once,
// joined by "-".
func spells(id string, tokens []string, used uint64) bool {
	for i, tok := range tokens {
		if tok == "" || used&(1<<i) != 0 {
			continue
		}
		if id == tok || (strings.HasPrefix(id, tok+"-") && spells(id[len(tok)+1:], tokens, used|1<<i)) {
			return true
		}
	}
	return false
}
