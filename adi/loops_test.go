package adi

import (
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/internal/faces"
)

// sumLoop returns a recording of total(n) called from the module, and its FLT:
//
//	1 def total(n):
//	2     s = 0
//	3     for i in range(n):
//	4         s += i
//	5     return s
//	6
//	7 total(n)
func sumLoop(n int) (*Trace, *FLT) {
	s := 0
	for i := range n {
		s += i
	}
	tr := newTrace("/proj",
		ret("t:<module>", 1, -1, 0, "/proj/t.py", 1, "None"),
		ret("t:total", 1, 0, 7, "/proj/t.py", 1, strconv.Itoa(s), Arg{"n", strconv.Itoa(n)}),
	)
	flt := &FLT{Frame: 1}
	flt.Steps = append(flt.Steps, Step{Line: 2, Stmt: "s = 0", Changes: []Change{{Name: "s", New: "0", Kind: New}}})
	s = 0
	for i := range n {
		st := Step{Line: 3, Stmt: "for i in range(n):", Loop: []LoopPos{{Header: 3, Iteration: i + 1}},
			Changes: []Change{{Name: "i", New: "0", Kind: New}}}
		if i > 0 {
			st.Changes = []Change{{Name: "i", Old: strconv.Itoa(i - 1), New: strconv.Itoa(i), Kind: Modified}}
		}
		body := Step{Line: 4, Stmt: "s += i", Loop: []LoopPos{{Header: 3, Iteration: i + 1}}}
		if i > 0 {
			body.Changes = []Change{{Name: "s", Old: strconv.Itoa(s), New: strconv.Itoa(s + i), Kind: Modified}}
		}
		s += i
		flt.Steps = append(flt.Steps, st, body)
	}
	flt.Steps = append(flt.Steps,
		Step{Line: 3, Stmt: "for i in range(n):", Loop: []LoopPos{{Header: 3, Iteration: n + 1}}},
		Step{Line: 5, Stmt: "return s"})
	return tr, flt
}

// gridLoop returns a recording of grid() and its FLT, a loop nested in a loop:
//
//	1 def grid():
//	2     t = 0
//	3     for i in range(3):
//	4         for j in range(100):
//	5             t += j
//	6     return t
func gridLoop() (*Trace, *FLT) {
	tr := newTrace("/proj",
		ret("g:<module>", 1, -1, 0, "/proj/g.py", 1, "None"),
		ret("g:grid", 1, 0, 8, "/proj/g.py", 1, "14850"),
	)
	flt := &FLT{Frame: 1, Steps: []Step{{Line: 2, Stmt: "t = 0", Changes: []Change{{Name: "t", New: "0", Kind: New}}}}}
	t, j := 0, -1
	for i := range 3 {
		outer := LoopPos{Header: 3, Iteration: i + 1}
		ch := []Change{{Name: "i", New: "0", Kind: New}}
		if i > 0 {
			ch = []Change{{Name: "i", Old: strconv.Itoa(i - 1), New: strconv.Itoa(i), Kind: Modified}}
		}
		flt.Steps = append(flt.Steps, Step{Line: 3, Stmt: "for i in range(3):", Changes: ch, Loop: []LoopPos{outer}})
		for k := range 100 {
			inner := []LoopPos{outer, {Header: 4, Iteration: k + 1}}
			ch := []Change{{Name: "j", Old: strconv.Itoa(j), New: strconv.Itoa(k), Kind: Modified}}
			if j < 0 {
				ch = []Change{{Name: "j", New: "0", Kind: New}}
			}
			j = k
			body := Step{Line: 5, Stmt: "t += j", Loop: inner}
			if k > 0 {
				body.Changes = []Change{{Name: "t", Old: strconv.Itoa(t), New: strconv.Itoa(t + k), Kind: Modified}}
			}
			t += k
			flt.Steps = append(flt.Steps, Step{Line: 4, Stmt: "for j in range(100):", Changes: ch, Loop: inner}, body)
		}
		flt.Steps = append(flt.Steps, Step{Line: 4, Stmt: "for j in range(100):", Loop: []LoopPos{outer, {Header: 4, Iteration: 101}}})
	}
	flt.Steps = append(flt.Steps,
		Step{Line: 3, Stmt: "for i in range(3):", Loop: []LoopPos{{Header: 3, Iteration: 4}}},
		Step{Line: 6, Stmt: "return t"})
	return tr, flt
}

