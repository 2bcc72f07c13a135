package bench

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecisiveLine checks that the decisive line is found by number, and only in an answer about
// the decisive frame when one is named.
func TestDecisiveLine(t *testing.T) {
	d := Decisive{Frame: `rebuild_method#3\b`, Line: `\+ method = 'POST'`}
	flt := "continue → requests.sessions:SessionRedirectMixin.rebuild_method#3\n\nFrame: …rebuild_method#3\n 333 | method = prepared_request.method\n     |   + method = 'POST'\n"
	assert.Equal(t, 5, d.line(flt))
	assert.Equal(t, 0, d.line(strings.ReplaceAll(flt, "#3", "#1")), "the same line about another frame")
	assert.Equal(t, 0, d.line(strings.ReplaceAll(flt, "POST", "GET")))
	any := Decisive{Line: `shared: True`}
	assert.Equal(t, 2, any.line("[exec output]\nshared: True\n"))
	assert.Equal(t, 0, Decisive{Frame: `#13\b`, Line: `x`}.line("f#130\nx\n"), "#13 is not #130")
}

// bugAnswers are a bug's answers as the terminal showed them: the second command failed and the
// third shows the evidence on its fourth line; the fourth is never typed.
func bugAnswers() []bugAnswer {
	return []bugAnswer{
		{Args: []string{"call-tree", "python3 repro.py", "repro.py:main#1"}, Output: "tree: café\n", Time: 1500 * time.Millisecond},
		{Args: []string{"step-in", "python3 repro.py", "m.py:f#3"}, Output: "adi: cannot record the FLT of m:f#3\n", Time: 300 * time.Millisecond,
			Failed: "exited 1: adi: cannot record the FLT of m:f#3"},
		{Args: []string{"break", "python3 repro.py", "m.py:f#2"}, Output: "Frame: m:f#2\nArgs: x = 1\n\n  3 | return s\n", Time: 20 * time.Millisecond},
		{Args: []string{"continue"}, Output: "Frame: m:f#2\n  3 | return s\n", Time: time.Millisecond},
	}
}

// TestScoreBug checks the counting: characters (not bytes) of every answer until and including
// the first that shows the evidence, their time, the decisive line and the failures.
func TestScoreBug(t *testing.T) {
	d := Decisive{Frame: `f#2\b`, Line: `^\s*3 \| return s$`}
	r := scoreBug(d, bugAnswers())
	assert.Equal(t, 3, r.Commands)
	assert.Equal(t, []int{11, 36, 41}, r.PerAnswer, "é is one character")
	assert.Equal(t, 88, r.Chars)
	assert.Equal(t, 1820*time.Millisecond, r.Time)
	assert.True(t, r.Shown)
	assert.Equal(t, 4, r.Line)
	assert.True(t, r.Within())
	assert.Equal(t, []string{"`step-in 'python3 repro.py' 'm.py:f#3'` exited 1: adi: cannot record the FLT of m:f#3"}, r.Failed)
	assert.Len(t, r.Answers, 3)

	never := scoreBug(Decisive{Line: "nowhere"}, bugAnswers())
	assert.False(t, never.Shown)
	assert.Equal(t, 4, never.Commands)
	assert.Equal(t, 88+28, never.Chars)
	assert.False(t, never.Within())

	deep := scoreBug(Decisive{Line: "^deep$"}, []bugAnswer{{Output: strings.Repeat("x\n", 40) + "deep\n"}})
	assert.Equal(t, 41, deep.Line)
	assert.False(t, deep.Within(), "the 41st line is past the first 40")
}

// TestShellWords checks that commands are written back as they would be typed.
func TestShellWords(t *testing.T) {
	assert.Equal(t, `break 'python3 repro.py' m.py:f --condition "key == 'fallbacks'"`,
		shellWords([]string{"break", "python3 repro.py", "m.py:f", "--condition", "key == 'fallbacks'"}))
	assert.Equal(t, `continue ''`, shellWords([]string{"continue", ""}))
}

