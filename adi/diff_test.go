package adi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// steps makes a τ of the given lines (statement "sN" for line N).
func steps(lines ...int) []StepView {
	out := make([]StepView, len(lines))
	for i, l := range lines {
		out[i] = StepView{Line: l, Stmt: "s" + string(rune('0'+l%10))}
	}
	return out
}

// TestAlignSteps: steps are matched by the lines they ran, so that a branch taken by one side
// stands alone and the steps after it line up again; unmatched steps between two matches pair in
// order; a middle too big to compare is aligned by position.
func TestAlignSteps(t *testing.T) {
	for _, tt := range []struct {
		name string
		a, b []StepView
		want [][2]int
	}{
		{"same", steps(1, 2, 3), steps(1, 2, 3), [][2]int{{0, 0}, {1, 1}, {2, 2}}},
		{"one more step in A", steps(1, 2, 7, 3, 4), steps(1, 2, 3, 4), [][2]int{{0, 0}, {1, 1}, {2, -1}, {3, 2}, {4, 3}}},
		{"one more step in B at the end", steps(1, 2), steps(1, 2, 3), [][2]int{{0, 0}, {1, 1}, {-1, 2}}},
		{"branches", steps(1, 2, 3, 5, 6), steps(1, 4, 5, 6), [][2]int{{0, 0}, {1, 1}, {2, -1}, {3, 2}, {4, 3}}},
		{"nothing in common", steps(1, 2), steps(3, 4, 5), [][2]int{{0, 0}, {1, 1}, {-1, 2}}},
		{"empty", steps(), steps(1), [][2]int{{-1, 0}}},
	} {
		assert.Equal(t, tt.want, alignSteps(tt.a, tt.b), tt.name)
	}

	// a middle of 1,100 × 1,100 steps (more than maxAligned cells) with nothing in common
	var la, lb []int
	for i := 0; i < 1100; i++ {
		la, lb = append(la, 10+i*10), append(lb, 11+i*10)
	}
	rows := alignSteps(steps(la...), steps(lb...))
	assert.Len(t, rows, 1100)
	assert.Equal(t, [2]int{1099, 1099}, rows[1099], "by position")
}

// TestDiffTestOutcome: two steps of one line that differ only in their test's outcome say so.
func TestDiffTestOutcome(t *testing.T) {
	yes, no := true, false
	tr := fixture()
	a := &FLT{Frame: 2, Steps: []Step{{Line: 4, Stmt: "if x > 3:", Test: &yes}, {Line: 5, Stmt: "return y * 2"}}}
	b := &FLT{Frame: 11, Steps: []Step{{Line: 4, Stmt: "if x > 3:", Test: &no}, {Line: 5, Stmt: "return y * 2"}}}
	assert.Contains(t, tr.Diff(a, b).Text(TextOptions{}), `Steps: A 2, B 2, aligned by the lines they ran; 1 differ.

  step 1  line 4  if x > 3:
    A: → True
    B: → False  ≠
  ┆ step 2 same in A and B (line 5)
`)
}