// searchLoop returns a recording of search(n) and its FLT, a loop that takes another path at one
// iteration and calls a function on every other one:
//
//	1 def search(n):
//	2     found = None
//	3     for i in range(n):
//	4         if i % 2:
//	5             check(i)
//	6         if i == hit:
//	7             found = i
//	8     return found
func searchLoop(n, hit int) (*Trace, *FLT) {
	frames := []Frame{
		ret("s:<module>", 1, -1, 0, "/proj/s.py", 1, "None"),
		ret("s:search", 1, 0, 20, "/proj/s.py", 1, strconv.Itoa(hit), Arg{"n", strconv.Itoa(n)}),
	}
	flt := &FLT{Frame: 1, Steps: []Step{{Line: 2, Stmt: "found = None", Changes: []Change{{Name: "found", New: "None", Kind: New}}}}}
	for i := range n {
		loop := []LoopPos{{Header: 3, Iteration: i + 1}}
		ch := []Change{{Name: "i", New: "0", Kind: New}}
		if i > 0 {
			ch = []Change{{Name: "i", Old: strconv.Itoa(i - 1), New: strconv.Itoa(i), Kind: Modified}}
		}
		flt.Steps = append(flt.Steps, Step{Line: 3, Stmt: "for i in range(n):", Changes: ch, Loop: loop},
			Step{Line: 4, Stmt: "if i % 2:", Loop: loop})
		if i%2 == 1 {
			frames = append(frames, ret("s:check", i/2+1, 1, 5, "/proj/s.py", 10, "True", Arg{"v", strconv.Itoa(i)}))
			flt.Steps = append(flt.Steps, Step{Line: 5, Stmt: "check(i)", Callees: []int{len(frames) - 1}, Loop: loop})
		}
		flt.Steps = append(flt.Steps, Step{Line: 6, Stmt: "if i == hit:", Loop: loop})
		if i == hit {
			flt.Steps = append(flt.Steps, Step{Line: 7, Stmt: "found = i", Loop: loop,
				Changes: []Change{{Name: "found", Old: "None", New: strconv.Itoa(i), Kind: Modified}}})
		}
	}
	flt.Steps = append(flt.Steps,
		Step{Line: 3, Stmt: "for i in range(n):", Loop: []LoopPos{{Header: 3, Iteration: n + 1}}},
		Step{Line: 8, Stmt: "return found"})
	return newTrace("/proj", frames...), flt
}

// dedupLoop returns a recording of dedup(xs) and its FLT, a loop whose test is true at the
// iterations listed in dups (1-based), whose body then runs line 5:
//
//	1 def dedup(xs):
//	2     seen = set()
//	3     for x in xs:
//	4         if x in seen:
//	5             print("dup", x)
//	6         seen.add(x)
//	7     return seen
func dedupLoop(n int, dups ...int) (*Trace, *FLT) {
	tr := newTrace("/proj",
		ret("d:<module>", 1, -1, 0, "/proj/d.py", 1, "None"),
		ret("d:dedup", 1, 0, 9, "/proj/d.py", 1, "{…}", Arg{"xs", "[…]"}),
	)
	flt := &FLT{Frame: 1, Steps: []Step{{Line: 2, Stmt: "seen = set()", Changes: []Change{{Name: "seen", New: "set()", Kind: New}}}}}
	for i := 1; i <= n; i++ {
		loop := []LoopPos{{Header: 3, Iteration: i}}
		ch := []Change{{Name: "x", New: "1", Kind: New}}
		if i > 1 {
			ch = []Change{{Name: "x", Old: strconv.Itoa(i - 1), New: strconv.Itoa(i), Kind: Modified}}
		}
		dup := slices.Contains(dups, i)
		flt.Steps = append(flt.Steps, Step{Line: 3, Stmt: "for x in xs:", Changes: ch, Loop: loop},
			Step{Line: 4, Stmt: "if x in seen:", Loop: loop, Test: &dup})
		if dup {
			flt.Steps = append(flt.Steps, Step{Line: 5, Stmt: `print("dup", x)`, Loop: loop})
		}
		flt.Steps = append(flt.Steps, Step{Line: 6, Stmt: "seen.add(x)", Loop: loop,
			Changes: []Change{{Name: "seen", Old: "{…}", New: "{…}", Kind: Modified}}})
	}
	flt.Steps = append(flt.Steps, Step{Line: 3, Stmt: "for x in xs:", Loop: []LoopPos{{Header: 3, Iteration: n + 1}}},
		Step{Line: 7, Stmt: "return seen"})
	return tr, flt
}

