package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"math"
	"math/big"
	"strconv"
	"unsafe"

	"github.com/adi-bridge/adi/internal/spans"
)

// unmarshal decodes one value written by Python's marshal.dumps(value, 2), the subset the probe
// writes (probe/python/adi_probe/output.py): None, bool, int (int64, or *big.Int when it does not
// fit), float (float64), complex (complex128), str (string), bytes ([]byte), tuple and list (both
// as []any), and dict (map[any]any with scalar keys).
// Version 2 writes no back-references. It returns the value and the bytes left.
func unmarshal(b []byte) (any, []byte, error) {
	return unmarshalInterned(b, nil)
}

// unmarshalInterned is unmarshal sharing the strings it decodes through strs (see interner).
func unmarshalInterned(b []byte, strs *interner) (any, []byte, error) {
	d := &unmarshaller{b: b, strs: strs}
	v, err := d.value(0)
	if err != nil {
		return nil, nil, err
	}
	return v, d.b, nil
}

type unmarshaller struct {
	b     []byte
	arena []any     // backing of the next tuples and lists (see list)
	strs  *interner // nil: every string is a new one
}

// interner shares equal strings: a recording repeats the same reprs ("None", "<Add, not
// rendered>", "'utf-8'"), fingerprints and statuses thousands of times, and a reader that keeps
// one copy of each holds a fraction of the memory. One interner lives for one Read; the strings
// it returns stay valid after it is dropped.
//
// It also places the strings it returns side by side in chunks of its own rather than each in an
// allocation: they are most of the small objects a recording keeps, and allocated one by one
// they would sit among the decoding's garbage, pinning pages that garbage alone would free.
type interner struct {
	m     map[string]string
	chunk []byte // the free end of the current chunk
	next  int    // size of a chunk
}

// maxInterned bounds the strings worth interning: longer ones rarely repeat, and the map would
// only add to the reader's peak memory.
const maxInterned = 256

// A chunk is a 64th of the recording's size on disk, within minChunk and maxChunk bytes (a
// small recording wastes little of its last one, a big one makes few), rounded up to fill its
// span (spans.Bytes); strings longer than maxChunked bytes get an allocation of their own.
const (
	minChunk   = 1 << 10
	maxChunk   = 16 << 10
	maxChunked = 1 << 10
)

// newInterner returns an interner for reading a recording of size bytes.
func newInterner(size int64) *interner {
	return &interner{m: make(map[string]string, 1024), next: spans.Bytes(int(min(max(size/64, minChunk), maxChunk)))}
}

// bytes returns p as a string, the same one for equal p (when p is short enough to be shared).
// A nil interner returns a new string.
func (in *interner) bytes(p []byte) string {
	if in == nil {
		return string(p)
	}
	if len(p) > maxInterned {
		return in.copy(p)
	}
	if s, ok := in.m[string(p)]; ok { // the conversion allocates nothing here
		return s
	}
	s := in.copy(p)
	in.m[s] = s
	return s
}

// int returns v's decimal text, the same string for equal v. A nil interner returns a new
// string.
func (in *interner) int(v int64) string {
	var buf [20]byte
	return in.bytes(strconv.AppendInt(buf[:0], v, 10))
}

// str returns the shared copy of s.
func (in *interner) str(s string) string {
	if in == nil || len(s) > maxInterned {
		return s
	}
	if t, ok := in.m[s]; ok {
		return t
	}
	t := in.copy(unsafe.Slice(unsafe.StringData(s), len(s)))
	in.m[t] = t
	return t
}

// copy returns a string of p's bytes, placed in the current chunk when it is short. The chunk's
// bytes are never written again once a string holds them.
func (in *interner) copy(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	if len(p) > maxChunked {
		return string(p)
	}
	if len(in.chunk) < len(p) {
		in.chunk = make([]byte, in.next)
	}
	b := in.chunk[:len(p):len(p)]
	in.chunk = in.chunk[len(p):]
	copy(b, p)
	return unsafe.String(&b[0], len(b))
}

// list returns a []any of n elements. Small ones are cut from a shared chunk: a batch holds
// thousands of short tuples, and one allocation for many of them is most of the reader's speed.
// A chunk is never reused, so the slices stay valid as long as anything holds them.
func (d *unmarshaller) list(n int) []any {
	if n == 0 || n > 64 {
		return make([]any, n)
	}
	if len(d.arena) < n {
		d.arena = make([]any, 4096)
	}
	s := d.arena[:n:n]
	d.arena = d.arena[n:]
	return s
}

// tags are the strings that start every record: read as these, they allocate nothing.
var tags = map[string]string{}

func init() {
	for _, t := range []string{"code", "thread", "call", "callret", "callexc", "ret", "exc", "yield",
		"resume", "trunc", "stmts", "begin", "step", "end", "new", "mod", "del"} {
		tags[t] = t
	}
}

var errShort = errors.New("marshal data ends early")

