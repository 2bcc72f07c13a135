package adi

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"sort"
)

// Loop folding works on τ as a tree: a sequence of nodes, each a step or a loop; a loop holds its
// iterations (taken from the steps' LoopPos), each a sequence of nodes again. Every iteration has
// a signature: the lines it executed, which variables each step changed and how (new, modified,
// deleted), the functions it called and its events; a nested loop contributes its header and the
// set of its iterations' signatures (not their number), so outer iterations whose inner loops ran
// a different number of times along the same paths still look alike. It also has a path: the
// lines it executed with the outcomes of their tests (True/False on if, elif, while) and the
// exceptions raised in them, a nested loop contributing its header and the set of its
// iterations' paths. A fold never hides an iteration whose path is not that of an iteration shown
// beside the fold (see alike).

// tnode is a step (loop == nil) or a loop of τ.
type tnode struct {
	step int // index in τ
	loop *tloop
}

// tloop is one run of a loop: consecutive iterations of the loop with header line header.
type tloop struct {
	header int
	iters  []titer
}

// titer is one iteration: steps τ[from:to], as nodes.
type titer struct {
	n        int // iteration number (the final, exiting check of a loop is n+1)
	from, to int
	nodes    []tnode
	sig      uint64
	path     uint64
}

// segment builds the nodes of steps[from:to], whose enclosing loops above depth are shared.
func segment(steps []StepView, from, to, depth int) []tnode {
	var out []tnode
	for i := from; i < to; {
		if len(steps[i].Loop) <= depth {
			out = append(out, tnode{step: i})
			i++
			continue
		}
		l := &tloop{header: steps[i].Loop[depth].Header}
		for i < to && len(steps[i].Loop) > depth && steps[i].Loop[depth].Header == l.header {
			n := steps[i].Loop[depth].Iteration
			last := len(l.iters) - 1
			if last >= 0 && n < l.iters[last].n {
				break // the loop started again: a new run
			}
			if last < 0 || n != l.iters[last].n {
				l.iters = append(l.iters, titer{n: n, from: i})
				last++
			}
			i++
			l.iters[last].to = i
		}
		for k := range l.iters {
			it := &l.iters[k]
			it.nodes = segment(steps, it.from, it.to, depth+1)
		}
		out = append(out, tnode{step: -1, loop: l})
	}
	return out
}

// nodesSig computes the signature and the path of a node sequence, storing those of the
// iterations of the loops in it.
func nodesSig(steps []StepView, nodes []tnode) (sig, path uint64) {
	h, p := fnv.New64a(), fnv.New64a()
	for _, n := range nodes {
		if n.loop == nil {
			writeStepSig(h, steps[n.step])
			writeStepPath(p, steps[n.step])
		} else {
			s, q := loopSig(steps, n.loop)
			writeU64(h, s)
			writeU64(p, q)
		}
	}
	return h.Sum64(), p.Sum64()
}

func loopSig(steps []StepView, l *tloop) (sig, path uint64) {
	sigs := make([]uint64, len(l.iters))
	paths := make([]uint64, len(l.iters))
	for k := range l.iters {
		it := &l.iters[k]
		it.sig, it.path = nodesSig(steps, it.nodes)
		sigs[k], paths[k] = it.sig, it.path
	}
	return setSig(l.header, sigs), setSig(l.header, paths)
}

// setSig hashes a loop's header and the set of its iterations' signatures (or paths).
func setSig(header int, sigs []uint64) uint64 {
	sort.Slice(sigs, func(i, j int) bool { return sigs[i] < sigs[j] })
	h := fnv.New64a()
	writeU64(h, uint64(header))
	for k, s := range sigs {
		if k == 0 || s != sigs[k-1] {
			writeU64(h, s)
		}
	}
	return h.Sum64()
}

// writeStepPath writes what a step contributes to a path: its line, its test's outcome and the
// exception raised in it.
func writeStepPath(h hash.Hash64, s StepView) {
	writeU64(h, uint64(s.Line))
	if s.Test != nil {
		h.Write([]byte(testOutcome(*s.Test)))
	}
	if s.Raise != nil {
		h.Write([]byte("raise\x00" + s.Raise.Type + "\x00"))
	}
	h.Write([]byte{0xff})
}

