package adi

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff answers diff: two invocations side by side, their arguments and outcomes paired by name
// and their steps aligned by the lines they ran (alignSteps): where one took a branch the other
// did not, its steps show alone, and the steps after the branch line up again.
type Diff struct {
	A         FrameSummary `json:"a"`
	B         FrameSummary `json:"b"`
	Args      []ValuePair  `json:"args"`
	Outcome   ValuePair    `json:"outcome"`
	StepsA    int          `json:"steps_a"`
	StepsB    int          `json:"steps_b"`
	DroppedA  int          `json:"dropped_a,omitempty"`
	DroppedB  int          `json:"dropped_b,omitempty"`
	Differing int          `json:"differing"` // rows of the alignment whose steps differ
	Steps     []StepPair   `json:"steps"`     // every row of the alignment
	Recording Coverage     `json:"recording"`
}

// ValuePair is one value on both sides; a nil side is absent there.
type ValuePair struct {
	Name    string  `json:"name,omitempty"`
	A       *string `json:"a"`
	B       *string `json:"b"`
	Differs bool    `json:"differs"`
}

// StepPair is one row of the alignment of the two τ (Pos, 1-based): step StepA of A and step
// StepB of B (1-based indexes in each τ); a nil side has no step in that row (StepA or StepB is
// then 0). Steps are the same when they ran the same line with the same changes, calls (by
// function and outcome) and events.
type StepPair struct {
	Pos     int       `json:"pos"`
	StepA   int       `json:"step_a"`
	StepB   int       `json:"step_b"`
	A       *StepView `json:"a"`
	B       *StepView `json:"b"`
	Differs bool      `json:"differs"`
}

// Diff compares the FLTs a and b of two frames of t.
func (t *Trace) Diff(a, b *FLT) *Diff {
	va, vb := t.FLTView(a), t.FLTView(b)
	d := &Diff{A: va.Frame, B: vb.Frame, StepsA: len(va.Steps), StepsB: len(vb.Steps),
		DroppedA: a.Dropped, DroppedB: b.Dropped, Recording: t.Coverage()}
	d.Args = pairArgs(va.Frame.Args, vb.Frame.Args)
	oa := detail{}.outcome(va.Frame.Status, va.Frame.Return, va.Frame.Exception)
	ob := detail{}.outcome(vb.Frame.Status, vb.Frame.Return, vb.Frame.Exception)
	d.Outcome = ValuePair{A: &oa, B: &ob, Differs: oa != ob}
	for k, r := range alignSteps(va.Steps, vb.Steps) {
		p := StepPair{Pos: k + 1}
		if r[0] >= 0 {
			p.A, p.StepA = &va.Steps[r[0]], r[0]+1
		}
		if r[1] >= 0 {
			p.B, p.StepB = &vb.Steps[r[1]], r[1]+1
		}
		p.Differs = p.A == nil || p.B == nil || stepKey(*p.A) != stepKey(*p.B)
		if p.Differs {
			d.Differing++
		}
		d.Steps = append(d.Steps, p)
	}
	return d
}

// maxAligned bounds the steps that alignSteps compares pair by pair (the product of the two
// middles left once their common start and end are set aside): a table of that many cells.
const maxAligned = 1 << 20

// alignSteps aligns two τ by the lines they ran: the rows are index pairs (i into a, j into b; -1
// for a side without a step). Steps that ran the same line (and statement) are matched along a
// longest common subsequence, so that a branch one invocation took and the other did not shows
// as steps of one side alone, and the steps after it line up again; between two matches, the
// unmatched steps of both sides pair up in order, then those left stand alone. Their common start
// and end are matched first; when what lies between is too big to compare pair by pair
// (maxAligned), it is aligned by position.
func alignSteps(a, b []StepView) [][2]int {
	type lineStmt struct {
		line int
		stmt string
	}
	ids := map[lineStmt]int32{}
	key := func(s StepView) int32 {
		k := lineStmt{s.Line, s.Stmt}
		id, ok := ids[k]
		if !ok {
			id = int32(len(ids))
			ids[k] = id
		}
		return id
	}
	ka, kb := make([]int32, len(a)), make([]int32, len(b))
	for i := range a {
		ka[i] = key(a[i])
	}
	for j := range b {
		kb[j] = key(b[j])
	}
	lo := 0
	for lo < len(ka) && lo < len(kb) && ka[lo] == kb[lo] {
		lo++
	}
	ha, hb := len(ka), len(kb)
	for ha > lo && hb > lo && ka[ha-1] == kb[hb-1] {
		ha--
		hb--
	}
	var rows [][2]int
	for i := 0; i < lo; i++ {
		rows = append(rows, [2]int{i, i})
	}
	// the matches of the middles, a[lo:ha] and b[lo:hb], then the rows between and after them
	var matches [][2]int
	if n, m := ha-lo, hb-lo; n > 0 && m > 0 && n*m <= maxAligned {
		matches = lcs(ka[lo:ha], kb[lo:hb])
		for k := range matches {
			matches[k][0] += lo
			matches[k][1] += lo
		}
	}
	i, j := lo, lo
	gap := func(ti, tj int) { // the unmatched a[i:ti] and b[j:tj]: paired in order, then alone
		for ; i < ti && j < tj; i, j = i+1, j+1 {
			rows = append(rows, [2]int{i, j})
		}
		for ; i < ti; i++ {
			rows = append(rows, [2]int{i, -1})
		}
		for ; j < tj; j++ {
			rows = append(rows, [2]int{-1, j})
		}
	}
	for _, mt := range matches {
		gap(mt[0], mt[1])
		rows = append(rows, mt)
		i, j = mt[0]+1, mt[1]+1
	}
	gap(ha, hb)
	for ; i < len(ka); i, j = i+1, j+1 {
		rows = append(rows, [2]int{i, j})
	}
	return rows
}

