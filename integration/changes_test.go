package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/adi-bridge/adi/bridge"
)

// TestTruthExecNestedScopes runs statements with a comprehension, a generator expression and a
// lambda in a frame: they see the frame's locals, with and without debugpy.
func TestTruthExecNestedScopes(t *testing.T) {
	s := newSession(t, workdir(t), "python orders.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	assert.Equal(t, "Exec at orders:bulk_rate#3, line 16, visit 1: [qty * i for i in range(3)], sum(rate for _ in 'ab'), (lambda: qty)()\n"+
		"Output: (none)\nValue: ([0, 10, 20], 0.3, 10)\n",
		do(t, s, "exec bulk_rate#3 -l 16 [qty * i for i in range(3)], sum(rate for _ in 'ab'), (lambda: qty)()").Text)
	ans := do(t, s, "exec bulk_rate#3 -l 16 --then-continue qty = max([qty + i for i in range(2)])")
	require.Contains(t, ans.Text, "Then continued: the frame returned 0.15;")
}

// TestTruthChangePaths shows what a statement changed by its path, with old and new values:
// changes past the repr limit, in a bytearray, in a C object, in an object's attributes, and a
// rebinding to an equal new object. Objects without a __repr__ of their own show their attributes.
func TestTruthChangePaths(t *testing.T) {
	s := newSession(t, workdir(t, "changes.py"), "python changes.py")
	assert.Equal(t, `Frame: changes:changes#1   (caller changes:<module>#1, line 25)
Args: (none)

  11 | l300 = list(range(300))
     |   + l300 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24… (len=300)
  12 | l300[-1] = -1
     |   ~ l300[299] = -1 (was 299)
  13 | buf = bytearray(20)
     |   + buf = bytearray(b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00')
  14 | buf[5] = 1
     |   ~ buf[5] = 1 (was 0)
  15 | c = itertools.count()
     |   + c = count(0)
  16 | next(c)
     |   ~ c = count(1) (was count(0))
  17 | p = Plain()
     |   + p = Plain(items=[1], count=0)
     |   → changes:Plain.__init__#1 → None
  18 | p.items.append(2)
     |   ~ p.items: appended 2
  19 | p.count += 1
     |   ~ p.count = 1 (was 0)
  20 | y = [1]
     |   + y = [1]
  21 | y = [1]
     |   ~ y = [1] (a new object, equal to the old)
  22 | return len(l300)

Return: 300
`, do(t, s, "flt changes#1").Text)
}

// TestTruthBranchOutcomes shows what each if, elif, while and assert line decided.
func TestTruthBranchOutcomes(t *testing.T) {
	s := newSession(t, workdir(t, "changes.py"), "python changes.py")
	assert.Equal(t, `Frame: changes:branches#1   (caller changes:<module>#1, line 39)
Args: x = 0

  29 | if x > 1:  → False
  31 | elif x > 0:  → False
  33 | while x < 2:  → True
  34 | x += 1
     |   ~ x = 1 (was 0)
  33 | while x < 2:  → True
  34 | x += 1
     |   ~ x = 2 (was 1)
  33 | while x < 2:  → False
  35 | assert x == 2  → True
  36 | return x

Return: 2
`, do(t, s, "flt branches#1").Text)
}