func writeStepSig(h hash.Hash64, s StepView) {
	writeU64(h, uint64(s.Line))
	for _, c := range s.Changes {
		h.Write([]byte(c.Name + "\x00" + string(c.Kind) + "\x00"))
	}
	for _, c := range s.Calls {
		h.Write([]byte("call\x00" + c.funcName() + "\x00"))
	}
	if s.Resume {
		h.Write([]byte("resume\x00"))
	}
	if s.Yield != nil {
		h.Write([]byte("yield\x00"))
	}
	if s.Raise != nil {
		h.Write([]byte("raise\x00" + s.Raise.Type + "\x00"))
	}
	if s.Test != nil {
		h.Write([]byte(testOutcome(*s.Test)))
	}
	h.Write([]byte{0xff})
}

func writeU64(h hash.Hash64, v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	h.Write(b[:])
}

// shownIterations says which iterations of l are shown in full at fold level fold:
//   - always the first and the last (and the one before the last when the last is only the
//     loop's exiting check, so the last real iteration's values show);
//   - level 0: also every iteration whose signature differs from a neighbour's;
//   - level 1: also the first iteration with each distinct signature;
//   - level 2: nothing more.
func shownIterations(steps []StepView, l *tloop, fold int) []bool {
	n := len(l.iters)
	shown := make([]bool, n)
	shown[0], shown[n-1] = true, true
	if n >= 2 && l.isExitCheck(steps, n-1) {
		shown[n-2] = true
	}
	seen := map[uint64]bool{}
	for k, it := range l.iters {
		switch fold {
		case 0:
			if (k > 0 && it.sig != l.iters[k-1].sig) || (k < n-1 && it.sig != l.iters[k+1].sig) {
				shown[k] = true
			}
		case 1:
			if !seen[it.sig] {
				shown[k] = true
			}
			seen[it.sig] = true
		}
	}
	return shown
}

// alike shows more iterations of l (shown says which are shown) until every run of folded ones
// is like the shown iterations beside it: all its iterations take the path of the shown iteration
// just before the run or of the one just after it, or the run alternates between the paths of
// the two shown iterations before it (a test true on every other iteration). So an iteration
// where the loop takes another path than those around it (a branch taken once) is always shown,
// and where a loop goes from one path to another is shown or is the edge of a fold whose line
// says which path it took. The first iteration must be shown.
func alike(l *tloop, shown []bool) {
	n := len(l.iters)
	path := func(k int) uint64 { return l.iters[k].path }
	a := 0 // the first iteration of the current run of folded ones
	for i := 1; i < n; i++ {
		if shown[i] {
			continue
		}
		if shown[i-1] {
			a = i
			b := i
			for b < n && !shown[b] {
				b++
			}
			if b < n && allPath(l, a, b, path(b)) {
				i = b // like the shown iteration after it
				continue
			}
		}
		same := allPath(l, a, i+1, path(a-1))
		alternating := a >= 2 && shown[a-2] && path(a-2) != path(a-1)
		for k := a; alternating && k <= i; k++ {
			alternating = path(k) == path(k-2)
		}
		if !same && !alternating {
			shown[i] = true
		}
	}
}

// allPath reports whether iterations k..j-1 of l all took path p.
func allPath(l *tloop, k, j int, p uint64) bool {
	for _, it := range l.iters[k:j] {
		if it.path != p {
			return false
		}
	}
	return true
}

// foldsLike says, for a run of iterations k..j-1 of l that alike left folded, whose path they
// took: "same path as iteration 4", "alternating the paths of iterations 3 and 4".
func foldsLike(l *tloop, k, j int) string {
	for _, at := range []int{k - 1, j, k - 2} {
		if at >= 0 && at < len(l.iters) && allPath(l, k, j, l.iters[at].path) {
			return fmt.Sprintf("same path as iteration %d", l.iters[at].n)
		}
	}
	if k < 2 {
		return "different paths"
	}
	return fmt.Sprintf("alternating the paths of iterations %d and %d", l.iters[k-2].n, l.iters[k-1].n)
}

// isExitCheck reports whether iteration k only ran the loop's header (its final, exiting check).
func (l *tloop) isExitCheck(steps []StepView, k int) bool {
	for _, n := range l.iters[k].nodes {
		if n.loop != nil || steps[n.step].Line != l.header {
			return false
		}
	}
	return len(l.iters[k].nodes) > 0
}
