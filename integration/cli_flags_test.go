package integration

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCLIReferenceFlags runs the reference CLI's flags on the demo program and checks the FLTs
// they give: --if-eval-lineno (a condition on a local in the middle of the function; the FLT
// marks where it held), --full-watch, --on-return with and without _return, --loop and
// --loop-index; a conditional break shows its first match, and an unconditional one hints
// towards prev when its matches all ran before the frame under inspection.
func TestCLIReferenceFlags(t *testing.T) {
	r := newCLI(t, demoDir(t))
	cmd := "python orders.py"

	res := r.run("break", cmd, "orders.py:line_total", "--cond", "rate == 0.0", "--if-eval-lineno", "24", "--full-watch", "rate,discount")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `break → orders:line_total#2  (the first of 2 invocations where the condition held; adi continue moves to the next)

Frame: orders:line_total#2   (caller orders:price_items#1, line 31)
Args: (none watched)
Watching: rate, discount (the other variables are not shown)

  22 | rate = bulk_rate(item["qty"], rules.get(item["name"], 0.0))
     |   + rate = 0.0
     |   → orders:bulk_rate#2 → 0.0
  23 | subtotal = item["qty"] * item["price"]
  24 | discount = subtotal * rate   ◀ the condition held here (visit 1 of line 24; adi exec -l 24 -k 1 runs a statement here)
     |   + discount = 0.0
  25 | return round(subtotal - discount, 2)

Return: 3.6
`, res.stdout)

	res = r.run("continue", "--full-watch", "rate,discount")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `continue → orders:line_total#3  (breakpoint orders:line_total if rate == 0.0 at line 24; hit 2 of 2)

Frame: orders:line_total#3   (caller orders:price_items#1, line 31)
Args: (none watched)
Watching: rate, discount (the other variables are not shown)

  22 | rate = bulk_rate(item["qty"], rules.get(item["name"], 0.0))
     |   + rate = 0.0
     |   → orders:bulk_rate#3 → 0.0
  23 | subtotal = item["qty"] * item["price"]
  24 | discount = subtotal * rate   ◀ the condition held here (visit 1 of line 24; adi exec -l 24 -k 1 runs a statement here)
     |   + discount = 0.0
  25 | return round(subtotal - discount, 2)

Return: 20.0
`, res.stdout)

	res = r.run("clear")
	require.Equal(t, 0, res.code, res.stderr)
	res = r.run("break", cmd, "orders.py:bulk_rate", "--on-return", "-c", "_return == 0.0", "--full-watch", "rate")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `break → orders:bulk_rate#2  (the first of 2 invocations where the condition held; adi continue moves to the next)

Frame: orders:bulk_rate#2   (caller orders:line_total#2, line 22)
Args: rate = 0.0
Watching: rate (the other variables are not shown)

  16 | if qty > BULK_QUANTITY:  → False
  18 | return 0.0

Return: 0.0
`, res.stdout)
	res = r.run("continue")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "continue → orders:bulk_rate#3  (breakpoint orders:bulk_rate if _return == 0.0; hit 2 of 2)\n"), res.stdout)

	// an unconditional breakpoint lists its matches without moving; here they all ran before
	res = r.run("break", cmd, "orders.py:line_total")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "Breakpoint set: orders:line_total  (every call); orders:line_total was called 3 time(s); 2 breakpoint(s) in all.\n"+
		"Matches 3 invocation(s): orders:line_total#1, orders:line_total#2, orders:line_total#3. They ran before the frame under inspection (orders:bulk_rate#3), so adi continue finds none. Next: adi prev.\n", res.stdout)
	res = r.run("prev")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "prev → orders:line_total#3  (breakpoint orders:line_total; hit 4 of 5)\n"), res.stdout)

	// rate is a local of line_total, bound only after its entry: --on-return checks it at exit
	res = r.run("clear", cmd, "orders.py:line_total")
	require.Equal(t, 0, res.code, res.stderr)
	res = r.run("break", cmd, "orders.py:line_total", "--on-return", "-c", "rate == 0.0", "--full-watch", "rate")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "break → orders:line_total#2  (the first of 2 invocations where the condition held; adi continue moves to the next)\n\n"+
		"Frame: orders:line_total#2   (caller orders:price_items#1, line 31)\n"), res.stdout)
	res = r.run("continue")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "continue → orders:bulk_rate#2  (breakpoint orders:bulk_rate if _return == 0.0; hit 2 of 4)\n"), res.stdout)
	res = r.run("continue")
	require.Equal(t, 0, res.code, res.stderr)
	assert.True(t, strings.HasPrefix(res.stdout, "continue → orders:line_total#3  (breakpoint orders:line_total if rate == 0.0 on return; hit 3 of 4)\n"), res.stdout)

	res = r.run("flt", cmd, "orders.py:price_items#1", "--loop", "1")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Frame: orders:price_items#1   (caller orders:invoice#1, line 37)
