package adi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// pagedFLT is τ of `total = 0; for i in range(3): total += i; return total` (lines 2 to 5).
func pagedFLT() *FLTView {
	at := func(line int, loop ...LoopPos) StepView { return StepView{Line: line, Stmt: "s", Loop: loop} }
	it := func(n int) LoopPos { return LoopPos{Header: 3, Iteration: n} }
	return &FLTView{Steps: []StepView{at(2), at(3, it(1)), at(4, it(1)), at(3, it(2)), at(4, it(2)), at(3, it(3)), at(4, it(3)), at(3, it(4)), at(5)}}
}

func pageJSON(t *testing.T, v *FLTView) string {
	b, err := json.Marshal(struct {
		Lines []int      `json:"lines"`
		Page  *StepsPage `json:"page"`
	}{func() []int {
		var out []int
		for _, s := range v.Steps {
			out = append(out, s.Line)
		}
		return out
	}(), v.Page})
	require.NoError(t, err)
	return string(b)
}

func TestCutRange(t *testing.T) {
	v := pagedFLT()
	require.NoError(t, v.Cut(StepsQuery{Offset: 3, Limit: 2}))
	require.Equal(t, `{"lines":[3,4],"page":{"total":9,"offset":3,"limit":2,"steps":9,"index":[3,4],"visit":[2,2],`+
		`"loops":[{"header":3,"first":1,"last":4,"count":4,"selected":1,"exit":4,"from":1,"to":8}],"hits":{"2":1,"3":4,"4":3,"5":1}}}`, pageJSON(t, v))

	v = pagedFLT()
	require.NoError(t, v.Cut(StepsQuery{Offset: 20, Limit: 2}))
	require.Equal(t, `{"lines":null,"page":{"total":9,"offset":20,"limit":2,"steps":9,"index":[],"visit":[],`+
		`"loops":[{"header":3,"first":1,"last":4,"count":4,"selected":1,"exit":4,"from":1,"to":8}],"hits":{"2":1,"3":4,"4":3,"5":1}}}`, pageJSON(t, v))
}

func TestCutByIteration(t *testing.T) {
	v := pagedFLT()
	require.NoError(t, v.Cut(StepsQuery{ByIteration: true, Iterations: map[int]int{3: 2}}))
	require.Equal(t, `{"lines":[2,3,4,5],"page":{"total":4,"offset":0,"limit":1000,"steps":9,"index":[0,3,4,8],"visit":[1,2,2,1],`+
		`"loops":[{"header":3,"first":1,"last":4,"count":4,"selected":2,"exit":4,"from":1,"to":8}],"hits":{"2":1,"3":4,"4":3,"5":1}}}`, pageJSON(t, v))

	// An iteration the loop does not have shows its first; offset and limit cut what is shown.
	v = pagedFLT()
	require.NoError(t, v.Cut(StepsQuery{ByIteration: true, Iterations: map[int]int{3: 9}, Offset: 1, Limit: 2}))
	require.Equal(t, `[1,2]`, func() string { b, _ := json.Marshal(v.Page.Index); return string(b) }())

	require.EqualError(t, pagedFLT().Cut(StepsQuery{Offset: -1}), "steps: offset and limit are 0 or more (got offset -1, limit 0)")
	require.NoError(t, (*FLTView)(nil).Cut(StepsQuery{}))
}
