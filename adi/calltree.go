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

// CallTree answers call-tree: the calls below one frame, as a tree.
type CallTree struct {
	Root      *CallNode `json:"root"`
	Depth     int       `json:"depth"`
	Width     int       `json:"width"`
	Recording Coverage  `json:"recording"`
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
	if o.Depth < 0 || o.Width < 0 {
		return nil, BadInputf("call-tree depth and width must be positive (got %d and %d)", o.Depth, o.Width)
	}
	if o.Depth == 0 {
		o.Depth = DefaultTreeDepth
	}
	if o.Width == 0 {
		o.Width = DefaultTreeWidth
	}
	b := treeBuilder{t: t, o: o, sizes: t.subtreeSizes()}
	return &CallTree{Root: b.node(root, 0), Depth: o.Depth, Width: o.Width, Recording: t.Coverage()}, nil
}

type treeBuilder struct {
	t     *Trace
	o     TreeOptions
	sizes []int
}

func (b *treeBuilder) node(j, level int) *CallNode {
	f := &b.t.Frames[j]
	n := &CallNode{FID: f.FID.String(), Frame: j, Args: f.Args, Status: f.Status, Return: f.Return, Exception: f.Exception}
	if n.Args == nil {
		n.Args = []Arg{}
	}
	kids := f.Callees
	if level == b.o.Depth {
		b.hide(n, kids, "depth")
		return n
	}
	shown := kids[:min(b.o.Width, len(kids))]
	for _, c := range shown {
		n.Children = append(n.Children, b.node(c, level+1))
	}
	b.hide(n, kids[len(shown):], "width")
	return n
}

// hide records calls left out of n, grouped by function in the order they first appear.
func (b *treeBuilder) hide(n *CallNode, calls []int, by string) {
	if len(calls) == 0 {
		return
	}
	n.HiddenBy = by
	pos := map[string]int{}
	for _, c := range calls {
		fn := b.t.Frames[c].FID.Func
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
		if c := t.Frames[j].Caller; c >= 0 && c < j {
			sizes[c] += sizes[j]
		}
	}
	return sizes
}

// Text renders an indented tree, one "fid(args) → outcome" line per node and one line per group
// of calls left out.
func (c *CallTree) Text(o TextOptions) string {
	return fitText(o, []shrink{shrinkValues}, func(d detail) doc {
		dc := doc{unit: "node", indent: "", head: []string{fmt.Sprintf("Call tree of %s (depth %d, width %d):", c.Root.FID, c.Depth, c.Width)}}
		dc.head = append(dc.head, c.Recording.notes()...)
		c.render(&dc, d, c.Root, "")
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