// TestFoldShowsTheIterationThatDiffers: however tight the budget, a fold never hides an iteration
// whose path (its lines, its tests' outcomes) is not that of a shown iteration beside the fold:
// the one iteration whose test was True is shown, with the fold lines saying whose path the
// folded ones took; an alternating run whose paths are those of its two neighbours stays folded.
func TestFoldShowsTheIterationThatDiffers(t *testing.T) {
	tr, f := dedupLoop(12, 6)
	assert.Equal(t, `Frame: d:dedup#1   (caller d:<module>#1, line 9)
Args: xs = […]

   2 | seen = set()
     |   + seen = set()
   3 | for x in xs:   [iteration 1]
     |   + x = 1
   4 | if x in seen:  → False
   6 | seen.add(x)
     |   ~ seen = {…} (was {…})
     ┆ … iterations 2–5 of line 3 folded (4 iterations, same path as iteration 1; changing: x, seen)
   3 | for x in xs:   [iteration 6]
     |   ~ x = 6 (was 5)
   4 | if x in seen:  → True
   5 | print("dup", x)
   6 | seen.add(x)
     |   ~ seen = {…} (was {…})
     ┆ … iterations 7–11 of line 3 folded (5 iterations, same path as iteration 12; changing: x, seen)
   3 | for x in xs:   [iteration 12]
     |   ~ x = 12 (was 11)
   4 | if x in seen:  → False
   6 | seen.add(x)
     |   ~ seen = {…} (was {…})
   3 | for x in xs:   [iteration 13]
   7 | return seen

Return: {…}
(shrunk to fit the 260-token budget: loop iterations with repeated paths folded; loop iterations folded to the first and last)
`, tr.FLTView(f).Text(TextOptions{Budget: 260}))

	// every other iteration a duplicate, then a run of new values: the alternation is folded once
	// its two paths are shown, and where it ends is shown
	tr, f = dedupLoop(14, 3, 5, 7, 9)
	out := tr.FLTView(f).Text(TextOptions{Budget: 330})
	assert.Contains(t, out, "     ┆ … iterations 4–10 of line 3 folded (7 iterations, alternating the paths of iterations 2 and 3; changing: x, seen)\n"+
		"   3 | for x in xs:   [iteration 11]\n")
	assert.Contains(t, out, "     ┆ … iterations 12–13 of line 3 folded (2 iterations, same path as iteration 11; changing: x, seen)\n")
}

// TestAlike: which iterations a fold must show, by path (letters), from the first and last shown.
func TestAlike(t *testing.T) {
	for _, tc := range []struct{ paths, shown, want string }{
		{"AAAAAA", "x....x", "x....x"},
		{"AAABAA", "x....x", "x..x.x"},
		{"ABABAB", "x....x", "xx...x"},
		{"ABABABCBABAB", "x..........x", "xx....xxx..x"},
		{"AAAABBBB", "x......x", "x...x..x"},
		{"ABCDE", "x...x", "xxxxx"},
		{"AABBCC", "x....x", "x.x.xx"},
		{"AAAAAA", "x.x..x", "x.x..x"},
	} {
		l := &tloop{}
		shown := make([]bool, len(tc.paths))
		for k, p := range tc.paths {
			l.iters = append(l.iters, titer{n: k + 1, path: uint64(p)})
			shown[k] = tc.shown[k] == 'x'
		}
		alike(l, shown)
		got := ""
		for _, s := range shown {
			got += map[bool]string{true: "x", false: "."}[s]
		}
		assert.Equal(t, tc.want, got, tc.paths)
	}
}