// TestRefAnswered checks the reference tool's answers: exit 0, or 1 with an answer before any
// error (a target that failed), but not an error first.
func TestRefAnswered(t *testing.T) {
	assert.True(t, refAnswered(cliResult{Output: "Frame: f#1\n"}))
	assert.True(t, refAnswered(cliResult{Code: 1, Output: "Frame: f#3\nArgs: x0 = [nan]\nError: Execution stopped due to uncaught StopIteration\n"}))
	assert.False(t, refAnswered(cliResult{Code: 1, Output: "[continue] Jumping to next call: f#105\n[continue] Executing: python3 repro.py\n\nError: Target frame was not reached\n"}))
	assert.False(t, refAnswered(cliResult{Code: 1, Output: "No FLT captured. Target frame may not have been reached.\n"}))
	assert.False(t, refAnswered(cliResult{Code: 1}))
}

// realBugFixture is two bugs: one that both tools showed (adi in more commands), one adi did not
// show; and the first again without the reference tool.
func realBugFixture() []*RealBugRow {
	d := Decisive{Frame: `f#2\b`, Line: `^\s*3 \| return s$`}
	shown := scoreBug(d, bugAnswers())
	ref := scoreBug(d, []bugAnswer{bugAnswers()[2]})
	ref.Time = 2 * time.Second
	notShown := scoreBug(Decisive{Line: "nowhere"}, bugAnswers()[:2])
	return []*RealBugRow{
		{Bug: RealBugs[0], ADI: shown, Ref: ref},
		{Bug: RealBugs[2], ADI: notShown, Ref: ref},
	}
}

// TestRealBugRows checks the table's rows, exactly.
func TestRealBugRows(t *testing.T) {
	rows := realBugFixture()
	assert.Equal(t, "| requests-1963 (psf__requests-1963) | `requests/sessions.py:SessionRedirectMixin.resolve_redirects` | 3 | 88 | 1.82 | line 4 of answer 3 (met) | 1 | 41 | 2.00 | line 4 of answer 1 (met) | 2.1x (not met) | not met |\n",
		realBugRow(rows[0]))
	assert.Equal(t, "| django-11880 (django__django-11880) | `django/forms/fields.py:Field.__deepcopy__` | 2 | 47 | 1.80 | not shown in 2 answers | 1 | 41 | 2.00 | line 4 of answer 1 (met) | — | not met |\n",
		realBugRow(rows[1]))
	rows[0].Ref = nil
	assert.Equal(t, "| requests-1963 (psf__requests-1963) | `requests/sessions.py:SessionRedirectMixin.resolve_redirects` | 3 | 88 | 1.82 | line 4 of answer 3 (met) | — | — | — | — | — | — |\n",
		realBugRow(rows[0]))

	// within the bar, and within the stretch
	cheap := realBugFixture()[0]
	cheap.ADI = scoreBug(Decisive{Line: "x"}, []bugAnswer{{Output: strings.Repeat("x", 20)}})
	assert.Contains(t, realBugRow(cheap), "| 0.49x (met) | met |")
	cheap.ADI = scoreBug(Decisive{Line: "x"}, []bugAnswer{{Output: strings.Repeat("x", 12)}})
	assert.Contains(t, realBugRow(cheap), "| 0.29x (met, stretch met) | met |")
}

