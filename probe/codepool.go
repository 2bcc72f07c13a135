package probe

import (
	"sync"
	"weak"

	"github.com/adi-bridge/adi/adi"
)

// codes shares the Codes of every recording this process reads. An agent records one program
// again and again (each edit makes a new session, each session its re-runs), and a recording of
// a real library holds one Code for each of its hundreds of functions, with the function's name
// and file: networkx's 540 Codes are 21 kB, their names and paths 35 kB more, about a fifth of
// what the session keeps in memory. A Code is read-only once made, so every recording whose
// code record says the same function, file, line and kind gets the same one. The pool holds
// them weakly: a Code no open recording uses is freed, and its entry is swept out when the pool
// has grown to twice what it held at the last sweep (and by sweepSlack more).
//
// The pool is guarded by its mutex and runs no goroutine.
var codes = struct {
	sync.Mutex
	m     map[codeKey]weak.Pointer[adi.Code]
	swept int // entries left by the last sweep
}{m: map[codeKey]weak.Pointer[adi.Code]{}}

// sweepSlack is how many entries the pool may grow by beyond twice what its last sweep left.
const sweepSlack = 1024

// codeKey is what a code record says of its function.
type codeKey struct {
	fn, file string
	line     int32
	kind     adi.CodeKind
}

// sharedCode returns the Code of key: the one a recording read before made, while one still
// holds it, else a new one. The new one keeps key's strings, which should be its own (not cut
// from a recording's chunks: the Code may outlive that recording).
func sharedCode(key codeKey) *adi.Code {
	codes.Lock()
	defer codes.Unlock()
	if c := codes.m[key].Value(); c != nil {
		return c
	}
	if len(codes.m) >= 2*codes.swept+sweepSlack {
		sweepCodes()
	}
	c := &adi.Code{Func: key.fn, File: key.file, Line: key.line, Kind: key.kind}
	codes.m[key] = weak.Make(c)
	return c
}

// sweepCodes removes the entries whose Code was freed (with the pool locked).
func sweepCodes() {
	for k, p := range codes.m {
		if p.Value() == nil {
			delete(codes.m, k)
		}
	}
	codes.swept = len(codes.m)
}
