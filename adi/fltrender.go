package adi

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adi-bridge/adi/internal/faces"
)

// Text renders the FLT the way the ADI paper shows it: the frame and its arguments, every executed
// line with the changes, calls and events beneath it, loops folded to the iterations that tell
// something (see shownIterations), and the return value or exception last. Under the budget it
// shrinks, in order: more loop folding, shorter values, no callee returns, then the middle of τ.
func (v *FLTView) Text(o TextOptions) string {
	tree := segment(v.Steps, 0, len(v.Steps), 0)
	nodesSig(v.Steps, tree)
	var notes []string
	if o.LoopLine > 0 && o.LoopIndex > 0 {
		headers := loopHeaders(tree, nil)
		if !slices.Contains(headers, o.LoopLine) {
			notes = append(notes, loopNote(o.LoopLine, o.LoopIndex, headers))
			o.LoopIndex, o.LoopLine = 0, 0
		}
	}
	width := 4
	for _, s := range v.Steps {
		width = max(width, len(strconv.Itoa(s.Line)))
	}
	shrinks := []shrink{shrinkFold1, shrinkFold2, shrinkValues, shrinkReturns}
	return fitText(o, shrinks, func(d detail) doc {
		if d.valueLimit == 0 || d.valueLimit > fltValue {
			d.valueLimit = fltValue // exec shows a value whole
		}
		r := &fltRenderer{v: v, d: d, o: o, pad: strings.Repeat(" ", width), width: width, notes: notes}
		return r.render(tree)
	})
}

// watched reports whether a variable or a change's path (p.count, rows[3], *args) belongs to
// one of the watched variables; with no watch list everything does.
func (o TextOptions) watched(name string) bool {
	if len(o.Watch) == 0 {
		return true
	}
	root := strings.TrimLeft(name, "*")
	if k := strings.IndexAny(root, ".["); k >= 0 {
		root = root[:k]
	}
	for _, w := range o.Watch {
		if w == root || w == name {
			return true
		}
	}
	return false
}

// watchedArgs keeps the watched arguments.
func (o TextOptions) watchedArgs(args []Arg) []Arg {
	return keepWatched(o, args, func(a Arg) string { return a.Name })
}

// watchedChanges keeps the changes of watched variables.
func (o TextOptions) watchedChanges(cs []Change) []Change {
	return keepWatched(o, cs, func(c Change) string { return c.Name })
}

// keepWatched keeps the items whose variable (name) is watched; all of them without --full-watch.
func keepWatched[T any](o TextOptions, items []T, name func(T) string) []T {
	if len(o.Watch) == 0 {
		return items
	}
	var out []T
	for _, it := range items {
		if o.watched(name(it)) {
			out = append(out, it)
		}
	}
	return out
}

// loopHeaders lists the header lines of the loops of a node sequence, in the order they first
// run, each once.
func loopHeaders(nodes []tnode, out []int) []int {
	for _, n := range nodes {
		if n.loop == nil {
			continue
		}
		if !slices.Contains(out, n.loop.header) {
			out = append(out, n.loop.header)
		}
		for _, it := range n.loop.iters {
			out = loopHeaders(it.nodes, out)
		}
	}
	return out
}

// loopNote says that the loop index line:k names no loop of the frame, naming those it has.
func loopNote(line, k int, headers []int) string {
	opt := fmt.Sprintf("%s %d:%d", faces.Param("adi.flt", "loop_index"), line, k)
	if len(headers) == 0 {
		return fmt.Sprintf("Note: %s names no loop: this invocation ran none.", opt)
	}
	lines := make([]string, len(headers))
	for i, h := range headers {
		lines[i] = strconv.Itoa(h)
	}
	return fmt.Sprintf("Note: %s names no loop of this invocation; its loops' headers are on line(s) %s (adi chose the iterations shown).",
		opt, strings.Join(lines, ", "))
}