// TestRealBugsMarkdown checks the whole section and its bars, exactly.
func TestRealBugsMarkdown(t *testing.T) {
	r := &Report{RealBugs: realBugFixture()}
	var b strings.Builder
	var bars []bar
	r.realBugs(&b, &bars)
	want := "### Real bugs: 2 reverted upstream fixes, each investigated with a fixed command sequence, adi against the reference tool\n\n" +
		realBugsIntro +
		"| bug | the bug's function | adi: commands | adi: characters | adi: seconds | adi: decisive line | reference: commands | reference: characters | reference: seconds | reference: decisive line | characters ÷ reference's (≤ 0.5x; stretch 0.3x) | commands ≤ reference's |\n" +
		"|---|---|---:|---:|---:|---|---:|---:|---:|---|---:|---|\n" +
		realBugRow(r.RealBugs[0]) + realBugRow(r.RealBugs[1]) +
		"\nCharacters per answer, in the order typed:\n\n" +
		"- requests-1963: adi 11 + 36 + 41 = 88; reference 41\n" +
		"- django-11880: adi 11 + 36 = 47 (the decisive evidence not shown); reference 41\n" +
		"\nCommands that did not answer:\n\n" +
		"- requests-1963, adi: `step-in 'python3 repro.py' 'm.py:f#3'` exited 1: adi: cannot record the FLT of m:f#3\n" +
		"- django-11880, adi: `step-in 'python3 repro.py' 'm.py:f#3'` exited 1: adi: cannot record the FLT of m:f#3\n\n"
	assert.Equal(t, want, b.String())

	var got strings.Builder
	for _, x := range bars {
		got.WriteString(x.what + " | " + x.bar + " | " + x.measured + " | " + x.met + "\n")
	}
	assert.Equal(t, `real bugs: adi shows the decisive evidence | on each bug | 1 of 2 (not: django-11880) | not met
real bugs: adi's decisive line within the first 40 lines of its answer | on each bug | 1 of 2 (not: django-11880) | not met
real bugs, the worst: characters until the decisive evidence ÷ the reference tool's | ≤ 0.5x on each bug (stretch 0.3x) | 2.1x (requests-1963); not shown by both: django-11880 | not met
real bugs: commands until the decisive evidence, no more than the reference tool's | on each bug | 0 of 2 (more on: requests-1963, django-11880) | not met
`, got.String())
}

// TestRealBugsWithoutReference checks that without the reference tool the section says how to
// provide it, in one line, and keeps only adi's bars.
func TestRealBugsWithoutReference(t *testing.T) {
	rows := realBugFixture()[:1]
	rows[0].Ref = nil
	r := &Report{RealBugs: rows}
	var b strings.Builder
	var bars []bar
	r.realBugs(&b, &bars)
	assert.Contains(t, b.String(), realBugsIntro+ReferenceSkipped+"\n\n| bug |")
	assert.Contains(t, b.String(), "- requests-1963: adi 11 + 36 + 41 = 88\n")
	require.Len(t, bars, 2)
	assert.Equal(t, "1 of 1", bars[0].measured)
	assert.Equal(t, "met", bars[1].met)
}

// TestRealBugsDefined checks every bug: its patch and reproduce script are embedded, its
// commands all run its reproduce script, and its decisive texts are regular expressions.
func TestRealBugsDefined(t *testing.T) {
	names := map[string]bool{}
	for _, b := range RealBugs {
		assert.False(t, names[b.Name], "two bugs named %s", b.Name)
		names[b.Name] = true
		patch, err := b.file("patch")
		require.NoError(t, err, b.Name)
		assert.Contains(t, string(patch), "--- a/"+b.Package+"/", b.Name)
		assert.Contains(t, string(patch), b.Instance, "the patch says which fix it undoes")
		repro, err := b.file("repro")
		require.NoError(t, err, b.Name)
		assert.Contains(t, string(repro), b.Instance, b.Name)
		require.NotEmpty(t, b.Steps, b.Name)
		for _, s := range b.Steps {
			assert.Equal(t, bugCommand, s[1], "%s: %v", b.Name, s)
		}
		_, err = regexp.Compile(b.Decisive.Line)
		assert.NoError(t, err, b.Name)
		_, err = regexp.Compile(b.Decisive.Frame)
		assert.NoError(t, err, b.Name)
	}
}

// TestAsPrinted checks that the bug's directory reads as /testbed, wherever it is named.
func TestAsPrinted(t *testing.T) {
	dir := "/tmp/adi-bench-123/realbugs/sympy-18189"
	assert.Equal(t, "Frame: /testbed/sympy/core/basic.py:Basic.__eq__#2\n  -> /testbed/repro.py:main#1 (cwd /testbed)",
		asPrinted("Frame: "+dir+"/sympy/core/basic.py:Basic.__eq__#2\n  -> "+dir+"/repro.py:main#1 (cwd "+dir+")", dir))
}
