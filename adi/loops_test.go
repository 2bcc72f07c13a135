package adi

import (
	"strconv"
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
