package bridge

import (
	"reflect"
	"runtime"
	"testing"

	"github.com/adi-bridge/adi/adi"
)

func TestFLTStore(t *testing.T) {
	yes := true
	want := &adi.FLT{Frame: 4, Ended: true, Steps: []adi.Step{
		{Line: 2, Stmt: "if x:", Test: &yes},
		{Line: 3, Stmt: "y = f(x)", Changes: []adi.Change{{Name: "y", New: "2", Kind: adi.New}}, Callees: []int{5}},
	}}
	var fs fltStore
	if fs.has(4) || fs.len() != 0 {
		t.Fatal("the zero fltStore is not empty")
	}
	if _, ok := fs.get(4); ok {
		t.Fatal("get on the zero fltStore found an FLT")
	}
	fs.put(4, want)
	if got, ok := fs.get(4); !ok || got != want {
		t.Fatalf("get before a collection = %p, %v; want the FLT put (%p)", got, ok, want)
	}
	runtime.GC() // nothing holds the decoded FLT but the store's weak pointer: it is unpacked again
	got, ok := fs.get(4)
	if !ok || !reflect.DeepEqual(got, want) {
		t.Fatalf("get after a collection = %+v, %v; want %+v", got, ok, want)
	}
	if again, _ := fs.get(4); again != got {
		t.Error("a second get before the next collection unpacked the FLT again")
	}
	if !fs.has(4) || fs.has(5) || fs.len() != 1 {
		t.Errorf("has(4) %v, has(5) %v, len %d; want true, false, 1", fs.has(4), fs.has(5), fs.len())
	}
	if _, ok := fs.get(5); ok {
		t.Error("get(5) found an FLT never put")
	}
	fs.packed[6] = []byte{9} // not packed by fltpack: treated as not stored, so that it is recorded again
	if _, ok := fs.get(6); ok || fs.has(6) {
		t.Errorf("a corrupt FLT: get ok %v, has %v; want false, false", ok, fs.has(6))
	}
	fs.reset()
	if fs.has(4) || fs.len() != 0 {
		t.Errorf("after reset: has(4) %v, len %d", fs.has(4), fs.len())
	}
}
