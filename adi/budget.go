package adi

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultBudget is the token budget of a text rendering when TextOptions.Budget is 0.
const DefaultBudget = 2000

// CharsPerToken is how many characters count as one token for budgets.
const CharsPerToken = 4

// shortValue is the length values are cut to when a rendering must shrink.
const shortValue = 60

// TextOptions controls the text renderings.
type TextOptions struct {
	// Budget is the size the text should fit, in tokens of CharsPerToken characters; 0 means
	// DefaultBudget. Renderings shrink detail in a fixed order to fit and end with a line saying
	// what they dropped.
	Budget int
	// Watch names the only variables an FLT shows (in its arguments and its changes, a change
	// counting for the variable its path starts with: p for p.count); nil shows them all.
	Watch []string
	// Loop, when above 0, shows the first Loop iterations of every loop of an FLT and folds the
	// others, instead of adi's choice (the iterations that differ from their neighbours).
	Loop int
	// LoopIndex, when above 0, shows only iteration LoopIndex of the loop whose header is line
	// LoopLine, the others folded (every loop's when LoopLine is 0); adi chooses for other loops.
	LoopIndex int
	LoopLine  int
}

func (o TextOptions) budget() int {
	if o.Budget <= 0 {
		return DefaultBudget
	}
	return o.Budget
}

// Tokens returns the size of s in budget tokens (characters / CharsPerToken, rounded up).
func Tokens(s string) int { return (utf8.RuneCountInString(s) + CharsPerToken - 1) / CharsPerToken }

// Result is the answer of a command: it renders as text for language models and marshals to JSON
// (snake_case fields, deterministic) for programs.
type Result interface {
	Text(o TextOptions) string
}

// detail is how much a budgeted rendering shows; the zero value shows everything.
type detail struct {
	fold       int  // loop folding: 0 by neighbours, 1 also repeated paths, 2 all but first and last
	valueLimit int  // values are cut to this many characters; 0 means no cut
	noReturns  bool // callee returns are left out
	foldLate   bool // call trees: calls after the failure and during imports folded
	foldSetup  int  // call trees: callees of library calls off the failure path folded where they are at least this many (0: none)
}

// shrink is one step of reducing detail, with the note that tells the reader it happened.
type shrink struct {
	note  string
	apply func(detail) detail
}

var (
	shrinkValues  = shrink{fmt.Sprintf("values shortened to %d characters", shortValue), func(d detail) detail { d.valueLimit = shortValue; return d }}
	shrinkFold1   = shrink{"loop iterations with repeated paths folded", func(d detail) detail { d.fold = 1; return d }}
	shrinkFold2   = shrink{"loop iterations folded to the first and last", func(d detail) detail { d.fold = 2; return d }}
	shrinkReturns = shrink{"callee returns dropped", func(d detail) detail { d.noReturns = true; return d }}
)

// doc is a rendering whose body can be cut from the middle: fixed head and foot lines around body
// chunks, each covering a range of numbered positions (steps, nodes, rows).
type doc struct {
	head, foot []string
	body       []chunk
	unit       string // what positions count, singular ("step")
	total      int    // positions in all
	indent     string // indentation of the cut marker
}

// chunk is a group of body lines that stays whole; first..last are the positions it covers
// (0 when it covers none).
type chunk struct {
	lines       []string
	first, last int
	keep        bool // cutMiddle keeps it (see there)
}

func (d *doc) add(c chunk) { d.body = append(d.body, c) }

// String writes the doc's lines, each ending with a newline, into one string sized first.
func (d *doc) String() string {
	n := 0
	for _, l := range d.head {
		n += len(l) + 1
	}
	for _, c := range d.body {
		for _, l := range c.lines {
			n += len(l) + 1
		}
	}
	for _, l := range d.foot {
		n += len(l) + 1
	}
	var b strings.Builder
	b.Grow(n)
	line := func(l string) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range d.head {
		line(l)
	}
	for _, c := range d.body {
		for _, l := range c.lines {
			line(l)
		}
	}
	for _, l := range d.foot {
		line(l)
	}
	return b.String()
}

// fitText renders at full detail, then applies shrinks in order (skipping those that do not make
// it shorter) until the text fits the budget, then cuts body chunks from the middle. When anything
// was dropped the text ends with a line saying what; that line counts toward the budget.
func fitText(o TextOptions, shrinks []shrink, render func(detail) doc) string {
	limit := o.budget() * CharsPerToken
	final := func(text string, notes []string) string {
		if len(notes) == 0 {
			return text
		}
		return text + fmt.Sprintf("(shrunk to fit the %d-token budget: %s)\n", o.budget(), strings.Join(notes, "; "))
	}
	d := detail{}
	cur := render(d)
	text := cur.String()
	var notes []string
	for _, s := range shrinks {
		if utf8.RuneCountInString(final(text, notes)) <= limit {
			return final(text, notes)
		}
		nd := s.apply(d)
		next := render(nd)
		if nt := next.String(); len(nt) < len(text) {
			d, cur, text = nd, next, nt
			if len(notes) == 0 || notes[len(notes)-1] != s.note {
				notes = append(notes, s.note) // (steps of one shrink share their note)
			}
		}
	}
	if utf8.RuneCountInString(final(text, notes)) > limit {
		longest := cur.span(maxCount, maxCount) + " cut"
		if cur.keeps() {
			longest += cutButKept
		}
		reserve := utf8.RuneCountInString(final("", append(notes, longest)))
		if note, ok := cur.cutMiddle(limit - reserve); ok {
			text = cur.String()
			notes = append(notes, note)
		}
	}
	return final(text, notes)
}

