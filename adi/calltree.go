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
	// ImportRoots groups, in a test run, the entry frames that are module bodies run on import
	// (the test files and conftest modules the test runner imports), left out of Roots;
	// ImportRootCalls counts them with all their callees.
	ImportRoots     []CallGroup `json:"import_roots,omitempty"`
	ImportRootCalls int         `json:"import_root_calls,omitempty"`
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
	FID       string     `json:"fid"`
	Frame     int        `json:"frame"`
	Args      []Arg      `json:"args"`
	Status    Status     `json:"status"`
	Return    string     `json:"return,omitempty"`
	Exception *Exception `json:"exception,omitempty"`
	// Kind, Yields and LastYield say, for a generator, what it yielded (FrameSummary's fields).
	Kind      string      `json:"kind,omitempty"`
	Yields    int         `json:"yields,omitempty"`
	LastYield string      `json:"last_yield,omitempty"`
	Children  []*CallNode `json:"children,omitempty"`
	// Hidden groups the direct calls left out by function, HiddenBy says why ("width": more
	// children than the width; "depth": the node is at the depth limit), and HiddenCalls counts
	// the calls left out together with all their callees.
	Hidden      []CallGroup `json:"hidden,omitempty"`
	HiddenBy    string      `json:"hidden_by,omitempty"`
	HiddenCalls int         `json:"hidden_calls,omitempty"`
	// Imports groups the direct calls that are module bodies run on import (an import statement
	// of this frame), left out of Children and Hidden whatever the depth and width: a real
	// program's imports make most of its calls, and none of its own work. ImportCalls counts them
	// with all their callees. An import that raised is a child like any other call; the tree of
	// an import is shown when it is the root asked for (call-tree MODULE:<module>#N).
	Imports     []CallGroup `json:"imports,omitempty"`
	ImportCalls int         `json:"import_calls,omitempty"`
	// Thread names the thread of an entry frame that did not run in the program's first thread
	// (Trace.ThreadName); the calls below it ran in the same one.
	Thread string `json:"thread,omitempty"`
}

// Frames lists the frames the tree shows (its nodes', by index in T), depth first.
func (c *CallTree) Frames() []int {
	var out []int
	var walk func(n *CallNode)
	walk = func(n *CallNode) {
		out = append(out, n.Frame)
		for _, k := range n.Children {
			walk(k)
		}
	}
	if c.Root != nil {
		walk(c.Root)
	}
	for _, n := range c.Roots {
		walk(n)
	}
	return out
}

// CallGroup counts calls of one function; First is the fid of the first of them.
type CallGroup struct {
	Func  string `json:"func"`
	Count int    `json:"count"`
	First string `json:"first"`
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
	b := treeBuilder{t: t, o: o, sizes: t.subtreeSizes(), imports: !t.isImport(root)}
	return &CallTree{Root: b.node(root, 0), Depth: o.Depth, Width: o.Width, Recording: t.Coverage()}, nil
}

// RunTree builds the tree of the whole run: every entry frame of T (a frame no user code called)
// with the calls below it, the entry frames bounded by the width like any other level. Imports are
// summed up, not shown (CallNode.Imports). When tests is set (the target runs pytest or unittest)
// it also lists the tests that ran, failed ones first, and puts the trees of the tests before the
// other entry frames (fixtures, the test runner's hooks): those of the failed and unfinished tests
// first, then those that passed; the test files and conftest modules the runner imported (module
// bodies that did not raise and ran no test) are summed up like imports (CallTree.ImportRoots).
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
	// the frames that called a test (a script that runs unittest.main()): not an import to sum up
	var runsTests map[int32]bool
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
		if len(list) > 0 {
			runsTests = map[int32]bool{}
			for _, r := range list {
				for c := t.Frames[r.Frame].Caller; c >= 0 && !runsTests[c]; c = t.Frames[c].Caller {
					runsTests[c] = true
				}
			}
		}
	}
	early := map[int32]bool{}
	for _, j := range first {
		early[j] = true
	}
	b := treeBuilder{t: t, o: o, sizes: t.subtreeSizes(), imports: true}
	var imported []int32
	for j := range t.Frames {
		switch {
		case t.Frames[j].Caller >= 0 || early[int32(j)]:
		case runsTests != nil && !runsTests[int32(j)] && t.isModule(j) && t.Frames[j].Status != Raised:
			imported = append(imported, int32(j))
		default:
			rest = append(rest, int32(j))
		}
	}
	ct.ImportRoots, ct.ImportRootCalls = b.group(imported)
	entries := append(first, rest...)
	ct.EntryFrames = len(entries) + len(imported)
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
	// imports is set when imports are summed up (CallNode.Imports): everywhere but in the tree
	// of an import asked for.
	imports bool
}