// shown says which iterations of l are shown in full: the ones Loop or LoopIndex ask for, else
// shownIterations' choice at the renderer's fold level, with more shown where a fold would hide
// an iteration unlike those beside it (alike); the iteration holding the marked step always. It
// also says whether the choice was adi's.
func (r *fltRenderer) shown(l *tloop) (shown []bool, chosen bool) {
	index := r.o.LoopIndex > 0 && (r.o.LoopLine == 0 || r.o.LoopLine == l.header)
	switch {
	case index || r.o.Loop > 0:
		shown = make([]bool, len(l.iters))
		for k, it := range l.iters {
			if index {
				shown[k] = it.n == r.o.LoopIndex
			} else {
				shown[k] = k < r.o.Loop
			}
		}
	default:
		shown, chosen = shownIterations(r.v.Steps, l, r.d.fold), true
	}
	if m := r.v.Mark; m != nil {
		for k, it := range l.iters {
			if it.from <= m.Step && m.Step < it.to {
				shown[k] = true
			}
		}
	}
	if chosen {
		alike(l, shown)
	}
	return shown, chosen
}

// fltValue bounds each value an FLT shows, in characters, and calleeValue what a callee returned:
// a value's head says what it is, and a change cut keeps the place where it differs.
const (
	fltValue    = 100
	calleeValue = 60
)

// fltRenderer renders one FLTView at one detail level.
type fltRenderer struct {
	v     *FLTView
	d     detail
	o     TextOptions
	pad   string // blank line-number column
	width int
	doc   doc
	notes []string // head lines about the options (loopNote)
}

func (r *fltRenderer) render(tree []tnode) doc {
	v, d := r.v, r.d
	r.doc = doc{unit: "step", total: len(v.Steps) + v.Dropped, indent: r.pad + " "}
	r.doc.head = []string{
		fmt.Sprintf("Frame: %s   (%s)", v.Frame.FID, v.Frame.callerText()),
		"Args: " + d.argsText(r.o.watchedArgs(v.Frame.Args)),
	}
	if len(r.o.Watch) > 0 && len(v.Frame.Args) > 0 && len(r.o.watchedArgs(v.Frame.Args)) == 0 {
		r.doc.head[1] = "Args: (none watched)"
	}
	if len(r.o.Watch) > 0 {
		r.doc.head = append(r.doc.head, "Watching: "+strings.Join(r.o.Watch, ", ")+" (the other variables are not shown)")
	}
	r.doc.head = append(r.doc.head, v.Recording.notes()...)
	r.doc.head = append(r.doc.head, r.notes...)
	if v.Dropped > 0 {
		r.doc.head = append(r.doc.head, fmt.Sprintf("Note: the step limit was reached: the last %d step(s) of this invocation were not recorded.", v.Dropped))
	}
	r.doc.head = append(r.doc.head, "")
	if len(v.Steps) == 0 {
		r.doc.add(chunk{lines: []string{r.pad + " (no statements recorded)"}})
	}
	r.nodes(tree)
	if v.Dropped > 0 {
		r.doc.add(chunk{lines: []string{fmt.Sprintf("%s ┆ … %s not recorded (step limit)", r.pad, plural(v.Dropped, "more step"))}})
	}
	r.doc.foot = []string{"", r.footer()}
	return r.doc
}

// footer is the last line: how the invocation ended.
func (r *fltRenderer) footer() string {
	f := r.v.Frame
	switch f.Status {
	case Returned:
		line := "Return: " + r.d.val(f.Return)
		if f.Yields > 0 {
			line += fmt.Sprintf("  (%s; it suspended %d time(s))", suspender(f), f.Yields)
		}
		return line
	case Raised:
		if f.Exception == nil {
			return "Raised: (exception unknown)"
		}
		if f.Exception.Closes() {
			return closedText("Closed", f.Exception) + fmt.Sprintf("  (%s; it suspended %d time(s))", suspender(f), f.Yields)
		}
		line := "Raised: " + r.d.val(f.Exception.String())
		if f.Exception.Line > 0 {
			line += fmt.Sprintf(" at line %d", f.Exception.Line)
		}
		return line
	case NotStarted:
		return fmt.Sprintf("Not started: %s was created here but never ran.", suspender(f))
	default:
		if f.Running {
			return "Running: this invocation had not returned when its FLT was read; the program runs on."
		}
		line := "Unfinished: the run ended while this invocation was still active or suspended"
		if f.Yields > 0 {
			line += fmt.Sprintf(" (%s; it suspended %d time(s))", suspender(f), f.Yields)
		}
		return line + "."
	}
}

// suspender says what kind of frame suspended: "a generator", "a coroutine", "an async generator".
func suspender(f FrameSummary) string {
	switch f.Kind {
	case "coroutine":
		return "a coroutine"
	case "async generator":
		return "an async generator"
	default:
		return "a generator"
	}
}

