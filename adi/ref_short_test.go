package adi

import "testing"

// TestRefResolvesBack: the way the text names each frame (Trace.Ref) is one commands resolve to
// that frame.
func TestRefResolvesBack(t *testing.T) {
	for _, tr := range []*Trace{fixture(), wideTrace(), incomplete()} {
		for j := range tr.Frames {
			f := tr.Frames[j].FID()
			r, err := ParseRef(tr.Ref(f))
			if err != nil {
				t.Fatalf("%s: %v", tr.Ref(f), err)
			}
			got, err := tr.ResolveFrame(r)
			if err != nil || got != j {
				t.Errorf("Ref %q of %s resolves to %d (%v), want %d", tr.Ref(f), f, got, err, j)
			}
		}
	}
	tr := fixture()
	if got := tr.Ref(FID{Func: "pkg.util:Helper.run", Index: 1}); got != "Helper.run#1" {
		t.Errorf("Ref = %q, want Helper.run#1", got)
	}
	if got := tr.Ref(FID{Func: "t:main", Index: 1}); got != "t:main#1" {
		t.Errorf("Ref = %q, want t:main#1 (a top-level module's function keeps its module)", got)
	}
}