func (b *treeBuilder) node(j, level int) *CallNode {
	f := &b.t.Frames[j]
	n := &CallNode{FID: f.FID().String(), Frame: j, Args: f.Args, Status: f.Status, Return: f.Return, Exception: f.Exception,
		Kind: f.Code.Kind.String(), Yields: b.t.Yields(j), LastYield: b.t.LastYield(j)}
	if f.Caller < 0 {
		n.Thread = b.t.ThreadName(j)
	}
	if n.Args == nil {
		n.Args = []Arg{}
	}
	kids := b.t.Callees(j)
	if b.imports {
		var imported, other []int32
		for _, c := range kids {
			if b.t.isImport(int(c)) {
				imported = append(imported, c)
			} else {
				other = append(other, c)
			}
		}
		if len(imported) > 0 {
			n.Imports, n.ImportCalls = b.group(imported)
			kids = other
		}
	}
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
	n.Hidden, n.HiddenCalls = b.group(calls)
}

// group groups calls by function in the order they first appear, and counts them with all their
// callees.
func (b *treeBuilder) group(calls []int32) (groups []CallGroup, total int) {
	pos := map[string]int{}
	for _, c := range calls {
		fid := b.t.Frames[c].FID()
		k, ok := pos[fid.Func]
		if !ok {
			k = len(groups)
			pos[fid.Func] = k
			groups = append(groups, CallGroup{Func: fid.Func, First: fid.String()})
		}
		groups[k].Count++
		total += b.sizes[c]
	}
	return groups, total
}

// isModule reports whether T[j] runs a module's body.
func (t *Trace) isModule(j int) bool {
	return strings.HasSuffix(t.Frames[j].Func, ":<module>")
}

// isImport reports whether T[j] is a module body that user code ran by importing it, and that did
// not raise (an import that failed is where the program went wrong: it is shown).
func (t *Trace) isImport(j int) bool {
	f := &t.Frames[j]
	return f.Caller >= 0 && f.Status != Raised && t.isModule(j)
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
		if len(c.ImportRoots) > 0 {
			dc.add(chunk{lines: []string{"… " + importsText(c.ImportRoots, c.ImportRootCalls, "the test runner imported")}})
		}
		return dc
	})
}

func (c *CallTree) render(dc *doc, d detail, n *CallNode, indent string) {
	dc.total++
	line := fmt.Sprintf("%s%s(%s) → %s", indent, n.FID, d.sigArgs(n.Args), d.frameOutcome(n.Status, n.Return, n.Exception, Yielded{n.Kind, n.Yields, n.LastYield}))
	if n.Thread != "" {
		line += "  [thread " + n.Thread + "]"
	}
	dc.add(chunk{lines: []string{line}, first: dc.total, last: dc.total})
	if len(n.Imports) > 0 {
		dc.add(chunk{lines: []string{indent + "  … " + importsText(n.Imports, n.ImportCalls, "imported")}})
	}
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
	line = indent + "  … " + groupsText(n.Hidden, "more ")
	if n.HiddenBy == "depth" {
		line = indent + "  … " + groupsText(n.Hidden, "") + " below the depth limit"
	}
	if n.HiddenCalls > count {
		line += fmt.Sprintf(", %d with their callees", n.HiddenCalls)
	}
	dc.add(chunk{lines: []string{line}})
}

// importsText writes "imported networkx, json: 2013 calls (call-tree networkx:<module>#1 shows
// one)": the modules of groups (a module's bodies run more than once are counted: "m ×2"), at
// most importsNamed of them, and the calls they made.
func importsText(groups []CallGroup, calls int, verb string) string {
	names := make([]string, 0, min(len(groups), importsNamed)+1)
	for i, g := range groups {
		if i == importsNamed {
			names = append(names, fmt.Sprintf("and %d more", len(groups)-i))
			break
		}
		name := moduleOf(g.Func)
		if g.Count > 1 {
			name += fmt.Sprintf(" ×%d", g.Count)
		}
		names = append(names, name)
	}
	shows := "shows it"
	if calls > 1 {
		shows = "shows them"
	}
	if len(groups) > 1 {
		shows = "shows one"
	}
	return fmt.Sprintf("%s %s: %s (call-tree %s %s)", verb, strings.Join(names, ", "), plural(calls, "call"), groups[0].First, shows)
}

// importsNamed bounds the modules an imports line names.
const importsNamed = 8

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
