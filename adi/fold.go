package adi

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"sort"
)

// Loop folding works on τ as a tree: a sequence of nodes, each a step or a loop; a loop holds its
// iterations (taken from the steps' LoopPos), each a sequence of nodes again. Every iteration has
// a signature: the lines it executed, which variables each step changed and how (new, modified,
// deleted), the functions it called and its events; a nested loop contributes its header and the
// set of its iterations' signatures (not their number), so outer iterations whose inner loops ran
// a different number of times along the same paths still look alike.

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

// nodesSig computes the signature of a node sequence, storing the signatures of the iterations
// of the loops in it.
func nodesSig(steps []StepView, nodes []tnode) uint64 {
	h := fnv.New64a()
	for _, n := range nodes {
		if n.loop == nil {
			writeStepSig(h, steps[n.step])
		} else {
			writeU64(h, loopSig(steps, n.loop))
		}
	}
	return h.Sum64()
}

func loopSig(steps []StepView, l *tloop) uint64 {
	sigs := make([]uint64, len(l.iters))
	for k := range l.iters {
		it := &l.iters[k]
		it.sig = nodesSig(steps, it.nodes)
		sigs[k] = it.sig
	}
	sort.Slice(sigs, func(i, j int) bool { return sigs[i] < sigs[j] })
	h := fnv.New64a()
	writeU64(h, uint64(l.header))
	for k, s := range sigs {
		if k == 0 || s != sigs[k-1] {
			writeU64(h, s)
		}
	}
	return h.Sum64()
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

// isExitCheck reports whether iteration k only ran the loop's header (its final, exiting check).
func (l *tloop) isExitCheck(steps []StepView, k int) bool {
	for _, n := range l.iters[k].nodes {
		if n.loop != nil || steps[n.step].Line != l.header {
			return false
		}
	}
	return len(l.iters[k].nodes) > 0
}
