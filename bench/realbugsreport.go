package bench

import (
	"fmt"
	"slices"
	"strings"
)

// The bars of the real-bugs table.
const (
	barBugChars        = 0.5 // characters until the decisive evidence ÷ the reference tool's
	barBugCharsStretch = 0.3
)

// realBugsIntro explains the real-bugs table.
const realBugsIntro = "Each bug is a known upstream fix (the SWE-bench instance's) undone by a patch from bench/realbugs/ in a Debian package " +
	"copied into a scratch directory, so all of it is user code, with a reproduce script from bench/realbugs/ run there as `python3 repro.py` by /usr/bin/python3 " +
	"(docs/benchmarks.md lists the bugs, the command sequences and the decisive texts). " +
	"Both tools get the same commands, one after the other in a fresh state directory, until an answer shows the decisive evidence: " +
	"adi through its CLI binary (the first command starts its daemon), the reference tool as `python3 -m ADI` with PYTHONPATH at its src/ (" + ReferenceEnv + "). " +
	"Characters are those of every answer until and including that one, standard output and error as a terminal shows them (2>&1), " +
	"with the bug's directory written as /testbed, where SWE-bench puts the repository (the reference tool prints absolute paths, so its counts would depend on where the scratch directory is); " +
	"seconds are those commands' wall time, each a whole process; the decisive line is the line of that answer that shows the evidence (the bar: within its first 40 lines). " +
	"Bars on each bug: characters ≤ 0.5x the reference tool's (stretch 0.3x), with no more commands.\n\n"

// realBugs renders the real-bugs table and adds its bars to bars.
func (r *Report) realBugs(b *strings.Builder, bars *[]bar) {
	rows := r.RealBugs
	if len(rows) == 0 {
		return
	}
	withRef := false
	for _, row := range rows {
		withRef = withRef || row.Ref != nil
	}
	fixes := "fixes"
	if len(rows) == 1 {
		fixes = "fix"
	}
	fmt.Fprintf(b, "### Real bugs: %d reverted upstream %s, each investigated with a fixed command sequence, adi against the reference tool\n\n", len(rows), fixes)
	b.WriteString(realBugsIntro)
	if !withRef {
		b.WriteString(ReferenceSkipped + "\n\n")
	}
	b.WriteString("| bug | the bug's function | adi: commands | adi: characters | adi: seconds | adi: decisive line | reference: commands | reference: characters | reference: seconds | reference: decisive line | characters ÷ reference's (≤ 0.5x; stretch 0.3x) | commands ≤ reference's |\n")
	b.WriteString("|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|---|\n")
	for _, row := range rows {
		b.WriteString(realBugRow(row))
	}
	b.WriteString("\nCharacters per answer, in the order typed:\n\n")
	for _, row := range rows {
		fmt.Fprintf(b, "- %s: adi %s", row.Bug.Name, perAnswer(row.ADI))
		if row.Ref != nil {
			fmt.Fprintf(b, "; reference %s", perAnswer(row.Ref))
		}
		b.WriteString("\n")
	}
	var failed []string
	for _, row := range rows {
		for _, f := range row.ADI.Failed {
			failed = append(failed, fmt.Sprintf("- %s, adi: %s", row.Bug.Name, f))
		}
		if row.Ref != nil {
			for _, f := range row.Ref.Failed {
				failed = append(failed, fmt.Sprintf("- %s, reference: %s", row.Bug.Name, f))
			}
		}
	}
	if len(failed) > 0 {
		b.WriteString("\nCommands that did not answer:\n\n" + strings.Join(failed, "\n") + "\n")
	}
	b.WriteString("\n")
	*bars = append(*bars, realBugBars(rows)...)
}

