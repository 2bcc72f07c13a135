// Package fltpack packs an FLT into one compact byte string and unpacks it again, so that a
// session can hold the FLTs it has recorded at a fraction of their decoded size and decode one
// when a command shows it.
//
// A decoded FLT costs 128 bytes a step before its changes, callees and loop positions, each a
// slice of its own, and repeats nothing it could share; packed, a step is a few varints that
// refer to a table of the FLT's distinct strings (a loop's statement, a value that did not
// change), so that what a session keeps of networkx's `_dijkstra_multisource` shrinks about
// sevenfold. Unpacking makes one allocation per kind of element (all steps, all changes, all
// callees, ...; the packed FLT counts them) and one for all the strings, whatever the FLT's
// length, in one pass.
//
// The format is this process's only: it is never written to disk or sent, so it carries no
// version. It runs no goroutines.
package fltpack

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/adi-bridge/adi/adi"
)

// The bits of a step's flags byte.
const (
	resume = 1 << iota
	hasYield
	hasRaise
	hasTest
	testTrue
)

// Pack returns flt packed. Unpack(Pack(flt)) equals *flt, nil slices staying nil and empty
// ones empty.
func Pack(flt *adi.FLT) []byte {
	var p packer
	p.strs = make(map[string]uint64)
	p.varint(int64(flt.Frame))
	p.uvarint(uint64(flt.Dropped))
	p.bool(flt.Ended)
	p.count(len(flt.Args), flt.Args == nil)
	for _, a := range flt.Args {
		p.str(a.Name)
		p.str(a.Value)
	}
	p.optStr(flt.Return)
	p.count(len(flt.Steps), flt.Steps == nil)
	var t totals
	for i := range flt.Steps {
		st := &flt.Steps[i]
		var flags byte
		if st.Resume {
			flags |= resume
		}
		if st.Yield != nil {
			flags |= hasYield
			t[yields]++
		}
		if st.Raise != nil {
			flags |= hasRaise
			t[raises]++
		}
		if st.Test != nil {
			flags |= hasTest
			t[tests]++
			if *st.Test {
				flags |= testTrue
			}
		}
		t[changes] += len(st.Changes)
		t[callees] += len(st.Callees)
		t[loops] += len(st.Loop)
		p.body = append(p.body, flags)
		p.varint(int64(st.Line))
		p.str(st.Stmt)
		p.count(len(st.Changes), st.Changes == nil)
		for _, c := range st.Changes {
			p.str(c.Name)
			p.str(c.Path)
			p.str(c.Old)
			p.str(c.New)
			p.str(string(c.Kind))
		}
		p.count(len(st.Callees), st.Callees == nil)
		for _, c := range st.Callees {
			p.varint(int64(c))
		}
		p.count(len(st.Loop), st.Loop == nil)
		for _, l := range st.Loop {
			p.varint(int64(l.Header))
			p.varint(int64(l.Iteration))
		}
		if st.Yield != nil {
			p.str(*st.Yield)
		}
		if st.Raise != nil {
			p.str(st.Raise.Type)
			p.str(st.Raise.Message)
			p.varint(int64(st.Raise.Line))
		}
	}
	// the strings first (their count, each one's length, then their bytes), then how many
	// elements of each kind the steps hold (so that Unpack makes one allocation a kind in one
	// pass), then the body, in one allocation of the exact size: it is kept as long as the session
	var head []byte
	head = binary.AppendUvarint(head, uint64(len(p.order)))
	n := 0
	for _, s := range p.order {
		head = binary.AppendUvarint(head, uint64(len(s)))
		n += len(s)
	}
	for _, k := range t {
		head = binary.AppendUvarint(head, uint64(k))
	}
	out := make([]byte, 0, len(head)+n+len(p.body))
	out = append(out, head...)
	for _, s := range p.order {
		out = append(out, s...)
	}
	return append(out, p.body...)
}

// totals counts the elements of each kind that an FLT's steps hold, by kind (changes, ...).
type totals [6]int

// The kinds of element totals counts.
const (
	changes = iota
	callees
	loops
	yields
	raises
	tests
)

// packer collects a packed FLT's body and its table of distinct strings.
type packer struct {
	body  []byte
	strs  map[string]uint64 // a string's place in order
	order []string
}

func (p *packer) uvarint(v uint64) { p.body = binary.AppendUvarint(p.body, v) }
func (p *packer) varint(v int64)   { p.body = binary.AppendVarint(p.body, v) }

func (p *packer) bool(b bool) {
	if b {
		p.body = append(p.body, 1)
	} else {
		p.body = append(p.body, 0)
	}
}

// count writes a slice's length, plus one, or 0 for a nil slice.
func (p *packer) count(n int, isNil bool) {
	if isNil {
		p.uvarint(0)
	} else {
		p.uvarint(uint64(n) + 1)
	}
}

// str writes s as its place in the string table.
func (p *packer) str(s string) { p.uvarint(p.place(s)) }

// place returns s's place in the string table, adding it there when it is new.
func (p *packer) place(s string) uint64 {
	k, ok := p.strs[s]
	if !ok {
		k = uint64(len(p.order))
		p.strs[s] = k
		p.order = append(p.order, s)
	}
	return k
}

// optStr writes an optional string: 0 for nil, else its place in the string table plus one.
func (p *packer) optStr(s *string) {
	if s == nil {
		p.uvarint(0)
		return
	}
	p.uvarint(p.place(*s) + 1)
}

// ErrCorrupt is what Unpack returns for bytes Pack did not make.
var ErrCorrupt = errors.New("fltpack: corrupt packed FLT")

