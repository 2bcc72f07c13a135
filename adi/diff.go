package adi

import (
	"fmt"
	"strconv"
	"strings"
)

// Diff answers diff: two invocations side by side, their arguments and outcomes paired by name
// and their steps aligned by position.
type Diff struct {
	A         FrameSummary `json:"a"`
	B         FrameSummary `json:"b"`
	Args      []ValuePair  `json:"args"`
	Outcome   ValuePair    `json:"outcome"`
	StepsA    int          `json:"steps_a"`
	StepsB    int          `json:"steps_b"`
	DroppedA  int          `json:"dropped_a,omitempty"`
	DroppedB  int          `json:"dropped_b,omitempty"`
	Differing int          `json:"differing"` // positions whose steps differ
	Steps     []StepPair   `json:"steps"`     // every position
	Recording Coverage     `json:"recording"`
}

// ValuePair is one value on both sides; a nil side is absent there.
type ValuePair struct {
	Name    string  `json:"name,omitempty"`
	A       *string `json:"a"`
	B       *string `json:"b"`
	Differs bool    `json:"differs"`
}

// StepPair is the steps of both invocations at one position of τ (1-based); a nil side has no
// step there. Steps are the same when they ran the same line with the same changes, calls (by
// function and outcome) and events.
type StepPair struct {
	Pos     int       `json:"pos"`
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
	for k := 0; k < max(len(va.Steps), len(vb.Steps)); k++ {
		p := StepPair{Pos: k + 1}
		if k < len(va.Steps) {
			p.A = &va.Steps[k]
		}
		if k < len(vb.Steps) {
			p.B = &vb.Steps[k]
		}
		p.Differs = p.A == nil || p.B == nil || stepKey(*p.A) != stepKey(*p.B)
		if p.Differs {
			d.Differing++
		}
		d.Steps = append(d.Steps, p)
	}
	return d
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
		dc.head = append(dc.head, fmt.Sprintf("Steps: A %d, B %d, aligned by position; %d differ.", d.StepsA, d.StepsB, d.Differing), "")
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

// stepPairChunk renders one differing position.
func (dt detail) stepPairChunk(p StepPair) chunk {
	events := func(s *StepView) string {
		if ev := dt.stepEvents(*s); len(ev) > 0 {
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
		name, s := "A", p.A
		if p.A == nil {
			name, s = "B", p.B
		}
		lines = []string{fmt.Sprintf("  step %d  only in %s", p.Pos, name),
			fmt.Sprintf("    %s: %s  — %s", name, where(s), events(s))}
	case p.A.Line != p.B.Line || p.A.Stmt != p.B.Stmt:
		lines = []string{fmt.Sprintf("  step %d  different lines", p.Pos),
			fmt.Sprintf("    A: %s  — %s", where(p.A), events(p.A)),
			fmt.Sprintf("    B: %s  — %s  ≠", where(p.B), events(p.B))}
	default:
		lines = []string{fmt.Sprintf("  step %d  %s", p.Pos, where(p.A)),
			"    A: " + events(p.A),
			"    B: " + events(p.B) + "  ≠"}
	}
	return chunk{lines: lines, first: p.Pos, last: p.Pos}
}

// sameRun renders a run of equal positions as one line with the lines they ran.
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
	span := fmt.Sprintf("step %d same in A and B", first)
	if last > first {
		span = fmt.Sprintf("steps %d–%d same in A and B", first, last)
	}
	label := "lines"
	if len(lines) == 1 {
		label = "line"
	}
	return chunk{lines: []string{fmt.Sprintf("  ┆ %s (%s %s)", span, label, strings.Join(lines, ", "))}, first: first, last: last}
}
