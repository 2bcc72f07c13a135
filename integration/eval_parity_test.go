package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/adi"
	"github.com/adi-bridge/adi/bridge"
	"github.com/adi-bridge/adi/live"
)

// evalProgram is paused at line 11 (before `return`) in total, by exec and by live interact.
const evalProgram = `TAX = 5


def helper(x):
    return 10 // x


def total(items):
    rate = 2
    s = sum(items)
    return s * rate + TAX


print(total([1, 2, 3]))
`

// evalAnswer is what exec and interact have in common: the evaluator's answer and its text.
type evalAnswer struct {
	Output    string
	Value     *string
	Exception *adi.Exception
	Traceback []string
	Changed   [][2]string
	Text      []string // the answer's lines after its head: Output, Changed, Raised (and traceback) or Value
}

// answerLines are the lines of an exec or interact text from "Output" (or "Changed") on, up to
// the first line that is not the evaluator's.
func answerLines(text string) []string {
	var out []string
	for i, l := range strings.Split(text, "\n") {
		if i == 0 {
			continue // the head says where it ran: exec and interact differ
		}
		if l == "" || strings.HasPrefix(l, "The exception stayed inside interact") || strings.HasPrefix(l, "Then continued:") {
			break
		}
		out = append(out, strings.TrimSuffix(l, " (the program runs on with the new values)"))
	}
	return out
}

func execAnswerOf(ans *bridge.Answer) evalAnswer {
	r := ans.Result.(*adi.ExecResult)
	a := evalAnswer{Output: r.Output, Value: r.Value, Exception: r.Exception, Traceback: r.Traceback, Text: answerLines(ans.Text)}
	for _, c := range r.Changed {
		a.Changed = append(a.Changed, [2]string{c.Name, c.Value})
	}
	return a
}

func interactAnswerOf(t *testing.T, ans *live.Answer) evalAnswer {
	r := interactResult(t, ans)
	a := evalAnswer{Output: r.Output, Value: r.Value, Exception: r.Exception, Traceback: r.Traceback, Text: answerLines(ans.Text)}
	for _, c := range r.Changed {
		a.Changed = append(a.Changed, [2]string{c.Name, c.Value})
	}
	return a
}

// TestExecAndLiveInteractAnswerAlike runs the same statements with `adi exec FRAME -l LINE -s
// STMT` (the probe alone, and under debugpy with --then-continue) and with `adi live interact` in
// the same frame at the same line: one evaluator (probe/python/adi_probe/evaluate.py) gives the
// same answer, field by field and line by line.
func TestExecAndLiveInteractAnswerAlike(t *testing.T) {
	le := newLiveEnv(t)
	require.NoError(t, os.WriteFile(filepath.Join(le.dir, "evalme.py"), []byte(evalProgram), 0o644))
	es := newSession(t, le.dir, "python evalme.py")
	ls, _ := le.start(t, "python evalme.py", 5*time.Second)
	lv(t, ls, bp("evalme.py:11"))
	require.Equal(t, "paused at breakpoint evalme.py:11 in total (hit 1)", lv(t, ls, cont).Why)

	helperLine := filepath.Join(le.dir, "evalme.py") + ":5 in helper: return 10 // x"
	str := func(s string) *string { return &s }
	cases := []struct {
		stmt string
		want evalAnswer
	}{
		{"s * 10", evalAnswer{Value: str("60"), Text: []string{"Output: (none)", "Value: 60"}}},
		{"x = s + 1; x", evalAnswer{Value: str("7"), Changed: [][2]string{{"x", "7"}}, Text: []string{"Changed: x = 7", "Value: 7"}}},
		{"None", evalAnswer{Text: []string{"Output: (none)"}}},
		{"print('s is', s)", evalAnswer{Output: "s is 6\n", Text: []string{"Output:", "  s is 6"}}},
		{"[s * i for i in range(3)], (lambda: rate)()", evalAnswer{Value: str("([0, 6, 12], 2)"), Text: []string{"Output: (none)", "Value: ([0, 6, 12], 2)"}}},
		{"y = [rate for _ in 'ab']", evalAnswer{Changed: [][2]string{{"y", "[2, 2]"}}, Text: []string{"Changed: y = [2, 2]"}}},
		{"print('before')\nhelper(0)", evalAnswer{Output: "before\n",
			Exception: &adi.Exception{Type: "ZeroDivisionError", Message: "integer division or modulo by zero", Line: 2},
			Traceback: []string{"statement line 2: helper(0)", helperLine},
			Text: []string{"Output:", "  before", "Raised: ZeroDivisionError: integer division or modulo by zero",
				"  statement line 2: helper(0)", "  " + helperLine}}},
		{"x = = 1", evalAnswer{Exception: &adi.Exception{Type: "SyntaxError", Message: "invalid syntax", Line: 1},
			Traceback: []string{"statement line 1: x = = 1"},
			Text:      []string{"Output: (none)", "Raised: SyntaxError: invalid syntax", "  statement line 1: x = = 1"}}},
		// Last: the module's TAX changes for the rest of the live run.
		{"TAX = 0", evalAnswer{Changed: [][2]string{{"TAX", "0"}}, Text: []string{"Changed: TAX = 0"}}},
	}
	for _, c := range cases {
		exec := execAnswerOf(do(t, es, "exec total#1 -l 11 "+c.stmt))
		inter := interactAnswerOf(t, lv(t, ls, interact(c.stmt)))
		assert.Equal(t, c.want, exec, "exec %q", c.stmt)
		assert.Equal(t, c.want, inter, "live interact %q", c.stmt)
	}
	// The module global reached the module: the program's module frame sees it, and total returns 12.
	assert.Equal(t, "0", value(t, lv(t, ls, live.Cmd{Name: live.CmdInteract, Code: "TAX", Frame: 1})))
	ans := lv(t, ls, cont)
	assert.Equal(t, "12\n", ans.Output.Stdout)

	// Under debugpy (exec --then-continue) the same evaluator answers too.
	then := do(t, es, "exec total#1 -l 11 --then-continue TAX = 0")
	assert.Equal(t, evalAnswer{Changed: [][2]string{{"TAX", "0"}}, Text: []string{"Changed: TAX = 0"}}, execAnswerOf(then))
	assert.Contains(t, then.Text, "Then continued: the frame returned 12;")
}
