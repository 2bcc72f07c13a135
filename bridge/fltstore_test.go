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
	fs.packed[6], fs.ended[6] = []byte{9}, true // not packed by fltpack: not stored, so that it is recorded again
	if _, ok := fs.get(6); ok || fs.has(6) {
		t.Errorf("a corrupt FLT: get ok %v, has %v; want false, false", ok, fs.has(6))
	}
	again := &adi.FLT{Frame: 6, Ended: true, Steps: []adi.Step{}}
	fs.putAll(map[int]*adi.FLT{6: again})
	if got, ok := fs.get(6); !ok || got != again {
		t.Error("the FLT recorded again for a corrupt one was not stored")
	}
	fs.reset()
	if fs.has(4) || fs.len() != 0 {
		t.Errorf("after reset: has(4) %v, len %d", fs.has(4), fs.len())
	}
}

// TestFLTStorePutAll: an FLT read to its end is not stored again (a live session reads every FLT
// of its growing recording at each refresh); one still growing is replaced.
func TestFLTStorePutAll(t *testing.T) {
	var fs fltStore
	growing := &adi.FLT{Frame: 1, Steps: []adi.Step{{Line: 2, Stmt: "a = 1"}}}
	ended := &adi.FLT{Frame: 2, Ended: true, Steps: []adi.Step{{Line: 5, Stmt: "return 1"}}}
	fs.putAll(map[int]*adi.FLT{1: growing, 2: ended})
	packedEnded := fs.packed[2]
	longer := &adi.FLT{Frame: 1, Ended: true, Steps: []adi.Step{{Line: 2, Stmt: "a = 1"}, {Line: 3, Stmt: "return a"}}}
	again := &adi.FLT{Frame: 2, Ended: true, Steps: []adi.Step{{Line: 5, Stmt: "return 1"}}}
	fs.putAll(map[int]*adi.FLT{1: longer, 2: again})
	if &fs.packed[2][0] != &packedEnded[0] {
		t.Error("an FLT read to its end was packed again")
	}
	runtime.GC()
	if got, _ := fs.get(1); !reflect.DeepEqual(got, longer) {
		t.Errorf("the growing FLT: got %+v, want the longer one %+v", got, longer)
	}
	if got, _ := fs.get(2); !reflect.DeepEqual(got, ended) {
		t.Errorf("the ended FLT: got %+v, want %+v", got, ended)
	}
}
