package adi

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adi-bridge/adi/internal/faces"
)

// Default limits of a call tree.
const (
	DefaultTreeDepth = 2  // levels of calls below the root
	DefaultTreeWidth = 10 // children shown per node
)

// TreeOptions limits a call tree; zero fields take the defaults.
type TreeOptions struct {
	Depth int `json:"depth,omitempty"` // levels of calls shown below the root
	Width int `json:"width,omitempty"` // children shown per node
	// wide is set when the width was asked for: every call up to it is shown, in order, rather
	// than the overview's choice (treeBuilder.overview)
	wide bool
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
	// ExitRoots groups, when the whole run of a script is shown, the entry frames that ran after
	// its main module had ended (atexit handlers, finalizers and weakref callbacks of the
	// interpreter's shutdown), left out of Roots; ExitRootCalls counts them with all their callees.
	ExitRoots     []CallGroup `json:"exit_roots,omitempty"`
	ExitRootCalls int         `json:"exit_root_calls,omitempty"`
	// Failure is where the root (the run's main module, when the whole run is shown) failed: the
	// frame the exception that ended it was raised in, at the end of the path of nodes marked
	// Failure, shown whatever the depth and width. Nil when it returned.
	Failure *TreeFailure `json:"failure,omitempty"`
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

// TreeFailure says where a call tree's root failed: the fid of the frame the exception was raised
// in (Exception, at Line of that frame), Depth levels below the root; or, for a run that ended
// while its main module ran (os._exit, a kill), the innermost frame then active (Exception nil).
type TreeFailure struct {
	FID       string     `json:"fid"`
	Exception *Exception `json:"exception,omitempty"`
	Depth     int        `json:"depth"`
}

// CallNode is one invocation in a call tree, with the children shown and a count of those left
// out.
type CallNode struct {
	FID string `json:"fid"`
	// ref is how the text names FID (Trace.Ref: its qualname when that is unambiguous).
	ref       string
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
	// Failure marks the nodes on the path from the root to where its failure was raised
	// (CallTree.Failure): each shows its callee on the path whatever the depth and width.
	Failure bool `json:"failure,omitempty"`
	// Teardown marks a call made after its caller's callee on the failure path ended (a finally
	// block, an __exit__, an except clause); ImportTime one made while a module was being
	// imported (ImportFP). A text that must shrink folds them first.
	Teardown   bool `json:"teardown,omitempty"`
	ImportTime bool `json:"import_time,omitempty"`
	// HiddenBefore groups the calls left out by the width just before this node, HiddenBeforeCalls
	// counts them with their callees: a node on a failure path shows its callee on the path, the
	// entry script's calls and the calls nearest the failure, and leaves out earlier ones.
	HiddenBefore      []CallGroup `json:"hidden_before,omitempty"`
	HiddenBeforeCalls int         `json:"hidden_before_calls,omitempty"`

	own   bool        // its function is defined in the run's entry script
	shown []Arg       // Args without those equal to their literal defaults, as the text shows them
	calls []CallGroup // its direct calls (imports aside), grouped, when it has children shown
	below int         // the calls below it, with all their callees
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
	b := t.newTreeBuilder(o, !t.isImport(root))
	ct := &CallTree{Depth: o.Depth, Width: o.Width, Recording: t.Coverage()}
	ct.Failure = b.addFailure(root)
	ct.Root = b.node(root, 0)
	return ct, nil
}

// newTreeBuilder starts a tree of T with options o; imports says whether imports are summed up.
func (t *Trace) newTreeBuilder(o TreeOptions, imports bool) *treeBuilder {
	b := &treeBuilder{t: t, o: o, sizes: t.subtreeSizes(), imports: imports, path: map[int32]int32{}}
	// the entry script: the module body T starts with, unless a runner imported it (pytest's
	// test files: their calls are made during an import)
	if t.Len() > 0 && t.Frames[0].Caller < 0 && t.isModule(0) && t.Frames[0].ArgsFP != ImportFP && !t.Live {
		b.script = t.Frames[0].File
	}
	return b
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
	b := t.newTreeBuilder(o, true)
	if tests {
		b.script = "" // a test runner's run: no script of the program's own
	}
	// the entry frames after the script's main module ended (its module body is T[0]): at exit
	end := -1
	if b.script != "" {
		end = b.sizes[0]
	}
	var imported, exits []int32
	for j := range t.Frames {
		switch {
		case t.Frames[j].Caller >= 0 || early[int32(j)]:
		case runsTests != nil && !runsTests[int32(j)] && t.isModule(j) && t.Frames[j].Status != Raised:
			imported = append(imported, int32(j))
		case end >= 0 && j >= end && t.Frames[j].Thread == 0:
			exits = append(exits, int32(j))
		default:
			rest = append(rest, int32(j))
		}
	}
	ct.ImportRoots, ct.ImportRootCalls = b.group(imported)
	ct.ExitRoots, ct.ExitRootCalls = b.group(exits)
	entries := append(first, rest...)
	ct.EntryFrames = len(entries) + len(imported) + len(exits)
	for k, j := range entries {
		if f := b.addFailure(int(j)); f != nil && k == 0 && !tests {
			ct.Failure = f
		}
	}
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
	o.wide = o.Width != 0
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
	// path maps each frame on a failure path to its callee on the path (-1 for the frame the
	// failure was raised in).
	path map[int32]int32
	// script is the file of the run's entry script ("" when it has none: a test runner's run):
	// the calls of its functions are the program's own (CallNode.own).
	script string
}

// addFailure finds where frame j failed (Trace.failurePath) and puts that path in the tree; nil
// when j did not fail.
func (b *treeBuilder) addFailure(j int) *TreeFailure {
	path := b.t.failurePath(j)
	if len(path) == 0 {
		return nil
	}
	for k, p := range path {
		b.path[p] = -1
		if k > 0 {
			b.path[path[k-1]] = p
		}
	}
	last := &b.t.Frames[path[len(path)-1]]
	out := &TreeFailure{FID: last.FID().String(), Depth: len(path) - 1}
	if last.Status == Raised {
		out.Exception = last.Exception
	}
	return out
}

func (b *treeBuilder) node(j, level int) *CallNode {
	f := &b.t.Frames[j]
	n := &CallNode{FID: f.FID().String(), ref: b.t.Ref(f.FID()), Frame: j, Args: f.Args, Status: f.Status, Return: f.Return, Exception: f.Exception,
		Kind: f.Code.Kind.String(), Yields: b.t.Yields(j), LastYield: b.t.LastYield(j),
		own: b.script != "" && f.File == b.script}
	if f.Caller < 0 {
		n.Thread = b.t.ThreadName(j)
	}
	if n.Args == nil {
		n.Args = []Arg{}
	}
	n.shown = withoutDefaults(n.Args, b.t.Defaults(f.Code))
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
	pathKid, onPath := b.path[int32(j)]
	n.Failure = onPath
	if level >= b.o.Depth && !onPath {
		b.hide(n, kids, "depth")
		return n
	}
	if len(kids) > 0 {
		n.calls, n.below = b.group(kids)
	}
	near := onPath && pathKid >= 0 && len(kids) > b.o.Width
	var shown []int32
	switch {
	case near:
		shown = b.nearFailure(kids, pathKid)
	case onPath || b.o.wide: // the path is told as it ran, as are the calls of a width asked for
		shown = kids[:min(b.o.Width, len(kids))]
	default:
		shown = b.overview(kids)
	}
	after := false // past the callee on the failure path
	at := 0        // the next of kids to show or leave out
	var left []int32
	for _, c := range shown {
		var skipped []int32
		for kids[at] != c {
			skipped = append(skipped, kids[at])
			at++
		}
		at++
		k := b.node(int(c), level+1)
		if near { // said where they were made
			k.HiddenBefore, k.HiddenBeforeCalls = b.group(skipped)
		} else { // what the overview left out is counted on one line after the calls shown
			left = append(left, skipped...)
		}
		k.Teardown = after
		k.ImportTime = b.imports && b.t.Frames[c].ArgsFP == ImportFP
		after = after || (onPath && c == pathKid)
		n.Children = append(n.Children, k)
	}
	b.hide(n, append(left, kids[at:]...), "width")
	return n
}

// perFunction is how many calls of one function a node shows among its children: a loop that
// calls the same functions over and over shows its first iterations, and the rest is counted.
const perFunction = 3

// overview chooses which of kids a node off the failure path shows when no width was asked for,
// in the order they were made: up to the width, at most perFunction calls of each function, and no call of a plumbing dunder
// method (__eq__, __hash__, __getattr__: comparisons and lookups a reader does not look for),
// which are counted with the calls left out.
func (b *treeBuilder) overview(kids []int32) []int32 {
	var out []int32
	per := map[string]int{}
	for _, c := range kids {
		if len(out) == b.o.Width {
			break
		}
		code := b.t.Frames[c].Code
		if per[code.Func] == perFunction || plumbing(code.Func) {
			continue
		}
		per[code.Func]++
		out = append(out, c)
	}
	return out
}

// plumbing reports whether fn is a dunder method of the object protocol that a call tree or an
// FLT counts rather than shows: comparisons, hashing, truth, length, iteration, attribute and
// text lookups. Constructors, calls, context managers, copies and arithmetic are shown.
func plumbing(fn string) bool {
	dot := strings.LastIndexAny(fn, ".:")
	name := fn[dot+1:]
	if !strings.HasPrefix(name, "__") || !strings.HasSuffix(name, "__") {
		return false
	}
	switch name {
	case "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__bool__", "__len__",
		"__iter__", "__next__", "__contains__", "__getattr__", "__getattribute__", "__repr__", "__str__",
		"__format__", "__instancecheck__", "__subclasscheck__", "__index__", "__int__", "__float__",
		"__dir__", "__sizeof__":
		return true
	}
	return false
}

// nearFailure chooses which of kids (more than the width) a node on a failure path shows: its
// callee on the path (pathKid), then the calls of the entry script's functions before it, then
// the other calls before it, nearest the failure first, then the calls after it; in the order
// they were made.
func (b *treeBuilder) nearFailure(kids []int32, pathKid int32) []int32 {
	k := slices.Index(kids, pathKid)
	chosen := map[int32]bool{pathKid: true}
	take := func(c int32) {
		if len(chosen) < b.o.Width {
			chosen[c] = true
		}
	}
	for i := k - 1; i >= 0; i-- {
		if b.script != "" && b.t.Frames[kids[i]].File == b.script {
			take(kids[i])
		}
	}
	for i := k - 1; i >= 0; i-- {
		take(kids[i])
	}
	for _, c := range kids[k+1:] {
		take(c)
	}
	var out []int32
	for _, c := range kids {
		if chosen[c] {
			out = append(out, c)
		}
	}
	return out
}

// failurePath returns the frames from j down to the one its failure came from: for a frame that
// raised (SystemExit with status 0 aside), at each step the callee the exception propagated from
// (the last callee that raised, called on the line the frame's exception passed, or raising the
// same exception), down to the frame it was raised in; for the first frame of a run that ended
// while it ran (os._exit, a kill; not a live recording's), the last callee still active at each
// step. Nil when j did not fail.
func (t *Trace) failurePath(j int) []int32 {
	f := &t.Frames[j]
	unfinished := f.Status == Unfinished && j == 0 && !t.Live
	if !unfinished && (f.Status != Raised || f.Exception == nil || f.Exception.Closes() || cleanExit(f.Exception)) {
		return nil
	}
	path := []int32{int32(j)}
	for cur := j; ; {
		next := t.failedCallee(cur)
		if next < 0 {
			return path
		}
		path = append(path, next)
		cur = int(next)
	}
}

// failedCallee is the callee of frame j its failure came from (see failurePath), -1 for none.
func (t *Trace) failedCallee(j int) int32 {
	f := &t.Frames[j]
	kids := t.Callees(j)
	if f.Status == Unfinished {
		for i := len(kids) - 1; i >= 0; i-- {
			if c := &t.Frames[kids[i]]; c.Status == Unfinished && c.Code.Kind != GeneratorCode && c.Code.Kind != AsyncGeneratorCode {
				return kids[i]
			}
		}
		return -1
	}
	for i := len(kids) - 1; i >= 0; i-- {
		c := &t.Frames[kids[i]]
		if c.Status != Raised || c.Exception == nil || c.Exception.Closes() {
			continue
		}
		if (f.Exception.Line > 0 && int(c.CallLine) == f.Exception.Line) ||
			(c.Exception.Type == f.Exception.Type && c.Exception.Message == f.Exception.Message) {
			return kids[i]
		}
	}
	return -1
}

// cleanExit reports whether e is the SystemExit of sys.exit() with status 0.
func cleanExit(e *Exception) bool {
	return e.Type == "SystemExit" && (e.Message == "" || e.Message == "0" || e.Message == "None")
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
// of calls left out. When the root failed, a line after the head says where, and the path to it
// is in the tree whatever the depth. Under the budget it shrinks, in order: the calls made after
// the failure and during imports are folded into a line per run of them, the calls below library
// functions off the failure path (not the entry script's functions) are folded into a line each,
// values are shortened, then the middle of the tree is cut, but for the failure path.
func (c *CallTree) Text(o TextOptions) string {
	setup := setupShrinks
	if c.Failure == nil {
		setup = setupShrinksNoFailure
	}
	return fitText(o, append(append([]shrink{shrinkLate}, setup...), shrinkValues), func(d detail) doc {
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
		if f := c.Failure; f != nil && f.Depth > 0 {
			dc.head = append(dc.head, c.failureText(d))
		}
		dc.head = append(dc.head, c.Recording.notes()...)
		r := treeRenderer{dc: &dc, d: d}
		if f := c.Failure; f != nil && f.Depth > 0 && f.Exception != nil {
			r.failure = f.Exception // the head says it in full
		}
		for _, n := range roots {
			r.node(n, "")
		}
		if len(c.HiddenRoots) > 0 {
			line := "… " + groupsText(c.HiddenRoots, "more entry ")
			if count := c.EntryFrames - len(c.Roots) - groupsCount(c.ImportRoots) - groupsCount(c.ExitRoots); c.HiddenRootCalls > count {
				line += fmt.Sprintf(", %d with their callees", c.HiddenRootCalls)
			}
			dc.add(chunk{lines: []string{line}})
		}
		if len(c.ExitRoots) > 0 {
			dc.add(chunk{lines: []string{"… " + exitsText(c.ExitRoots, c.ExitRootCalls)}})
		}
		if len(c.ImportRoots) > 0 {
			dc.add(chunk{lines: []string{"… " + importsText(c.ImportRoots, c.ImportRootCalls, "the test runner imported")}})
		}
		if r.folded {
			dc.foot = append(dc.foot, fmt.Sprintf("Folded: %s FUNC#N shows the calls folded below FUNC#N.", faces.Cmd("adi.call_tree")))
		}
		return dc
	})
}

// failureText says where the root failed: "Failed: E: msg, raised in m:f#2 at line 9, 4 levels
// deep; the calls leading there are shown whatever the depth." (that last part when the path
// goes past the depth limit).
func (c *CallTree) failureText(d detail) string {
	f := c.Failure
	where := fmt.Sprintf("in %s, %s deep", f.FID, plural(f.Depth, "level"))
	if f.Exception != nil && f.Exception.Line > 0 {
		where = fmt.Sprintf("in %s at line %d, %s deep", f.FID, f.Exception.Line, plural(f.Depth, "level"))
	}
	if f.Depth > c.Depth {
		where += "; the calls leading there are shown whatever the depth"
	}
	if f.Exception == nil {
		return fmt.Sprintf("Unfinished: the run ended %s.", where)
	}
	return fmt.Sprintf("Failed: %s, raised %s.", short(flat(f.Exception.String()), max(d.valueLimit, failureLimit)), where)
}

// failureLimit is what a failure's exception is cut to in a call tree's head, when values are.
const failureLimit = 300

// The shrinks of a call tree besides shortening values (see CallTree.Text).
var (
	shrinkLate = shrink{"calls after the failure and during imports folded", func(d detail) detail { d.foldLate = true; return d }}
)

// setupShrinks fold the calls below library functions off the failure path, the biggest subtrees
// first: those of 1000 calls or more, then 100, 20, 2.
var setupShrinks, setupShrinksNoFailure = setupFolds("callees of library calls off the failure path folded"),
	setupFolds("callees of library calls folded")

func setupFolds(note string) []shrink {
	var out []shrink
	for _, least := range []int{1000, 100, 20, 2} {
		out = append(out, shrink{note, func(d detail) detail { d.foldSetup = least; return d }})
	}
	return out
}

// treeValue bounds each value a call tree shows (arguments, returns), in characters.
const treeValue = 40

// treeRenderer renders the nodes of a call tree at one detail level.
type treeRenderer struct {
	dc     *doc
	d      detail
	folded bool // a line stands for calls folded (the answer says how to show them)
	// failure is the exception of the failure the head names: the nodes on its path that raised
	// it say only its type
	failure *Exception
}

func (r *treeRenderer) node(n *CallNode, indent string) {
	dc, d := r.dc, r.d
	dc.total++
	if d.valueLimit == 0 || d.valueLimit > treeValue {
		d.valueLimit = treeValue // an overview: the FLT shows the values in full
	}
	od := d
	if n.Status == Raised {
		od = r.d // an exception's message says what failed: it keeps the limit of the text as a whole
	}
	outcome := od.frameOutcome(n.Status, n.Return, n.Exception, Yielded{n.Kind, n.Yields, n.LastYield})
	if e := n.Exception; n.Failure && n.Status == Raised && e != nil && r.failure != nil &&
		e.Type == r.failure.Type && e.Message == r.failure.Message {
		outcome = "raised " + e.Type[strings.LastIndexByte(e.Type, '.')+1:] + " (the failure)"
	}
	line := fmt.Sprintf("%s%s(%s) → %s", indent, n.name(), d.treeArgs(n.shown), outcome)
	if n.Thread != "" {
		line += "  [thread " + n.Thread + "]"
	}
	if n.HiddenBy == "depth" && len(n.Hidden) > 0 {
		// what lies below the depth limit, counted on the node's own line (call-tree FID opens it)
		calls := max(n.HiddenCalls, groupsCount(n.Hidden))
		if calls == 1 {
			line += "  ⋯ 1 call below"
		} else {
			line += fmt.Sprintf("  ⋯ %d calls below", calls)
		}
	}
	dc.add(chunk{lines: []string{line}, first: dc.total, last: dc.total, keep: n.Failure})
	if len(n.Imports) > 0 {
		dc.add(chunk{lines: []string{indent + "  … " + importsText(n.Imports, n.ImportCalls, "imported")}})
	}
	if d.foldSetup > 0 && indent != "" && !n.Failure && !n.own && len(n.Children) > 0 && n.below >= d.foldSetup {
		r.folded = true
		count := groupsCount(n.calls)
		line := indent + "  … " + groupsTextMax(n.calls, "", 3) + " folded"
		if n.below > count {
			line += fmt.Sprintf(", %d with their callees", n.below)
		}
		dc.add(chunk{lines: []string{line}})
		return
	}
	for k := 0; k < len(n.Children); {
		kid := n.Children[k]
		if len(kid.HiddenBefore) > 0 {
			dc.add(chunk{lines: []string{indent + "  … " + hiddenText(kid.HiddenBefore, kid.HiddenBeforeCalls, "earlier ")}})
		}
		if what := r.late(kid); what != "" {
			j := k + 1
			for j < len(n.Children) && len(n.Children[j].HiddenBefore) == 0 && r.late(n.Children[j]) == what {
				j++
			}
			var groups []CallGroup
			total := 0
			for _, g := range n.Children[k:j] {
				groups = addGroup(groups, g.FID)
				total += 1 + g.below + g.ImportCalls
			}
			r.folded = true
			dc.add(chunk{lines: []string{indent + "  … " + what + ", folded: " + hiddenText(groups, total, "")}})
			k = j
			continue
		}
		r.node(kid, indent+"  ")
		k++
	}
	if len(n.Hidden) == 0 {
		return
	}
	if n.HiddenBy == "depth" {
		return // on the node's line
	}
	line = indent + "  … " + groupsTextMax(n.Hidden, "more ", 3)
	if n.HiddenCalls > groupsCount(n.Hidden) {
		line += fmt.Sprintf(", %d with their callees", n.HiddenCalls)
	}
	dc.add(chunk{lines: []string{line}})
}

// name is how the text names node n: its short reference, or its fid.
func (n *CallNode) name() string { return refOr(n.ref, n.FID) }

// late says why node n is folded at this detail level with the calls like it beside it ("after
// the failure", "during an import"), "" when it is not.
func (r *treeRenderer) late(n *CallNode) string {
	switch {
	case !r.d.foldLate || n.Failure:
		return ""
	case n.Teardown:
		return "after the failure"
	case n.ImportTime:
		return "during an import"
	}
	return ""
}

// hiddenText writes "240 more calls to fib, 300 with their callees": groupsText with the calls
// left out counted with their callees when that is more.
func hiddenText(gs []CallGroup, calls int, more string) string {
	line := groupsText(gs, more)
	if calls > groupsCount(gs) {
		line += fmt.Sprintf(", %d with their callees", calls)
	}
	return line
}

// exitsText writes "at exit: 14 calls to Signal._remove_receiver (call-tree
// m:Signal._remove_receiver#1 shows the first)", with how many calls they made if any.
func exitsText(gs []CallGroup, calls int) string {
	line := "at exit (after the main module ended): " + groupsTextMax(gs, "", 3)
	if calls > groupsCount(gs) {
		line += fmt.Sprintf(", %d with their callees", calls)
	}
	shows := "shows it"
	if groupsCount(gs) > 1 {
		shows = "shows the first"
	}
	return line + fmt.Sprintf(" (%s %s %s)", faces.Cmd("adi.call_tree"), gs[0].First, shows)
}

// groupsCount counts the calls of groups.
func groupsCount(gs []CallGroup) int {
	n := 0
	for _, g := range gs {
		n += g.Count
	}
	return n
}

// addGroup counts one more call, fid, in groups by function (CallGroup), in order of first call.
func addGroup(gs []CallGroup, fid string) []CallGroup {
	fn, _, _ := cutLast(fid, '#')
	for i := range gs {
		if gs[i].Func == fn {
			gs[i].Count++
			return gs
		}
	}
	return append(gs, CallGroup{Func: fn, Count: 1, First: fid})
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
func groupsText(gs []CallGroup, more string) string { return groupsTextMax(gs, more, len(gs)) }

// groupsTextMax is groupsText naming at most named functions: "30 calls (8 to fib, 4 to g, 18 to
// 5 others)".
func groupsTextMax(gs []CallGroup, more string, named int) string {
	total := groupsCount(gs)
	calls := more + "calls"
	if total == 1 {
		calls = more + "call"
	}
	if len(gs) == 1 {
		return fmt.Sprintf("%d %s to %s", total, calls, ShortName(gs[0].Func))
	}
	parts := make([]string, 0, min(len(gs), named+1))
	rest := 0
	for i, g := range gs {
		if i >= named && len(gs) > named+1 {
			rest += g.Count
			continue
		}
		parts = append(parts, fmt.Sprintf("%d to %s", g.Count, ShortName(g.Func)))
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%d to %d others", rest, len(gs)-named))
	}
	return fmt.Sprintf("%d %s (%s)", total, calls, strings.Join(parts, ", "))
}