// realBugRow renders one bug's row.
func realBugRow(r *RealBugRow) string {
	cells := []string{r.Bug.Name + " (" + r.Bug.Instance + ")", "`" + r.Bug.Func + "`"}
	cells = append(cells, bugRunCells(r.ADI)...)
	if r.Ref == nil {
		cells = append(cells, "—", "—", "—", "—", "—", "—")
		return "| " + strings.Join(cells, " | ") + " |\n"
	}
	cells = append(cells, bugRunCells(r.Ref)...)
	if x, ok := r.charsRatio(); ok {
		cells = append(cells, fmt.Sprintf("%s (%s)", ratio(x), charsMet(x)))
	} else {
		cells = append(cells, "—")
	}
	cells = append(cells, met(r.fewerCommands()))
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// bugRunCells renders one tool's commands, characters, seconds and decisive line.
func bugRunCells(r *BugRun) []string {
	line := fmt.Sprintf("not shown in %d answers", r.Commands)
	if r.Shown {
		line = fmt.Sprintf("line %d of answer %d (%s)", r.Line, r.Commands, met(r.Within()))
	}
	return []string{fmt.Sprint(r.Commands), thousands(r.Chars), fmt.Sprintf("%.2f", r.Time.Seconds()), line}
}

// perAnswer renders a run's characters per answer and their sum.
func perAnswer(r *BugRun) string {
	parts := make([]string, len(r.PerAnswer))
	for i, n := range r.PerAnswer {
		parts[i] = thousands(n)
	}
	s := strings.Join(parts, " + ")
	if len(parts) > 1 {
		s += " = " + thousands(r.Chars)
	}
	if !r.Shown {
		s += " (the decisive evidence not shown)"
	}
	return s
}

// charsRatio is adi's characters ÷ the reference tool's, when both showed the evidence.
func (r *RealBugRow) charsRatio() (float64, bool) {
	if r.Ref == nil || !r.ADI.Shown || !r.Ref.Shown || r.Ref.Chars == 0 {
		return 0, false
	}
	return float64(r.ADI.Chars) / float64(r.Ref.Chars), true
}

// fewerCommands reports whether adi showed the evidence with no more commands than the
// reference tool (or showed it where the reference tool did not).
func (r *RealBugRow) fewerCommands() bool {
	switch {
	case !r.ADI.Shown:
		return false
	case r.Ref == nil || !r.Ref.Shown:
		return true
	}
	return r.ADI.Commands <= r.Ref.Commands
}

// charsMet says how a characters ratio meets its bar and stretch.
func charsMet(x float64) string {
	switch {
	case x <= barBugCharsStretch:
		return "met, stretch met"
	case x <= barBugChars:
		return "met"
	}
	return "not met"
}

// realBugBars summarises the real bugs' bars over every bug.
func realBugBars(rows []*RealBugRow) []bar {
	var notShown, notWithin []string
	for _, r := range rows {
		switch {
		case !r.ADI.Shown:
			notShown = append(notShown, r.Bug.Name)
		case !r.ADI.Within():
			notWithin = append(notWithin, r.Bug.Name)
		}
	}
	count := func(bad []string) string {
		s := fmt.Sprintf("%d of %d", len(rows)-len(bad), len(rows))
		if len(bad) > 0 {
			s += " (not: " + strings.Join(bad, ", ") + ")"
		}
		return s
	}
	out := []bar{
		{"real bugs: adi shows the decisive evidence", "on each bug", count(notShown), met(len(notShown) == 0)},
		{"real bugs: adi's decisive line within the first 40 lines of its answer", "on each bug", count(slices.Concat(notShown, notWithin)),
			met(len(notShown)+len(notWithin) == 0)},
	}
	var withRef []*RealBugRow
	for _, r := range rows {
		if r.Ref != nil {
			withRef = append(withRef, r)
		}
	}
	if len(withRef) == 0 {
		return out
	}
	worst, worstName, ok := 0.0, "", true
	var unmeasured, more []string
	for _, r := range withRef {
		if !r.fewerCommands() {
			more = append(more, r.Bug.Name)
		}
		x, measured := r.charsRatio()
		if !measured {
			unmeasured = append(unmeasured, r.Bug.Name)
			ok = false
			continue
		}
		ok = ok && x <= barBugChars
		if worstName == "" || x > worst {
			worst, worstName = x, r.Bug.Name
		}
	}
	m := "—"
	if worstName != "" {
		m = ratio(worst) + " (" + worstName + ")"
	}
	if len(unmeasured) > 0 {
		m += "; not shown by both: " + strings.Join(unmeasured, ", ")
	}
	fewer := fmt.Sprintf("%d of %d", len(withRef)-len(more), len(withRef))
	if len(more) > 0 {
		fewer += " (more on: " + strings.Join(more, ", ") + ")"
	}
	return append(out,
		bar{"real bugs, the worst: characters until the decisive evidence ÷ the reference tool's", "≤ 0.5x on each bug (stretch 0.3x)", m, met(ok)},
		bar{"real bugs: commands until the decisive evidence, no more than the reference tool's", "on each bug", fewer, met(len(more) == 0)})
}
