package fltpack

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/adi-bridge/adi/adi"
)

func ptr[T any](v T) *T { return &v }

// every is an FLT with every field set, and the slices of one step nil and of another empty.
func every() *adi.FLT {
	return &adi.FLT{
		Frame: 7, Dropped: 3, Ended: true,
		Args:   []adi.Arg{{Name: "x", Value: "1"}, {Name: "y", Value: "'a'"}, {Name: "z", Value: "1"}},
		Return: ptr("None"),
		Steps: []adi.Step{
			{Line: 2, Stmt: "for i in range(3):", Test: ptr(true), Loop: []adi.LoopPos{{Header: 2, Iteration: 1}}},
			{Line: 3, Stmt: "t += f(i)", Changes: []adi.Change{{Name: "t", Old: "0", New: "1", Kind: adi.Modified}, {Name: "d", Path: "['k']", New: "[1]", Kind: adi.New}},
				Callees: []int{8, 9, -1}, Loop: []adi.LoopPos{{Header: 2, Iteration: 1}, {Header: 5, Iteration: 300}}},
			{Line: 4, Stmt: "yield t", Yield: ptr("1"), Resume: true, Changes: []adi.Change{}, Callees: []int{}, Loop: []adi.LoopPos{}},
			{Line: 5, Stmt: "raise ValueError(t)", Raise: &adi.Exception{Type: "ValueError", Message: "1", Line: 5}, Test: ptr(false)},
			{Line: 0, Stmt: ""},
		},
	}
}

func roundTrip(t *testing.T, what string, flt *adi.FLT) []byte {
	t.Helper()
	b := Pack(flt)
	got, err := Unpack(b)
	if err != nil {
		t.Fatalf("%s: Unpack(Pack) = %v", what, err)
	}
	if !reflect.DeepEqual(got, flt) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(flt)
		t.Fatalf("%s: unpacked\n%s\nwant\n%s", what, gj, wj)
	}
	return b
}

func TestRoundTrip(t *testing.T) {
	roundTrip(t, "every field", every())
	roundTrip(t, "nil steps and args", &adi.FLT{Frame: 0})
	roundTrip(t, "empty steps and args", &adi.FLT{Frame: 1, Steps: []adi.Step{}, Args: []adi.Arg{}, Return: ptr("")})
	many := &adi.FLT{Frame: 1 << 40, Steps: []adi.Step{}}
	for i := range 300 { // more than 127 strings: places of two bytes, optional ones too
		many.Steps = append(many.Steps, adi.Step{Line: i, Stmt: string(rune('a' + i%26)), Changes: []adi.Change{{Name: "v", New: string(rune(0x100 + i)), Kind: adi.Modified}}})
	}
	many.Return = ptr("last of many")
	roundTrip(t, "300 steps", many)
}

// TestRoundTripRecorded packs the FLTs a re-run recorded of networkx's _dijkstra_multisource (two
// invocations of 145 steps, their dicts of distances changing at every step) and checks that
// they unpack equal and pack to less than a fifth of their JSON.
func TestRoundTripRecorded(t *testing.T) {
	flts := recorded(t)
	if len(flts) != 2 {
		t.Fatalf("%d FLTs in the file, want 2", len(flts))
	}
	for j, flt := range flts {
		if len(flt.Steps) != 145 {
			t.Fatalf("FLT of %d has %d steps, want 145", j, len(flt.Steps))
		}
		b := roundTrip(t, "networkx", flt)
		js, _ := json.Marshal(flt)
		if len(b)*5 > len(js) {
			t.Errorf("FLT of %d packs to %d bytes, its JSON is %d: want less than a fifth", j, len(b), len(js))
		}
	}
}

func TestUnpackCorrupt(t *testing.T) {
	b := Pack(every())
	for n := range len(b) {
		if _, err := Unpack(b[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Unpack of the first %d of %d bytes: %v, want ErrCorrupt", n, len(b), err)
		}
	}
	// a step with one change, in an FLT that counts none: its strings are "" and "a" (the count
	// and two lengths, bytes 0-2), then the count of changes (byte 3)
	fewer := Pack(&adi.FLT{Steps: []adi.Step{{Changes: []adi.Change{{Name: "a"}}}}})
	if fewer[3] != 1 {
		t.Fatalf("the packed FLT's changes are not counted at byte 3: % x", fewer)
	}
	fewer[3] = 0
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{nil, "fltpack: corrupt packed FLT: it ends early"},
		{[]byte{5}, "fltpack: corrupt packed FLT: 5 strings in 1 bytes"},
		{[]byte{1, 100, 'a'}, "fltpack: corrupt packed FLT: a string of 100 bytes"},
		{[]byte{1, 2, 0, 0, 0, 0, 0, 0, 'a'}, "fltpack: corrupt packed FLT: 2 bytes of strings in 1"},
		{[]byte{0, 9, 0, 0, 0, 0, 0}, "fltpack: corrupt packed FLT: 9 elements in 7 bytes"},
		{append(Pack(&adi.FLT{}), 0), "fltpack: corrupt packed FLT: 1 bytes after its last step"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0}, "fltpack: corrupt packed FLT: a string past the end of its table"},
		{fewer, "fltpack: corrupt packed FLT: its steps hold more elements than it counts"},
	} {
		if _, err := Unpack(c.b); err == nil || err.Error() != c.want {
			t.Errorf("Unpack(%v) = %v, want %q", c.b, err, c.want)
		}
	}
}

func FuzzUnpack(f *testing.F) {
	f.Add(Pack(every()))
	f.Add(Pack(&adi.FLT{Steps: []adi.Step{{Line: 1}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		flt, err := Unpack(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Unpack error %v is not ErrCorrupt", err)
			}
			return
		}
		roundTrip(t, "fuzzed", flt)
	})
}

func BenchmarkUnpack(b *testing.B) {
	p := Pack(recorded(b)[2163])
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unpack(p); err != nil {
			b.Fatal(err)
		}
	}
}

// recorded returns the FLTs of testdata/networkx_dijkstra.json (a session's flts.json: the FLTs
// a re-run recorded of two invocations of networkx's _dijkstra_multisource), by index in T.
func recorded(tb testing.TB) map[int]*adi.FLT {
	tb.Helper()
	raw, err := os.ReadFile("testdata/networkx_dijkstra.json")
	if err != nil {
		tb.Fatal(err)
	}
	var flts map[int]*adi.FLT
	if err := json.Unmarshal(raw, &flts); err != nil {
		tb.Fatal(err)
	}
	return flts
}