// lcs returns the index pairs of a longest common subsequence of a and b (len(a)·len(b) cells).
func lcs(a, b []int32) [][2]int {
	n, m := len(a), len(b)
	w := m + 1
	t := make([]int32, (n+1)*w) // t[i*w+j]: the LCS length of a[i:] and b[j:]
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			case t[(i+1)*w+j] >= t[i*w+j+1]:
				t[i*w+j] = t[(i+1)*w+j]
			default:
				t[i*w+j] = t[i*w+j+1]
			}
		}
	}
	var out [][2]int
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == b[j]:
			out = append(out, [2]int{i, j})
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return out
}

func pairArgs(a, b []Arg) []ValuePair {
	var out []ValuePair
	inB := map[string]int{}
	for i, x := range b {
		inB[x.Name] = i
	}
	seen := map[string]bool{}
	for _, x := range a {
		p := ValuePair{Name: x.Name, A: &x.Value}
		if i, ok := inB[x.Name]; ok {
			p.B = &b[i].Value
		}
		p.Differs = p.B == nil || *p.A != *p.B
		seen[x.Name] = true
		out = append(out, p)
	}
	for _, x := range b {
		if !seen[x.Name] {
			out = append(out, ValuePair{Name: x.Name, B: &x.Value, Differs: true})
		}
	}
	return out
}

// stepKey is what must be equal for two steps to be the same: calls count by function and
// outcome, not by invocation index.
func stepKey(s StepView) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(s.Line) + "\x00" + s.Stmt + "\x00")
	for _, c := range s.Changes {
		b.WriteString(c.Target() + "\x00" + string(c.Kind) + "\x00" + c.Old + "\x00" + c.New + "\x00")
	}
	for _, c := range s.Calls {
		b.WriteString(c.funcName() + "\x00" + detail{}.outcome(c.Status, c.Return, c.Exception) + "\x00")
	}
	fmt.Fprintf(&b, "%t\x00", s.Resume)
	if s.Yield != nil {
		b.WriteString("yield\x00" + *s.Yield + "\x00")
	}
	if s.Raise != nil {
		b.WriteString("raise\x00" + s.Raise.String())
	}
	if s.Test != nil {
		fmt.Fprintf(&b, "\x00test\x00%t", *s.Test)
	}
	return b.String()
}

// Text renders the two frames, their arguments and outcomes (≠ marks a difference), and the
// differing steps; runs of equal steps fold into one line naming their lines.
func (d *Diff) Text(o TextOptions) string {
	return fitText(o, []shrink{shrinkValues}, func(dt detail) doc {
		dc := doc{unit: "step", total: len(d.Steps), indent: "  "}
		dc.head = []string{
			fmt.Sprintf("Diff: A = %s (%s)", d.A.FID, d.A.callerText()),
			fmt.Sprintf("      B = %s (%s)", d.B.FID, d.B.callerText()),
			"Args (A | B):",
		}
		for _, p := range d.Args {
			dc.head = append(dc.head, "  "+dt.pairText(p))
		}
		if len(d.Args) == 0 {
			dc.head = append(dc.head, "  (none)")
		}
		dc.head = append(dc.head, "Outcome (A | B): "+dt.pairText(d.Outcome))
		dc.head = append(dc.head, d.Recording.notes()...)
		for _, side := range []struct {
			name    string
			dropped int
		}{{"A", d.DroppedA}, {"B", d.DroppedB}} {
			if side.dropped > 0 {
				dc.head = append(dc.head, fmt.Sprintf("Note: %s reached the step limit: its last %s were not recorded.", side.name, plural(side.dropped, "step")))
			}
		}
		dc.head = append(dc.head, fmt.Sprintf("Steps: A %d, B %d, aligned by the lines they ran; %d differ.", d.StepsA, d.StepsB, d.Differing), "")
		for k := 0; k < len(d.Steps); {
			if d.Steps[k].Differs {
				dc.add(dt.stepPairChunk(d.Steps[k]))
				k++
				continue
			}
			j := k
			for j < len(d.Steps) && !d.Steps[j].Differs {
				j++
			}
			dc.add(sameRun(d.Steps[k:j]))
			k = j
		}
		return dc
	})
}

