package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// pyenvVersions are the interpreters adi supports that pyenv installs on these machines (3.6 to
// 3.13: README's Requirements); TestCLIPythonVersions runs the demo on each one present.
var pyenvVersions = []string{"3.6.15", "3.7.16", "3.8.18", "3.9.18", "3.10.13", "3.11.7", "3.12.1", "3.13.0"}

// The demo's answers (TestCLIPythonVersions), the same on every supported interpreter.
const demoBreak = `break → orders:bulk_rate#3  (breakpoint on every call; adi continue moves to the next)

Frame: orders:bulk_rate#3   (caller orders:line_total#3, line 22)
Args: qty = 10, rate = 0.15

  16 | if qty > BULK_QUANTITY:  → False
  18 | return 0.0

Return: 0.0
`

const demoStepOut = `step-out → orders:line_total#3  (the caller of orders:bulk_rate#3, at line 22)

Frame: orders:line_total#3   (caller orders:price_items#1, line 31)
Args: item = {'name': 'melon', 'qty': 10, 'price': 2.0}, rules = {'apple': 0.1, 'melon': 0.15}

  22 | rate = bulk_rate(item["qty"], rules.get(item["name"], 0.0))
     |   + rate = 0.0
     |   → orders:bulk_rate#3 → 0.0
  23 | subtotal = item["qty"] * item["price"]
     |   + subtotal = 20.0
  24 | discount = subtotal * rate
     |   + discount = 0.0
  25 | return round(subtotal - discount, 2)

Return: 20.0
`

const demoCallTree = `Call tree of orders:line_total#3 (depth 4, width 10):
orders:line_total#3(item={'name': 'melon', 'qty': 10, 'price': 2…, rules={'apple': 0.1, 'melon': 0.…) → 20.0
  orders:bulk_rate#3(qty=10, rate=0.15) → 0.0
`

const demoExec = `Exec at orders:bulk_rate#3, line 16, visit 1: qty, BULK_QUANTITY, qty > BULK_QUANTITY
Output: (none)
Value: (10, 10, False)
`

// TestCLIPythonVersions records the demo program with each pyenv interpreter present (SWE-bench's
// environments pin 3.6 and 3.7 for older django and scikit-learn) and checks the demo's answers:
// recording, FLTs, navigation and exec. An interpreter outside the supported range (pyenv's 2.7)
// gets one line naming its version and the range, before anything runs, for recording, exec
// --then-continue and live mode alike.
func TestCLIPythonVersions(t *testing.T) {
	dir := demoDir(t)
	r := newCLI(t, dir)
	ran := 0
	for _, v := range pyenvVersions {
		py := filepath.Join("/root/.pyenv/versions", v, "bin", "python3")
		t.Run(v, func(t *testing.T) {
			if _, err := os.Stat(py); err != nil {
				t.Skipf("%s is not installed", py)
			}
			ran++
			cmd := py + " orders.py"
			res := r.run("break", cmd, "orders.py:bulk_rate#3")
			require.Equal(t, 0, res.code, res.stderr)
			assert.Equal(t, demoBreak, res.stdout)
			assert.Regexp(t, "^adi: recorded `"+regexp.QuoteMeta(cmd)+"`: 12 call\\(s\\) in \\d+ ms, exit status 0 \\(session cli-[0-9a-f]{12}\\)\n$", res.stderr)

			res = r.run("step-out")
			require.Equal(t, 0, res.code, res.stderr)
			assert.Equal(t, demoStepOut, res.stdout)

			res = r.run("call-tree", cmd, "--depth", "4")
			require.Equal(t, 0, res.code, res.stderr)
			assert.Equal(t, demoCallTree, res.stdout)

			res = r.run("exec", cmd, "orders.py:bulk_rate#3", "-l", "16", "-s", "qty, BULK_QUANTITY, qty > BULK_QUANTITY")
			require.Equal(t, 0, res.code, res.stderr)
			assert.Equal(t, demoExec, res.stdout)
		})
	}
	if ran == 0 {
		t.Skip("no pyenv interpreter is installed")
	}

	t.Run("2.7", func(t *testing.T) {
		py := "/root/.pyenv/versions/2.7.18/bin/python"
		if _, err := os.Stat(py); err != nil {
			t.Skipf("%s is not installed", py)
		}
		want := fmt.Sprintf("adi: python 2.7.18 (%s) is not supported: adi runs Python 3.6 to 3.13; choose another interpreter\n", py)
		for _, args := range [][]string{
			{"break", py + " orders.py", "orders.py:bulk_rate#3"},                                                 // the probe's run script says so
			{"exec", py + " orders.py", "orders.py:bulk_rate#3", "-l", "16", "--then-continue", "-s", "qty = 11"}, // the debugpy check
			{"live", "start", py + " orders.py"},
		} {
			res := r.run(args...)
			assert.Equal(t, 1, res.code, args)
			assert.Empty(t, res.stdout, args)
			assert.Equal(t, want, res.stderr, args)
		}
	})
}

// TestMonitoringReRunIsWholeProgram: on Python 3.12+ the probe's sys.monitoring engine records
// every function in a re-run asked to record some only; the replay check compares that re-run
// with the whole recording, so a re-run (here step-out's, eager FLTs off, as a loaded machine's
// first run may leave them) is not said to differ from it.
func TestMonitoringReRunIsWholeProgram(t *testing.T) {
	py := "/root/.pyenv/versions/3.12.1/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skipf("%s is not installed", py)
	}
	s := newSession(t, workdir(t), py+" orders.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	do(t, s, "step-into orders:bulk_rate#3")
	runs := runCount(t, s)
	assert.Equal(t, demoStepOut, do(t, s, "step-out").Text)
	assert.Equal(t, runs+1, runCount(t, s), "step-out's FLT cost one re-run")
}