// TestLoopIndexNamesItsLoop: LoopLine:LoopIndex (the CLI's --loop-index 3:2) shows only that
// iteration of the loop whose header is line 3, and adi chooses for the loop inside it; a line
// that is no loop's header says so, and adi chooses for every loop.
func TestLoopIndexNamesItsLoop(t *testing.T) {
	tr, f := gridLoop()
	assert.Equal(t, `Frame: g:grid#1   (caller g:<module>#1, line 8)
Args: (none)

   2 | t = 0
     |   + t = 0
     ┆ … iteration 1 of line 3 folded (1 iteration, same path; changing: i, j, t)
   3 | for i in range(3):   [iteration 2]
     |   ~ i = 1 (was 0)
   4 | for j in range(100):   [iteration 1]
     |   ~ j = 0 (was 99)
   5 | t += j
   4 | for j in range(100):   [iteration 2]
     |   ~ j = 1 (was 0)
   5 | t += j
     |   ~ t = 4951 (was 4950)
     ┆ … iterations 3–99 of line 4 folded (97 iterations, same path as iteration 2; changing: j, t)
   4 | for j in range(100):   [iteration 100]
     |   ~ j = 99 (was 98)
   5 | t += j
     |   ~ t = 9900 (was 9801)
   4 | for j in range(100):   [iteration 101]
     ┆ … iterations 3–4 of line 3 folded (2 iterations, 2 different paths; changing: i, j, t)
   6 | return t

Return: 14850
`, faces.CLI.Render(tr.FLTView(f).Text(TextOptions{LoopIndex: 2, LoopLine: 3})))

	tr, f = dedupLoop(2)
	assert.Equal(t, `Frame: d:dedup#1   (caller d:<module>#1, line 9)
Args: xs = […]
Note: --loop-index 9:2 names no loop of this invocation; its loops' headers are on line(s) 3 (adi chose the iterations shown).

   2 | seen = set()
     |   + seen = set()
   3 | for x in xs:
     |   + x = 1
   4 | if x in seen:  → False
   6 | seen.add(x)
     |   ~ seen = {…} (was {…})
   3 | for x in xs:
     |   ~ x = 2 (was 1)
   4 | if x in seen:  → False
   6 | seen.add(x)
     |   ~ seen = {…} (was {…})
   3 | for x in xs:
   7 | return seen

Return: {…}
`, faces.CLI.Render(tr.FLTView(f).Text(TextOptions{LoopIndex: 2, LoopLine: 9})))

	line, k, err := ParseLoopIndex("122:2")
	assert.NoError(t, err)
	assert.Equal(t, []int{122, 2}, []int{line, k})
	line, k, err = ParseLoopIndex("3")
	assert.NoError(t, err)
	assert.Equal(t, []int{0, 3}, []int{line, k})
	_, _, err = ParseLoopIndex("122:0")
	assert.EqualError(t, err, `the loop index takes LINE:K, iteration K of the loop whose header is line LINE (e.g. 122:2), or K, iteration K of every loop; not "122:0"`)
}

// TestMarkedVisitIsShown: the step a line condition held at (break --if-eval-lineno) is marked,
// and the iteration holding it is shown though it is like its neighbours.
func TestMarkedVisitIsShown(t *testing.T) {
	tr, f := dedupLoop(12)
	v := tr.FLTView(f)
	require.True(t, v.MarkVisit(6, 9))
	require.False(t, tr.FLTView(f).MarkVisit(6, 13))
	assert.Equal(t, &StepMark{Step: 27, Line: 6, Visit: 9}, v.Mark) // 1 + 3 steps an iteration
	out := faces.CLI.Render(v.Text(TextOptions{}))
	assert.Contains(t, out, `     ┆ … iterations 3–8 of line 3 folded (6 iterations, same path as iteration 2; changing: x, seen)
   3 | for x in xs:   [iteration 9]
     |   ~ x = 9 (was 8)
   4 | if x in seen:  → False
   6 | seen.add(x)   ◀ the condition held here (visit 9 of line 6; adi exec -l 6 -k 9 runs a statement here)
     |   ~ seen = {…} (was {…})
     ┆ … iterations 10–11 of line 3 folded (2 iterations, same path as iteration 9; changing: x, seen)
`)
}