// cutMiddle drops body chunks from the middle so the doc fits room characters, keeping about as
// much of the start as of the end, and puts a marker line where it cut. Chunks marked keep (a
// call tree's failure path) stay wherever they are, each run of chunks cut between them getting
// its own marker. It reports what it cut.
func (d *doc) cutMiddle(room int) (string, bool) {
	size := func(c chunk) int {
		n := 0
		for _, l := range c.lines {
			n += utf8.RuneCountInString(l) + 1
		}
		return n
	}
	const markerSize, keptMarkerSize = 80, 60
	avail := room - size(chunk{lines: d.head}) - size(chunk{lines: d.foot}) - markerSize
	n := len(d.body)
	kept := 0
	for k, c := range d.body {
		if c.keep {
			kept += size(c)
			if k > 0 && !d.body[k-1].keep {
				kept += keptMarkerSize // the marker of a cut before it, at most
			}
		}
	}
	if kept > avail {
		kept = 0 // the kept chunks alone would not fit: cut them like the others
	}
	avail -= kept
	cost := func(c chunk) int {
		if c.keep && kept > 0 {
			return 0 // counted already
		}
		return size(c)
	}
	used, h, t := 0, 0, 0
	for h < n && used+cost(d.body[h]) <= avail/2 {
		used += cost(d.body[h])
		h++
	}
	for t < n-h && used+cost(d.body[n-1-t]) <= avail {
		used += cost(d.body[n-1-t])
		t++
	}
	for h < n-t && used+cost(d.body[h]) <= avail {
		used += cost(d.body[h])
		h++
	}
	if h+t >= n {
		return "", false
	}
	body := append([]chunk{}, d.body[:h]...)
	first, last, runs := 0, 0, 0
	for k := h; k < n-t; {
		if d.body[k].keep && kept > 0 {
			body = append(body, d.body[k])
			k++
			continue
		}
		j := k
		for j < n-t && !(d.body[j].keep && kept > 0) {
			j++
		}
		rf, rl := 0, 0
		for _, c := range d.body[k:j] {
			if c.first > 0 && rf == 0 {
				rf = c.first
			}
			if c.last > 0 {
				rl = c.last
			}
		}
		label := plural(j-k, "part")
		if rf > 0 {
			label = d.span(rf, rl)
			if first == 0 {
				first = rf
			}
			last = rl
		}
		body = append(body, chunk{lines: []string{d.indent + "┆ … " + label + " cut here to fit the budget"}})
		runs++
		k = j
	}
	body = append(body, d.body[n-t:]...)
	d.body = body
	label := plural(n-h-t, "part")
	if first > 0 {
		label = d.span(first, last)
	}
	if runs > 1 || (kept > 0 && first > 0 && len(body) > h+t+runs) {
		return label + " cut" + cutButKept, true
	}
	return label + " cut", true
}

// cutButKept ends the note of a cut that kept chunks in the middle (a call tree's failure path).
const cutButKept = " but for the failure path"

// keeps reports whether the doc has chunks cutMiddle keeps.
func (d *doc) keeps() bool {
	for _, c := range d.body {
		if c.keep {
			return true
		}
	}
	return false
}

// span names positions first..last of the doc, e.g. "steps 41–2960 of 3000".
func (d *doc) span(first, last int) string {
	if first == last {
		return fmt.Sprintf("%s %d of %d", d.unit, first, d.total)
	}
	return fmt.Sprintf("%ss %d–%d of %d", d.unit, first, last, d.total)
}

// plural writes "1 call", "2 calls".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// ParseLoopIndex reads a loop index as agents give it: "LINE:K", iteration K of the loop whose
// header is line LINE (TextOptions.LoopLine and LoopIndex), or a bare "K", iteration K of every
// loop. Errors wrap ErrBadInput and say the form.
func ParseLoopIndex(s string) (line, k int, err error) {
	s = strings.TrimSpace(s)
	lineText, kText, named := strings.Cut(s, ":")
	if !named {
		lineText, kText = "", lineText
	}
	k, errK := strconv.Atoi(strings.TrimSpace(kText))
	if named {
		line, err = strconv.Atoi(strings.TrimSpace(lineText))
	}
	if errK != nil || err != nil || k < 1 || (named && line < 1) {
		return 0, 0, BadInputf("the loop index takes LINE:K, iteration K of the loop whose header is line LINE (e.g. 122:2), or K, iteration K of every loop; not %q", s)
	}
	return line, k, nil
}