// Unpack returns the FLT that b packs.
func Unpack(b []byte) (flt *adi.FLT, err error) {
	u := unpacker{b: b}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(corrupt)
			if !ok {
				panic(r)
			}
			flt, err = nil, fmt.Errorf("%w: %s", ErrCorrupt, string(e))
		}
	}()
	n := u.uvarint()
	if n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: %d strings in %d bytes", ErrCorrupt, n, len(b))
	}
	lens := make([]int, n)
	total := 0
	for i := range lens {
		l := u.uvarint()
		if l > uint64(len(b)) {
			return nil, fmt.Errorf("%w: a string of %d bytes", ErrCorrupt, l)
		}
		lens[i] = int(l)
		total += int(l)
	}
	var t totals
	for i := range t {
		if t[i] = int(u.uvarint()); t[i] > len(b) { // every element takes a byte at least
			return nil, fmt.Errorf("%w: %d elements in %d bytes", ErrCorrupt, t[i], len(b))
		}
	}
	if total > len(u.b) {
		return nil, fmt.Errorf("%w: %d bytes of strings in %d", ErrCorrupt, total, len(u.b))
	}
	all := string(u.b[:total]) // one allocation; the table's strings are cut from it
	u.b = u.b[total:]
	u.strs = make([]string, n)
	for i, l := range lens {
		u.strs[i], all = all[:l], all[l:]
	}
	flt = &adi.FLT{Frame: int(u.varint()), Dropped: int(u.uvarint()), Ended: u.byte() != 0}
	if na, ok := u.count(); ok {
		flt.Args = make([]adi.Arg, na)
		for i := range flt.Args {
			flt.Args[i] = adi.Arg{Name: u.str(), Value: u.str()}
		}
	}
	flt.Return = u.optStr()
	ns, stepsOK := u.count()
	if stepsOK {
		flt.Steps = make([]adi.Step, ns)
	}
	chs, cls, lps := make([]adi.Change, t[changes]), make([]int, t[callees]), make([]adi.LoopPos, t[loops])
	ys, rs, ts := make([]string, t[yields]), make([]adi.Exception, t[raises]), make([]bool, t[tests])
	for i := range flt.Steps {
		st := &flt.Steps[i]
		flags := u.byte()
		st.Resume = flags&resume != 0
		st.Line = int(u.varint())
		st.Stmt = u.str()
		if k, ok := u.count(); ok {
			st.Changes = cut(&chs, k)
			for c := range st.Changes {
				st.Changes[c] = adi.Change{Name: u.str(), Path: u.str(), Old: u.str(), New: u.str(), Kind: adi.ChangeKind(u.str())}
			}
		}
		if k, ok := u.count(); ok {
			st.Callees = cut(&cls, k)
			for c := range st.Callees {
				st.Callees[c] = int(u.varint())
			}
		}
		if k, ok := u.count(); ok {
			st.Loop = cut(&lps, k)
			for c := range st.Loop {
				st.Loop[c] = adi.LoopPos{Header: int(u.varint()), Iteration: int(u.varint())}
			}
		}
		if flags&hasYield != 0 {
			st.Yield = &cut(&ys, 1)[0]
			*st.Yield = u.str()
		}
		if flags&hasRaise != 0 {
			st.Raise = &cut(&rs, 1)[0]
			*st.Raise = adi.Exception{Type: u.str(), Message: u.str(), Line: int(u.varint())}
		}
		if flags&hasTest != 0 {
			st.Test = &cut(&ts, 1)[0]
			*st.Test = flags&testTrue != 0
		}
	}
	if len(u.b) != 0 {
		return nil, fmt.Errorf("%w: %d bytes after its last step", ErrCorrupt, len(u.b))
	}
	return flt, nil
}

// corrupt is what an unpacker panics with when its bytes are not a packed FLT; Unpack recovers
// it.
type corrupt string

const (
	errShort  = corrupt("it ends early")
	errIndex  = corrupt("a string past the end of its table")
	errTotals = corrupt("its steps hold more elements than it counts")
)

// cut returns the next k elements of *s, taking them from it.
func cut[T any](s *[]T, k int) []T {
	if k > len(*s) {
		panic(errTotals)
	}
	e := (*s)[:k:k]
	*s = (*s)[k:]
	return e
}

// unpacker reads a packed FLT's body.
type unpacker struct {
	b    []byte
	strs []string
}

func (u *unpacker) byte() byte {
	if len(u.b) == 0 {
		panic(errShort)
	}
	c := u.b[0]
	u.b = u.b[1:]
	return c
}

func (u *unpacker) uvarint() uint64 {
	v, n := binary.Uvarint(u.b)
	if n <= 0 {
		panic(errShort)
	}
	u.b = u.b[n:]
	return v
}

func (u *unpacker) varint() int64 {
	v, n := binary.Varint(u.b)
	if n <= 0 {
		panic(errShort)
	}
	u.b = u.b[n:]
	return v
}

// count reads a slice's length; ok is false for a nil slice.
func (u *unpacker) count() (n int, ok bool) {
	c := u.uvarint()
	if c > uint64(len(u.b))+1 { // every element takes a byte at least
		panic(errShort)
	}
	if c == 0 {
		return 0, false
	}
	return int(c - 1), true
}

func (u *unpacker) str() string {
	k := u.uvarint()
	if k >= uint64(len(u.strs)) {
		panic(errIndex)
	}
	return u.strs[k]
}

// optStr reads an optional string.
func (u *unpacker) optStr() *string {
	k := u.uvarint()
	if k == 0 {
		return nil
	}
	if k-1 >= uint64(len(u.strs)) {
		panic(errIndex)
	}
	s := u.strs[k-1]
	return &s
}
