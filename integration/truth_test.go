package integration

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/bridge"
)

// TestEngineTruth checks the answers of issue 13 ("FLT truth") on a real run of truth.py: a
// one-line loop shows each iteration, an exception escaping a try/finally names the raising line,
// generators closed by close(), garbage collection and the interpreter's exit read as closed at
// their yield, a property's setter is a function of its own (also for the line form), and writes
// through a global statement are changes. Eager FLTs are off: their snapshot of main's variables
// keeps the collected generator alive until main's next step.
func TestEngineTruth(t *testing.T) {
	s := newSession(t, workdir(t, "truth.py"), "python truth.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	for _, c := range []struct{ line, want string }{
		{"flt add_all#1", "Frame: truth:add_all#1   (caller truth:main#1, line 55)\nArgs: seen = [5, 6]\n\n" +
			"   9 | total = 0\n     |   + total = 0\n" +
			"  10 | for y in seen: total += y\n     |   ~ total = 5 (was 0)\n     |   + y = 5\n" +
			"  10 | for y in seen: total += y\n     |   ~ total = 11 (was 5)\n     |   ~ y = 6 (was 5)\n" +
			"  10 | for y in seen: total += y\n  11 | return total\n\nReturn: 11\n"},
		{"flt risky#1", "Frame: truth:risky#1   (caller truth:main#1, line 57)\nArgs: x = 0\n\n" +
			"  15 | try:\n  16 | y = 10 // x\n     |   ! raised ZeroDivisionError: integer division or modulo by zero\n" +
			"  18 | x = -1\n     |   ~ x = -1 (was 0)\n\n" +
			"Raised: ZeroDivisionError: integer division or modulo by zero at line 16\n"},
		{"flt gen#1", "Frame: truth:gen#1   (caller truth:main#1, line 61)\nArgs: (none)\n\n" +
			"  22 | try:\n  23 | yield 1\n     |   ⏸ yield 1\n  23 | yield 1\n     |   ▶ resumed\n     |   ! raised GeneratorExit\n" +
			"  26 | done = True\n     |   + done = True\n\n" +
			"Closed (GeneratorExit) at line 23  (a generator; it suspended 1 time(s))\n"},
		{"flt gen#3", "Frame: truth:gen#3   (caller truth:main#1, line 67)\nArgs: (none)\n\n" +
			"  22 | try:\n  23 | yield 1\n     |   ⏸ yield 1\n\n" +
			"Closed (GeneratorExit) at line 23  (a generator; it suspended 1 time(s))\n"},
		{"flt bump#1", "Frame: truth:bump#1   (caller truth:main#1, line 72)\nArgs: k = 2\n\n" +
			"  48 | COUNTER += k\n     |   ~ COUNTER = 5 (was 3)  (global)\n" +
			"  49 | FRESH = k\n     |   + FRESH = 2  (global)\n" +
			"  50 | del FRESH\n     |   - FRESH  (global)\n" +
			"  51 | return COUNTER\n\nReturn: 5\n"},
	} {
		assert.Equal(t, c.want, do(t, s, c.line).Text, c.line)
	}
	tree := do(t, s, "call-tree main#1 --depth 1").Text
	for _, want := range []string{
		"  truth:gen#1() → yielded 1 (last 1), then closed (GeneratorExit) at line 23\n",
		"  truth:gen#2() → yielded 1 (last 1), then closed (GeneratorExit) at line 23\n",
		"  truth:gen#3() → yielded 1 (last 1), then closed (GeneratorExit) at line 23\n",
		"  truth:Account.doubled.fset#1(self=Account(balance=3), value=10) → None\n" +
			"  truth:Account.doubled#1(self=Account(balance=5)) → 10\n" +
			"  truth:Account.doubled.fdel#1(self=Account(balance=5)) → None\n",
	} {
		assert.Contains(t, tree, want)
	}
	// The line form picks the code object defined there: line 37 is the setter's decorator.
	setter := do(t, s, "flt truth.py:37#1").Text
	assert.Equal(t, "Frame: truth:Account.doubled.fset#1   (caller truth:main#1, line 69)", strings.SplitN(setter, "\n", 2)[0])
	getter := do(t, s, "flt truth.py:33#1").Text
	assert.Equal(t, "Frame: truth:Account.doubled#1   (caller truth:main#1, line 70)", strings.SplitN(getter, "\n", 2)[0])
}
