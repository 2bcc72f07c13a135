package adi

import (
	"fmt"
	"strings"
)

// Default limits of a call tree.
const (
	DefaultTreeDepth = 3  // levels of calls below the root
	DefaultTreeWidth = 10 // children shown per node
)

// TreeOptions limits a call tree; zero fields take the defaults.
type TreeOptions struct {
	Depth int `json:"depth,omitempty"` // levels of calls shown below the root
	Width int `json:"width,omitempty"` // children shown per node
}

// CallTree answers call-tree: the calls below one frame (Root), or the whole run (Roots: every
// entry frame of T, as RunTree builds it), as a tree.
type CallTree struct {
	Root *CallNode `json:"root,omitempty"`
	// Roots are the entry frames shown, when the whole run is shown; HiddenRoots groups those
	// left out by the width and HiddenRootCalls counts them with all their callees.
	Roots           []*CallNode `json:"roots,omitempty"`
	HiddenRoots     []CallGroup `json:"hidden_roots,omitempty"`
	HiddenRootCalls int         `json:"hidden_root_calls,omitempty"`
	// EntryFrames counts the entry frames of T when the whole run is shown.
	EntryFrames int `json:"entry_frames,omitempty"`
	// TestCounts is set for a test target (pytest, unittest): how its tests ended. Tests lists the
	// first Width of them, failed ones first; their frames' trees come first in Roots.
	TestCounts *TestCounts  `json:"test_counts,omitempty"`
	Tests      []TestResult `json:"tests,omitempty"`
	Depth      int          `json:"depth"`
	Width      int          `json:"width"`
	Recording  Coverage     `json:"recording"`
}

// CallNode is one invocation in a call tree, with the children shown and a count of those left
// out.
type CallNode struct {
	FID       string      `json:"fid"`
	Frame     int         `json:"frame"`
	Args      []Arg       `json:"args"`
	Status    Status      `json:"status"`
	Return    string      `json:"return,omitempty"`
	Exception *Exception  `json:"exception,omitempty"`
	Children  []*CallNode `json:"children,omitempty"`
	// Hidden groups the direct calls left out by function, HiddenBy says why ("width": more
	// children than the width; "depth": the node is at the depth limit), and HiddenCalls counts
	// the calls left out together with all their callees.
	Hidden      []CallGroup `json:"hidden,omitempty"`
	HiddenBy    string      `json:"hidden_by,omitempty"`
	HiddenCalls int         `json:"hidden_calls,omitempty"`
}

// CallGroup counts calls of one function.
type CallGroup struct {
	Func  string `json:"func"`
	Count int    `json:"count"`
}