// maxDepth bounds nesting (the probe's records nest a few levels).
const maxDepth = 64

func (d *unmarshaller) take(n int) ([]byte, error) {
	if n < 0 || n > len(d.b) {
		return nil, errShort
	}
	p := d.b[:n]
	d.b = d.b[n:]
	return p, nil
}

func (d *unmarshaller) int32() (int32, error) {
	p, err := d.take(4)
	if err != nil {
		return 0, err
	}
	return int32(binary.LittleEndian.Uint32(p)), nil
}

// size reads a container or string length; each element needs at least one byte, so a length
// past the data is corrupt (and must not be allocated).
func (d *unmarshaller) size() (int, error) {
	n, err := d.int32()
	if err != nil {
		return 0, err
	}
	if n < 0 || int(n) > len(d.b) {
		return 0, fmt.Errorf("marshal length %d out of range", n)
	}
	return int(n), nil
}

func (d *unmarshaller) value(depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("marshal data nests too deep")
	}
	p, err := d.take(1)
	if err != nil {
		return nil, err
	}
	switch t := p[0]; t {
	case 'N':
		return nil, nil
	case 'T':
		return true, nil
	case 'F':
		return false, nil
	case 'i':
		n, err := d.int32()
		return int64(n), err
	case 'l':
		return d.long()
	case 'g':
		p, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(p)), nil
	case 'y':
		p, err := d.take(16)
		if err != nil {
			return nil, err
		}
		return complex(math.Float64frombits(binary.LittleEndian.Uint64(p)),
			math.Float64frombits(binary.LittleEndian.Uint64(p[8:]))), nil
	case 'u', 't', 's':
		n, err := d.size()
		if err != nil {
			return nil, err
		}
		p, err := d.take(n)
		if err != nil {
			return nil, err
		}
		if t == 's' {
			return append([]byte(nil), p...), nil
		}
		if n <= 8 {
			if s, ok := tags[string(p)]; ok {
				return s, nil
			}
		}
		return d.strs.bytes(p), nil
	case '(', '[':
		n, err := d.size()
		if err != nil {
			return nil, err
		}
		out := d.list(n)
		for i := range out {
			// a code record's function and file (fields 2 and 3 of a batch's tuple) go to its
			// Code, which recordings share (sharedCode): strings of their own, not cut from this
			// reader's chunks, which the Code may outlive
			if depth == 1 && (i == 2 || i == 3) && out[0] == "code" {
				strs := d.strs
				d.strs = nil
				out[i], err = d.value(depth + 1)
				d.strs = strs
			} else {
				out[i], err = d.value(depth + 1)
			}
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	case '{':
		m := map[any]any{}
		for {
			if len(d.b) > 0 && d.b[0] == '0' {
				d.b = d.b[1:]
				return m, nil
			}
			k, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			v, err := d.value(depth + 1)
			if err != nil {
				return nil, err
			}
			switch k.(type) {
			case nil, bool, int64, float64, string:
				m[k] = v
			default:
				return nil, fmt.Errorf("marshal dict key of type %T", k)
			}
		}
	default:
		return nil, fmt.Errorf("marshal type %q not supported", rune(t))
	}
}

// long decodes TYPE_LONG: a signed count of 15-bit digits, least significant first.
func (d *unmarshaller) long() (any, error) {
	n, err := d.int32()
	if err != nil {
		return nil, err
	}
	neg := n < 0
	count := int(n)
	if neg {
		count = -count
	}
	if count < 0 || count*2 > len(d.b) {
		return nil, fmt.Errorf("marshal long of %d digits out of range", n)
	}
	v := new(big.Int)
	digit := new(big.Int)
	for i := 0; i < count; i++ {
		p, _ := d.take(2)
		x := binary.LittleEndian.Uint16(p)
		if x >= 1<<15 {
			return nil, errors.New("marshal long digit out of range")
		}
		digit.SetUint64(uint64(x))
		digit.Lsh(digit, uint(15*i))
		v.Or(v, digit)
	}
	if neg {
		v.Neg(v)
	}
	if v.IsInt64() {
		return v.Int64(), nil
	}
	return v, nil
}

// fpText is the "#" fingerprint of the marshalled canonical tokens a call record carries
// (probe/PROTOCOL.md): their CRC-32 and Adler-32, 8 hex digits each.
func fpText(tokens []byte) string {
	var b [17]byte
	return string(fpBytes(&b, tokens))
}

// fpBytes writes the fingerprint of tokens into b and returns it (no allocation).
func fpBytes(b *[17]byte, tokens []byte) []byte {
	const hex = "0123456789abcdef"
	b[0] = '#'
	for i, v := range [2]uint32{crc32.ChecksumIEEE(tokens), adler32.Checksum(tokens)} {
		for k := 0; k < 8; k++ {
			b[1+8*i+k] = hex[v>>(28-4*k)&0xf]
		}
	}
	return b[:]
}