Args: items = [{'name': 'apple', 'qty': 12, 'price': 0.5}, {'name': 'pear', 'qty': 3, 'price': 1.2}, {'name': 'me…, rules = {'apple': 0.1, 'melon': 0.15}

  29 | totals = []
     |   + totals = []
  30 | for item in items:   [iteration 1]
     |   + item = {'name': 'apple', 'qty': 12, 'price': 0.5}
  31 | totals.append(line_total(item, rules))
     |   ~ totals: appended 5.4
     |   → orders:line_total#1 → 5.4
     ┆ … iterations 2–4 of line 30 folded (3 iterations, 2 different paths; changing: item, totals; calls: line_total ×2)
  32 | return totals

Return: [5.4, 3.6, 20.0]
`, res.stdout)

	res = r.run("flt", "orders.py:price_items#1", "--loop-index", "3", "--full-watch", "totals")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Frame: orders:price_items#1   (caller orders:invoice#1, line 37)
Args: (none watched)
Watching: totals (the other variables are not shown)

  29 | totals = []
     |   + totals = []
     ┆ … iterations 1–2 of line 30 folded (2 iterations, same path; changing: totals; calls: line_total ×2)
  30 | for item in items:   [iteration 3]
  31 | totals.append(line_total(item, rules))
     |   ~ totals: appended 20.0
     |   → orders:line_total#3 → 20.0
     ┆ … iteration 4 of line 30 folded (1 iteration, same path; changing: nothing)
  32 | return totals

Return: [5.4, 3.6, 20.0]
`, res.stdout)
	// the loop named by its header's line: the same, as price_items has one loop
	named := r.run("flt", "orders.py:price_items#1", "--loop-index", "30:3", "--full-watch", "totals")
	require.Equal(t, 0, named.code, named.stderr)
	assert.Equal(t, res.stdout, named.stdout)
}

// TestCLIAllowExternal breaks in a standard-library function: refused with the hint, then
// recorded with --allow-external, and its FLT shown.
func TestCLIAllowExternal(t *testing.T) {
	dir := t.TempDir()
	writeProgram(t, dir, "words.py", `import string


def main():
    title = string.capwords("hello big world")
    return title


print(main())
`)
	out, err := exec.Command(needPython(t).Path, "-c", "import string; print(string.__file__)").Output()
	require.NoError(t, err)
	lib := strings.TrimSpace(string(out))
	r := newCLI(t, dir)
	cmd := "python words.py"

	res := r.run("break", cmd, lib+":capwords")
	assert.Equal(t, 1, res.code)
	assert.True(t, strings.HasSuffix(res.stderr, "adi: "+lib+" is library code (the standard library or site-packages), which is not recorded; to record it, pass --allow-external (over JSON-RPC or MCP: include it in the session, e.g. include: [\""+lib+"\"])\n"), res.stderr)

	res = r.run("break", cmd, lib+":capwords#1", "--allow-external")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Contains(t, res.stderr, "adi: recorded `python words.py`: ", "the target is recorded again, with the library file")
	stmtLine := capwordsReturnLine(t, lib)
	assert.Equal(t, `break → string:capwords#1  (breakpoint on every call; adi continue moves to the next)

Frame: string:capwords#1   (caller words:main#1, line 5)
Args: s = 'hello big world', sep = None

  `+stmtLine+` | return (sep or ' ').join(map(str.capitalize, s.split(sep)))

Return: 'Hello Big World'
`, res.stdout)

	res = r.run("step-out", cmd)
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, "", res.stderr, "the recording with the library file is reused")
	assert.True(t, strings.HasPrefix(res.stdout, "step-out → words:main#1  (the caller of string:capwords#1, at line 5)\n"), res.stdout)
}

// capwordsReturnLine finds the line of capwords' return statement in this Python's string.py.
func capwordsReturnLine(t *testing.T, lib string) string {
	t.Helper()
	b, err := os.ReadFile(lib)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "def capwords(") {
			in = true
		}
		if in && strings.Contains(l, "return (sep or ' ').join(") {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("no capwords return line in %s", lib)
	return ""
}