// CallTree builds the tree of calls below T[root], depth- and width-limited.
func (t *Trace) CallTree(root int, o TreeOptions) (*CallTree, error) {
	if t.Frame(root) == nil {
		return nil, NotFoundf("no frame T[%d]; the recording has %d", root, t.Len())
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	b := treeBuilder{t: t, o: o, sizes: t.subtreeSizes()}
	return &CallTree{Root: b.node(root, 0), Depth: o.Depth, Width: o.Width, Recording: t.Coverage()}, nil
}

// RunTree builds the tree of the whole run: every entry frame of T (a frame no user code called)
// with the calls below it, the entry frames bounded by the width like any other level. When tests
// is set (the target runs pytest or unittest) it also lists the tests that ran, failed ones first,
// and puts the trees of the tests before the other entry frames (imports, fixtures, the test
// runner's hooks): those of the failed and unfinished tests first, then those that passed.
func (t *Trace) RunTree(o TreeOptions, tests bool) (*CallTree, error) {
	if t.Len() == 0 {
		return nil, NotFoundf("the recording has no frames; check the target's output")
	}
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	var first, rest []int32
	ct := &CallTree{Depth: o.Depth, Width: o.Width, Recording: t.Coverage()}
	if tests {
		list, counts := t.Tests()
		ct.TestCounts = &counts
		ct.Tests = list[:min(o.Width, len(list))]
		for _, r := range list {
			if r.Status == TestFailed || r.Status == TestUnfinished {
				first = append(first, int32(r.Frame))
			}
		}
		for _, r := range list {
			if r.Status != TestFailed && r.Status != TestUnfinished && t.Frames[r.Frame].Caller < 0 {
				first = append(first, int32(r.Frame))
			}
		}
	}
	early := map[int32]bool{}
	for _, j := range first {
		early[j] = true
	}
	for j := range t.Frames {
		if t.Frames[j].Caller < 0 && !early[int32(j)] {
			rest = append(rest, int32(j))
		}
	}
	entries := append(first, rest...)
	ct.EntryFrames = len(entries)
	b := treeBuilder{t: t, o: o, sizes: t.subtreeSizes()}
	shown := entries[:min(o.Width, len(entries))]
	for _, j := range shown {
		ct.Roots = append(ct.Roots, b.node(int(j), 0))
	}
	var top CallNode
	b.hide(&top, entries[len(shown):], "width")
	ct.HiddenRoots, ct.HiddenRootCalls = top.Hidden, top.HiddenCalls
	return ct, nil
}

// withDefaults checks the options and fills in the defaults.
func (o TreeOptions) withDefaults() (TreeOptions, error) {
	if o.Depth < 0 || o.Width < 0 {
		return o, BadInputf("call-tree depth and width must be positive (got %d and %d)", o.Depth, o.Width)
	}
	if o.Depth == 0 {
		o.Depth = DefaultTreeDepth
	}
	if o.Width == 0 {
		o.Width = DefaultTreeWidth
	}
	return o, nil
}

type treeBuilder struct {
	t     *Trace
	o     TreeOptions
	sizes []int
}

func (b *treeBuilder) node(j, level int) *CallNode {
	f := &b.t.Frames[j]
	n := &CallNode{FID: f.FID().String(), Frame: j, Args: f.Args, Status: f.Status, Return: f.Return, Exception: f.Exception}
	if n.Args == nil {
		n.Args = []Arg{}
	}
	kids := b.t.Callees(j)
	if level == b.o.Depth {
		b.hide(n, kids, "depth")
		return n
	}
	shown := kids[:min(b.o.Width, len(kids))]
	for _, c := range shown {
		n.Children = append(n.Children, b.node(int(c), level+1))
	}
	b.hide(n, kids[len(shown):], "width")
	return n
}

// hide records calls left out of n, grouped by function in the order they first appear.
func (b *treeBuilder) hide(n *CallNode, calls []int32, by string) {
	if len(calls) == 0 {
		return
	}
	n.HiddenBy = by
	pos := map[string]int{}
	for _, c := range calls {
		fn := b.t.Frames[c].FID().Func
		k, ok := pos[fn]
		if !ok {
			k = len(n.Hidden)
			pos[fn] = k
			n.Hidden = append(n.Hidden, CallGroup{Func: fn})
		}
		n.Hidden[k].Count++
		n.HiddenCalls += b.sizes[c]
	}
}

// subtreeSizes counts, for every frame, the frames of its subtree (itself and all its callees,
// transitively). Callers come before their callees in T.
func (t *Trace) subtreeSizes() []int {
	sizes := make([]int, len(t.Frames))
	for j := len(t.Frames) - 1; j >= 0; j-- {
		sizes[j]++
		if c := t.Frames[j].Caller; c >= 0 && int(c) < j {
			sizes[c] += sizes[j]
		}
	}
	return sizes
}

// Text renders an indented tree, one "fid(args) → outcome" line per node and one line per group
// of calls left out.
func (c *CallTree) Text(o TextOptions) string {
	return fitText(o, []shrink{shrinkValues}, func(d detail) doc {
		dc := doc{unit: "node", indent: ""}
		if c.TestCounts != nil {
			dc.head = testsText(d, *c.TestCounts, c.Tests)
		}
		roots := c.Roots
		switch {
		case c.Root != nil:
			roots = []*CallNode{c.Root}
			dc.head = append(dc.head, fmt.Sprintf("Call tree of %s (depth %d, width %d):", c.Root.FID, c.Depth, c.Width))
		case c.EntryFrames == 1 && c.TestCounts == nil:
			dc.head = append(dc.head, fmt.Sprintf("Call tree of %s (depth %d, width %d):", c.Roots[0].FID, c.Depth, c.Width))
		default:
			order := ""
			switch {
			case c.TestCounts == nil || len(c.Tests) == 0:
			case c.TestCounts.Failed+c.TestCounts.Unfinished > 0:
				order = ", failing tests first, then the other tests"
			default:
				order = ", tests first"
			}
			dc.head = append(dc.head, fmt.Sprintf("Call tree of the run: %s%s (depth %d, width %d):",
				plural(c.EntryFrames, "entry frame"), order, c.Depth, c.Width))
		}
		dc.head = append(dc.head, c.Recording.notes()...)
		for _, r := range roots {
			c.render(&dc, d, r, "")
		}
		if len(c.HiddenRoots) > 0 {
			line := "… " + groupsText(c.HiddenRoots, "more entry ")
			if count := c.EntryFrames - len(c.Roots); c.HiddenRootCalls > count {
				line += fmt.Sprintf(", %d with their callees", c.HiddenRootCalls)
			}
			dc.add(chunk{lines: []string{line}})
		}
		return dc
	})
}

func (c *CallTree) render(dc *doc, d detail, n *CallNode, indent string) {
	dc.total++
	dc.add(chunk{lines: []string{fmt.Sprintf("%s%s(%s) → %s", indent, n.FID, d.sigArgs(n.Args), d.outcome(n.Status, n.Return, n.Exception))},
		first: dc.total, last: dc.total})
	for _, k := range n.Children {
		c.render(dc, d, k, indent+"  ")
	}
	if len(n.Hidden) == 0 {
		return
	}
	count := 0
	for _, g := range n.Hidden {
		count += g.Count
	}
	line := indent + "  … " + groupsText(n.Hidden, "more ")
	if n.HiddenBy == "depth" {
		line = indent + "  … " + groupsText(n.Hidden, "") + " below the depth limit"
	}
	if n.HiddenCalls > count {
		line += fmt.Sprintf(", %d with their callees", n.HiddenCalls)
	}
	dc.add(chunk{lines: []string{line}})
}

// groupsText writes "240 more calls to fib" or "12 more calls (8 to fib, 4 to g)".
func groupsText(gs []CallGroup, more string) string {
	total := 0
	parts := make([]string, len(gs))
	for i, g := range gs {
		total += g.Count
		parts[i] = fmt.Sprintf("%d to %s", g.Count, ShortName(g.Func))
	}
	calls := more + "calls"
	if total == 1 {
		calls = more + "call"
	}
	if len(gs) == 1 {
		return fmt.Sprintf("%d %s to %s", total, calls, ShortName(gs[0].Func))
	}
	return fmt.Sprintf("%d %s (%s)", total, calls, strings.Join(parts, ", "))
}