// pairText renders "x: 1 | 5  ≠" or "x = 1 (same)" (without the name for an outcome).
func (dt detail) pairText(p ValuePair) string {
	side := func(v *string) string {
		if v == nil {
			return "(absent)"
		}
		return dt.val(*v)
	}
	name := ""
	if p.Name != "" {
		name = p.Name + ": "
	}
	if !p.Differs {
		if p.Name != "" {
			name = p.Name + " = "
		}
		return name + side(p.A) + " (same)"
	}
	return name + side(p.A) + " | " + side(p.B) + "  ≠"
}

// stepPairChunk renders one differing row: the steps' numbers in A and B, and what each did (the
// outcome of a test first: "→ True").
func (dt detail) stepPairChunk(p StepPair) chunk {
	events := func(s *StepView) string {
		ev := dt.stepEvents(*s)
		if s.Test != nil {
			ev = append([]string{strings.TrimSpace(testOutcome(*s.Test))}, ev...)
		}
		if len(ev) > 0 {
			return strings.Join(ev, "; ")
		}
		return "(no changes)"
	}
	where := func(s *StepView) string {
		first, _, _ := strings.Cut(s.Stmt, "\n")
		return fmt.Sprintf("line %d  %s", s.Line, first)
	}
	var lines []string
	switch {
	case p.A == nil || p.B == nil:
		name, s, k := "A", p.A, p.StepA
		if p.A == nil {
			name, s, k = "B", p.B, p.StepB
		}
		lines = []string{fmt.Sprintf("  step %d of %s, only in %s", k, name, name),
			fmt.Sprintf("    %s: %s  — %s", name, where(s), events(s))}
	case p.A.Line != p.B.Line || p.A.Stmt != p.B.Stmt:
		lines = []string{fmt.Sprintf("  %s  different lines", stepsText(p.StepA, p.StepB)),
			fmt.Sprintf("    A: %s  — %s", where(p.A), events(p.A)),
			fmt.Sprintf("    B: %s  — %s  ≠", where(p.B), events(p.B))}
	default:
		lines = []string{fmt.Sprintf("  %s  %s", stepsText(p.StepA, p.StepB), where(p.A)),
			"    A: " + events(p.A),
			"    B: " + events(p.B) + "  ≠"}
	}
	return chunk{lines: lines, first: p.Pos, last: p.Pos}
}

// stepsText names a row's steps: "step 7" when it is step 7 of both, else "step 7 of A, 8 of B".
func stepsText(a, b int) string {
	if a == b {
		return "step " + strconv.Itoa(a)
	}
	return fmt.Sprintf("step %d of A, %d of B", a, b)
}

// sameRun renders a run of equal rows as one line with the lines they ran.
func sameRun(ps []StepPair) chunk {
	var lines []string
	seen := map[int]bool{}
	for _, p := range ps {
		if !seen[p.A.Line] {
			seen[p.A.Line] = true
			lines = append(lines, strconv.Itoa(p.A.Line))
		}
	}
	if len(lines) > 6 {
		lines = append(lines[:6], "…")
	}
	first, last := ps[0].Pos, ps[len(ps)-1].Pos
	a0, a1, b0 := ps[0].StepA, ps[len(ps)-1].StepA, ps[0].StepB
	var span string
	switch {
	case a0 == b0 && a1 == a0:
		span = fmt.Sprintf("step %d same in A and B", a0)
	case a0 == b0:
		span = fmt.Sprintf("steps %d–%d same in A and B", a0, a1)
	case a1 == a0:
		span = fmt.Sprintf("step %d of A, %d of B, same", a0, b0)
	default:
		span = fmt.Sprintf("steps %d–%d of A, %d–%d of B, same", a0, a1, b0, b0+a1-a0)
	}
	label := "lines"
	if len(lines) == 1 {
		label = "line"
	}
	return chunk{lines: []string{fmt.Sprintf("  ┆ %s (%s %s)", span, label, strings.Join(lines, ", "))}, first: first, last: last}
}
