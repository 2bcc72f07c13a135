package adi

// StepsQuery selects the steps of τ an FLT answer carries, so that a program (the browser viewer)
// reads a long FLT a page at a time: a range of τ (Offset, Limit), or, with ByIteration, the steps
// shown when each loop shows the iteration Iterations names for its header line (a loop not named,
// or named with an iteration it does not have, shows its first), cut by Offset and Limit.
type StepsQuery struct {
	Offset      int
	Limit       int
	ByIteration bool
	Iterations  map[int]int // loop header line -> iteration wanted
}

// StepsPage says what part of τ an FLTView's Steps are (FLTView.Page) and what a program needs
// to show and page through the rest: the length of τ, the loops the steps shown lie in and how
// many times each line ran.
type StepsPage struct {
	// Total is the number of steps selected: len(τ) for a range, the steps shown for a choice
	// of iterations.
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	// Steps is len(τ), the steps of the whole FLT.
	Steps int `json:"steps"`
	// Index is each returned step's position in τ; Visit which execution of its line it is
	// (1 for the first).
	Index []int `json:"index"`
	Visit []int `json:"visit"`
	// Loops are the loops met in the steps shown for the iterations asked (the first ones for
	// a range), outermost first, each once.
	Loops []PageLoop `json:"loops"`
	// Hits counts the executions of each line in τ, by line number.
	Hits map[int]int `json:"hits"`
}

// PageLoop is one loop of StepsPage.Loops: its header line, the numbers of its iterations in the
// run shown (First to Last), the one shown (Selected) and, when the last one only re-checks the
// header and leaves, Exit (its number; 0 otherwise).
type PageLoop struct {
	Header   int `json:"header"`
	First    int `json:"first"`
	Last     int `json:"last"`
	Count    int `json:"count"` // iterations of the run shown
	Selected int `json:"selected"`
	Exit     int `json:"exit,omitempty"`
	From     int `json:"from"` // the run's steps are τ[from:to]
	To       int `json:"to"`
}

// MaxStepsLimit is the most steps one page holds.
const MaxStepsLimit = 20000

// Cut cuts v's steps to the ones q selects and describes them in v.Page. It is a no-op on a nil
// view.
func (v *FLTView) Cut(q StepsQuery) error {
	if v == nil {
		return nil
	}
	if q.Offset < 0 || q.Limit < 0 {
		return BadInputf("steps: offset and limit are 0 or more (got offset %d, limit %d)", q.Offset, q.Limit)
	}
	if q.Limit == 0 || q.Limit > MaxStepsLimit {
		q.Limit = min(max(q.Limit, 1000), MaxStepsLimit)
	}
	steps := v.Steps
	p := &StepsPage{Offset: q.Offset, Limit: q.Limit, Steps: len(steps), Hits: map[int]int{}, Index: []int{}, Visit: []int{}, Loops: []PageLoop{}}
	visit := make([]int32, len(steps))
	for i, s := range steps {
		p.Hits[s.Line]++
		visit[i] = int32(p.Hits[s.Line])
	}
	shown, loops := viewSteps(steps, segment(steps, 0, len(steps), 0), q.Iterations)
	p.Loops = loops
	var sel []int
	if q.ByIteration {
		sel = shown
		p.Total = len(shown)
	} else {
		p.Total = len(steps)
	}
	lo := min(q.Offset, p.Total)
	hi := min(lo+q.Limit, p.Total)
	out := make([]StepView, 0, hi-lo)
	for k := lo; k < hi; k++ {
		i := k
		if sel != nil {
			i = sel[k]
		}
		out = append(out, steps[i])
		p.Index = append(p.Index, i)
		p.Visit = append(p.Visit, int(visit[i]))
	}
	v.Steps = out
	v.Page = p
	return nil
}

// viewSteps chooses the steps shown for a choice of iterations, as the viewer's loops.js view
// does: every step outside loops, and inside each loop run the iteration chosen (else its first).
// It returns their indexes in τ and the loops met, each once (the first run met).
func viewSteps(steps []StepView, nodes []tnode, choice map[int]int) ([]int, []PageLoop) {
	var shown []int
	var loops []PageLoop
	met := map[int]bool{}
	var walk func([]tnode)
	walk = func(nodes []tnode) {
		for _, n := range nodes {
			if n.loop == nil {
				shown = append(shown, n.step)
				continue
			}
			l := n.loop
			it := &l.iters[0]
			if want, ok := choice[l.header]; ok {
				for k := range l.iters {
					if l.iters[k].n == want {
						it = &l.iters[k]
					}
				}
			}
			if !met[l.header] {
				met[l.header] = true
				last := &l.iters[len(l.iters)-1]
				pl := PageLoop{Header: l.header, First: l.iters[0].n, Last: last.n, Count: len(l.iters), Selected: it.n,
					From: l.iters[0].from, To: last.to}
				if len(l.iters) > 1 && last.to-last.from == 1 && steps[last.from].Line == l.header {
					pl.Exit = last.n
				}
				loops = append(loops, pl)
			}
			walk(it.nodes)
		}
	}
	walk(nodes)
	return shown, loops
}