func (r *fltRenderer) nodes(ns []tnode) {
	for _, n := range ns {
		if n.loop == nil {
			r.step(n.step)
		} else {
			r.loop(n.loop)
		}
	}
}

// loop renders the shown iterations of l in full and one fold line for each run of the others.
// When some are folded, each shown iteration is labelled with its number.
func (r *fltRenderer) loop(l *tloop) {
	shown, chosen := r.shown(l)
	folds := false
	for _, s := range shown {
		folds = folds || !s
	}
	for k := 0; k < len(l.iters); {
		if shown[k] {
			start := len(r.doc.body)
			r.nodes(l.iters[k].nodes)
			if folds && start < len(r.doc.body) {
				r.doc.body[start].lines[0] += fmt.Sprintf("   [iteration %d]", l.iters[k].n)
			}
			k++
			continue
		}
		j := k
		for j < len(l.iters) && !shown[j] {
			j++
		}
		r.fold(l, l.iters[k:j], r.foldPath(l, k, j, chosen))
		k = j
	}
}

// foldPath says which paths the folded iterations k..j-1 of l took: those of the shown
// iterations before them when adi chose what to fold (foldsLike: alike keeps it so), else how
// many ("same path", "2 different paths").
func (r *fltRenderer) foldPath(l *tloop, k, j int, chosen bool) string {
	if chosen && k > 0 {
		return foldsLike(l, k, j)
	}
	paths := map[uint64]bool{}
	for _, it := range l.iters[k:j] {
		paths[it.path] = true
	}
	if len(paths) == 1 {
		return "same path"
	}
	return fmt.Sprintf("%d different paths", len(paths))
}

// fold writes the line standing for the folded iterations its of l: how many, the paths they
// took, which variables change inside them, and the calls and events they hide.
func (r *fltRenderer) fold(l *tloop, its []titer, path string) {
	from, to := its[0].from, its[len(its)-1].to
	span := fmt.Sprintf("iteration %d", its[0].n)
	if len(its) > 1 {
		span = fmt.Sprintf("iterations %d–%d", its[0].n, its[len(its)-1].n)
	}
	var changing, calls, raised counter
	yields := 0
	for _, s := range r.v.Steps[from:to] {
		for _, c := range r.o.watchedChanges(s.Changes) {
			changing.add(c.Name)
		}
		for _, c := range s.Calls {
			calls.add(ShortName(c.funcName()))
		}
		if s.Raise != nil {
			raised.add(s.Raise.Type)
		}
		if s.Yield != nil {
			yields++
		}
	}
	what := "changing: nothing"
	if len(changing.keys) > 0 {
		what = "changing: " + strings.Join(changing.keys, ", ")
	}
	if len(calls.keys) > 0 {
		what += "; calls: " + calls.String()
	}
	if len(raised.keys) > 0 {
		what += "; raised: " + raised.String()
	}
	if yields > 0 {
		what += fmt.Sprintf("; yielded ×%d", yields)
	}
	r.doc.add(chunk{
		lines: []string{fmt.Sprintf("%s ┆ … %s of line %d folded (%s, %s; %s)", r.pad, span, l.header, plural(len(its), "iteration"), path, what)},
		first: from + 1, last: to,
	})
}

// step renders one step: its line and statement, then its changes, calls and events.
func (r *fltRenderer) step(i int) {
	s := r.v.Steps[i]
	s.Changes = r.o.watchedChanges(s.Changes)
	stmt, rest, multi := strings.Cut(s.Stmt, "\n")
	if s.Stmt == "" {
		stmt = "(source not available)"
	}
	events := r.d.stepEvents(s)
	lines := make([]string, 1, 1+len(events)+strings.Count(rest, "\n")+1)
	// The line number right-aligned in the number column, as fmt's %*d writes it.
	num := strconv.Itoa(s.Line)
	if len(num) < r.width {
		num = r.pad[:r.width-len(num)] + num
	}
	lines[0] = num + " | " + stmt
	for multi {
		var cont string
		cont, rest, multi = strings.Cut(rest, "\n")
		lines = append(lines, r.pad+" | "+cont)
	}
	if s.Test != nil {
		lines[len(lines)-1] += testOutcome(*s.Test)
	}
	if m := r.v.Mark; m != nil && m.Step == i {
		lines[len(lines)-1] += fmt.Sprintf("   ◀ the condition held here (visit %d of line %d; %s %s %d %s %d runs a statement here)",
			m.Visit, m.Line, faces.Cmd("adi.execute"), faces.Param("adi.execute", "line"), m.Line, faces.Param("adi.execute", "visit"), m.Visit)
	}
	for _, sub := range events {
		lines = append(lines, r.pad+" |   "+sub)
	}
	r.doc.add(chunk{lines: lines, first: i + 1, last: i + 1})
}

