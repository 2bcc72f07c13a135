package probe

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callsBin turns JSON lines (one batch of records per line; numbers are ints) into calls.bin.
func callsBin(t testing.TB, lines string) string { return binFile(t, callsMagic, lines) }

// fltBin turns JSON lines into flt.bin; object keys that are numbers become ints.
func fltBin(t testing.TB, lines string) string { return binFile(t, fltMagic, lines) }

func binFile(t testing.TB, magic, lines string) string {
	t.Helper()
	var out bytes.Buffer
	out.WriteString(magic)
	for _, line := range strings.Split(strings.TrimSpace(lines), "\n") {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		var batch any
		require.NoError(t, dec.Decode(&batch), line)
		var payload bytes.Buffer
		require.NoError(t, marshalTest(&payload, fromJSON(batch)))
		_ = binary.Write(&out, binary.LittleEndian, uint32(payload.Len()))
		out.Write(payload.Bytes())
	}
	return out.String()
}

// marshalV2 encodes v exactly as Python's marshal.dumps(v, 2) encodes the equivalent value (test
// fixtures): nil, bool, int64/int, *big.Int, float64, complex128, string, []byte, and []any as a
// tuple.
func marshalV2(buf *bytes.Buffer, v any) error {
	put32 := func(n int32) { _ = binary.Write(buf, binary.LittleEndian, n) }
	put64 := func(f float64) { _ = binary.Write(buf, binary.LittleEndian, math.Float64bits(f)) }
	switch v := v.(type) {
	case nil:
		buf.WriteByte('N')
	case bool:
		if v {
			buf.WriteByte('T')
		} else {
			buf.WriteByte('F')
		}
	case int:
		return marshalV2(buf, int64(v))
	case int64:
		if v >= -1<<31 && v < 1<<31 {
			buf.WriteByte('i')
			put32(int32(v))
			return nil
		}
		return marshalV2(buf, big.NewInt(v))
	case *big.Int:
		if v.IsInt64() && v.Int64() >= -1<<31 && v.Int64() < 1<<31 {
			return marshalV2(buf, v.Int64())
		}
		buf.WriteByte('l')
		mag := new(big.Int).Abs(v)
		var digits []uint16
		mask := big.NewInt(1<<15 - 1)
		for mag.Sign() > 0 {
			digits = append(digits, uint16(new(big.Int).And(mag, mask).Int64()))
			mag.Rsh(mag, 15)
		}
		n := int32(len(digits))
		if v.Sign() < 0 {
			n = -n
		}
		put32(n)
		for _, d := range digits {
			_ = binary.Write(buf, binary.LittleEndian, d)
		}
	case float64:
		buf.WriteByte('g')
		put64(v)
	case complex128:
		buf.WriteByte('y')
		put64(real(v))
		put64(imag(v))
	case string:
		buf.WriteByte('u')
		put32(int32(len(v)))
		buf.WriteString(v)
	case []byte:
		buf.WriteByte('s')
		put32(int32(len(v)))
		buf.Write(v)
	case []any:
		buf.WriteByte('(')
		put32(int32(len(v)))
		for _, x := range v {
			if err := marshalV2(buf, x); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("cannot marshal a %T", v)
	}
	return nil
}

// marshalTest is marshalV2 plus dicts (map[any]any, keys in a stable order), for fixtures.
func marshalTest(buf *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case []any:
		buf.WriteByte('(')
		_ = binary.Write(buf, binary.LittleEndian, int32(len(v)))
		for _, x := range v {
			if err := marshalTest(buf, x); err != nil {
				return err
			}
		}
		return nil
	case map[any]any:
		keys := make([]any, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		buf.WriteByte('{')
		for _, k := range keys {
			if err := marshalTest(buf, k); err != nil {
				return err
			}
			if err := marshalTest(buf, v[k]); err != nil {
				return err
			}
		}
		buf.WriteByte('0')
		return nil
	}
	return marshalV2(buf, v)
}

func fromJSON(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[any]any{}
		for k, x := range v {
			if n, err := strconv.ParseInt(k, 10, 64); err == nil {
				out[n] = fromJSON(x)
			} else {
				out[k] = fromJSON(x)
			}
		}
		return out
	case json.Number:
		n, ok := new(big.Int).SetString(v.String(), 10)
		if !ok {
			panic("not an int: " + v.String())
		}
		if n.IsInt64() {
			return n.Int64()
		}
		return n
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = fromJSON(x)
		}
		return out
	}
	return v
}

func TestUnmarshal(t *testing.T) {
	huge, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	for _, v := range []any{nil, true, false, int64(0), int64(-5), int64(1 << 40), int64(-1 << 40), huge, "", "héllo",
		[]any{}, []any{"a", []any{int64(1), nil}}, 1.5, complex(1, -2), []byte("b\x00")} {
		var buf bytes.Buffer
		require.NoError(t, marshalV2(&buf, v))
		got, rest, err := unmarshal(buf.Bytes())
		require.NoError(t, err, "%v", v)
		assert.Empty(t, rest)
		if b, ok := v.(*big.Int); ok {
			assert.Equal(t, 0, b.Cmp(got.(*big.Int)))
			continue
		}
		assert.Equal(t, v, got)
	}
	// cut data and absurd lengths are errors, never panics or huge allocations
	var buf bytes.Buffer
	require.NoError(t, marshalV2(&buf, []any{"abc", int64(7)}))
	for i := 0; i < buf.Len(); i++ {
		_, _, err := unmarshal(buf.Bytes()[:i])
		assert.Error(t, err)
	}
	_, _, err := unmarshal([]byte{'(', 0xff, 0xff, 0xff, 0x7f})
	assert.Error(t, err)
	_, _, err = unmarshal([]byte{'r', 0, 0, 0, 0})
	assert.ErrorContains(t, err, "not supported")
}

// FuzzUnmarshal: arbitrary bytes never panic.
func FuzzUnmarshal(f *testing.F) {
	var buf bytes.Buffer
	_ = marshalV2(&buf, []any{"callret", int64(1), int64(0), nil, true, []any{"x"}})
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		v, _, err := unmarshal(b)
		if err == nil { // what decodes encodes again (tuples and lists both as tuples)
			var out bytes.Buffer
			if err := marshalTest(&out, v); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// testdata/fp_golden.marshal holds (marshalled tokens, fingerprint) pairs the probe computed
// (values.fp_value and values.fp_text) for many kinds of values: the reader computes the same.
func TestFingerprintsMatchThePython(t *testing.T) {
	b, err := os.ReadFile("testdata/fp_golden.marshal")
	require.NoError(t, err)
	v, rest, err := unmarshal(b)
	require.NoError(t, err)
	require.Empty(t, rest)
	pairs := v.([]any)
	require.NotEmpty(t, pairs)
	for _, p := range pairs {
		pair := p.([]any)
		assert.Equal(t, pair[1], fpText(pair[0].([]byte)))
	}
}

// The interner writes an int as its decimal text, one string for equal ints (T's return values
// repeat); a nil interner writes a new one.
func TestInternerInt(t *testing.T) {
	in := newInterner(1 << 20)
	a, b := in.int(-123456789), in.int(-123456789)
	assert.Equal(t, "-123456789", a)
	assert.Same(t, unsafe.StringData(a), unsafe.StringData(b))
	assert.Equal(t, "9223372036854775807", in.int(math.MaxInt64))
	var none *interner
	assert.Equal(t, "4096", none.int(4096))
}