// testOutcome is what a step's test decided, written after its statement's last line.
func testOutcome(taken bool) string {
	if taken {
		return "  → True"
	}
	return "  → False"
}

// stepEvents lists what a step did, one item per change, call and event, in the order
// resume, changes, calls, raise, yield.
func (d detail) stepEvents(s StepView) []string {
	n := len(s.Changes) + len(s.Calls)
	if n == 0 && !s.Resume && s.Raise == nil && s.Yield == nil {
		return nil
	}
	out := make([]string, 0, n+3)
	if s.Resume {
		out = append(out, "▶ resumed")
	}
	for _, c := range s.Changes {
		out = append(out, d.changeText(c))
	}
	// a step's calls of plumbing dunders (__hash__, __eq__), when several, are counted on one
	// line where the first of them was
	var plumbed counter
	for _, c := range s.Calls {
		if c.FID != "" && plumbing(c.funcName()) {
			plumbed.add(ShortName(c.funcName()))
		}
	}
	count, counted := plumbed.total() > 1, false
	for _, c := range s.Calls {
		switch {
		case !count || c.FID == "" || !plumbing(c.funcName()):
			out = append(out, "→ "+d.callText(c))
		case !counted:
			out = append(out, "→ "+plumbed.String())
			counted = true
		}
	}
	if s.Raise != nil {
		out = append(out, "! raised "+d.val(s.Raise.String()))
	}
	if s.Yield != nil {
		out = append(out, "⏸ yield "+d.val(*s.Yield))
	}
	return out
}

// changeText renders one change: "+ x = 1", "- x", "~ xs: appended 3", "~ p.n = 2 (was 1)"; a
// module-level object the function changed ("global NAME" in the recording) is written by its
// name with "  (global)" after it. Where old and new would be cut, both are cut around the
// first place they differ, so that they never read the same.
func (d detail) changeText(c Change) string {
	name, mark := c.Name, ""
	if g, ok := strings.CutPrefix(name, GlobalPrefix); ok {
		name, mark = g, "  (global)"
	}
	switch c.Kind {
	case New:
		return "+ " + name + c.Path + " = " + d.val(c.New) + mark
	case Deleted:
		return "- " + name + c.Path + mark
	case Appended:
		return "~ " + name + c.Path + ": appended " + d.val(c.New) + mark
	case Same:
		return "~ " + name + c.Path + " = " + d.val(c.New) + " (a new object, equal to the old)" + mark
	}
	old, nw := d.pair(c.Old, c.New)
	return "~ " + name + c.Path + " = " + nw + " (was " + old + ")" + mark
}

// callText renders a call: "t:g#3 → 42", or only the fid when returns are dropped.
func (d detail) callText(c CallView) string {
	switch {
	case c.FID == "":
		return "(a call that is not in the recording)"
	case d.noReturns:
		return c.name()
	default:
		d.valueLimit = min(d.valueLimit, calleeValue)
		return c.name() + " → " + d.frameOutcome(c.Status, c.Return, c.Exception, Yielded{c.Kind, c.Yields, c.LastYield})
	}
}

// counter counts occurrences of keys, remembering the order they first appeared in.
type counter struct {
	keys []string
	n    map[string]int
}

func (c *counter) add(k string) {
	if c.n == nil {
		c.n = map[string]int{}
	}
	if c.n[k] == 0 {
		c.keys = append(c.keys, k)
	}
	c.n[k]++
}

// total is the number of occurrences counted.
func (c *counter) total() int {
	n := 0
	for _, v := range c.n {
		n += v
	}
	return n
}

// String renders "g ×3, h ×1".
func (c *counter) String() string {
	parts := make([]string, len(c.keys))
	for i, k := range c.keys {
		parts[i] = fmt.Sprintf("%s ×%d", k, c.n[k])
	}
	return strings.Join(parts, ", ")
}
