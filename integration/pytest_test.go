package integration

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addresses matches the object addresses pytest writes into assertion messages.
var addresses = regexp.MustCompile(`0x[0-9a-f]+`)

// TestPytestTarget records a real pytest run (one failing test, two passing invocations of a
// parametrized test method) and checks the default call tree (text and JSON), the recording line,
// and commands given pytest node ids.
func TestPytestTarget(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Fatalf("this test needs pytest for /usr/bin/python3 (python3-pytest): run `make test-deps`: %v", err)
	}
	dir := t.TempDir()
	for _, name := range []string{"cart.py", "test_cart.py"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), mustRead(t, testdata(t, "pytest"), name), 0o644))
	}
	r := newCLI(t, dir)
	r.env = append(r.env, "PYTHONDONTWRITEBYTECODE=1")
	cmd := "/usr/bin/python3 -m pytest test_cart.py -q -p no:cacheprovider"

	res := r.run("call-tree", cmd)
	assert.Equal(t, 1, res.code, "pytest exits 1: a test failed")
	assert.Regexp(t, "^adi: recorded `"+regexp.QuoteMeta(cmd)+"`: 11 call\\(s\\) in \\d+ ms, exit status 1; tests: 1 failed, 2 passed \\(session cli-[0-9a-f]+\\)\n"+
		"adi: the target command failed \\(exit status 1\\); the answer above is still valid\n$", res.stderr)
	assert.Equal(t, `Tests: 1 failed, 2 passed
  FAILED test_cart:test_total#1 → AssertionError: assert 29.0 == 27.0
  passed test_cart:TestLine.test_line#1 [1-2.0] → None
  passed test_cart:TestLine.test_line#2 [20-1.0] → None
Call tree of the run: 4 entry frames, failing tests first, then the other tests (depth 2, width 10):
test_cart:test_total#1() → raised AssertionError: assert 29.0 == 27.0\n +  where 29.0 = <function total at 0x…>([(10, 2.0), (3, 3.0)], 0.1)\n +    where <function total at 0x…> = cart.total
  cart:total#1(items=[(10, 2.0), (3, 3.0)], rate=0.1) → 29.0
    cart:line_total#1(qty=10, price=2.0, rate=0.1) → 20.0
    cart:line_total#2(qty=3, price=3.0, rate=0.1) → 9.0
test_cart:TestLine.test_line#1(self, qty=1, price=2.0) → None
  cart:line_total#3(qty=1, price=2.0, rate=0.0) → 2.0
test_cart:TestLine.test_line#2(self, qty=20, price=1.0) → None
  cart:line_total#4(qty=20, price=1.0, rate=0.0) → 20.0
… the test runner imported test_cart: 3 calls (call-tree test_cart:<module>#1 shows them)
`, addresses.ReplaceAllString(res.stdout, "0x…"))

	res = r.run("call-tree", cmd, "--json", "--depth", "1")
	assert.Equal(t, 1, res.code, res.stderr)
	var ans struct {
		Result struct {
			Roots []struct {
				FID string `json:"fid"`
			} `json:"roots"`
			EntryFrames     int             `json:"entry_frames"`
			ImportRoots     json.RawMessage `json:"import_roots"`
			ImportRootCalls int             `json:"import_root_calls"`
			TestCounts      json.RawMessage `json:"test_counts"`
			Tests           json.RawMessage `json:"tests"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &ans), res.stdout)
	var roots []string
	for _, n := range ans.Result.Roots {
		roots = append(roots, n.FID)
	}
	assert.Equal(t, []string{"test_cart:test_total#1", "test_cart:TestLine.test_line#1", "test_cart:TestLine.test_line#2"}, roots)
	assert.Equal(t, 4, ans.Result.EntryFrames)
	assert.JSONEq(t, `[{"func": "test_cart:<module>", "count": 1, "first": "test_cart:<module>#1"}]`, string(ans.Result.ImportRoots))
	assert.Equal(t, 3, ans.Result.ImportRootCalls, "the test file's body, the import of cart and the class body of TestLine")
	assert.JSONEq(t, `{"failed": 1, "passed": 2}`, string(ans.Result.TestCounts))
	assert.JSONEq(t, `[
		{"fid": "test_cart:test_total#1", "frame": 3, "node_id": "test_cart.py::test_total", "status": "failed", "outcome": "AssertionError: assert 29.0 == 27.0"},
		{"fid": "test_cart:TestLine.test_line#1", "frame": 7, "node_id": "test_cart.py::TestLine::test_line[1-2.0]", "status": "passed", "outcome": "None"},
		{"fid": "test_cart:TestLine.test_line#2", "frame": 9, "node_id": "test_cart.py::TestLine::test_line[20-1.0]", "status": "passed", "outcome": "None"}]`, string(ans.Result.Tests))

	res = r.run("break", cmd, "test_cart.py::test_total")
	assert.Equal(t, "Breakpoint set: test_cart:test_total  (every call); test_cart:test_total was called 1 time(s); 1 breakpoint(s) in all.\n"+
		"Matches 1 invocation(s): test_cart:test_total#1. Next: adi continue.\n", res.stdout)

	res = r.run("flt", cmd, "test_cart.py::TestLine::test_line[20-1.0]")
	assert.Equal(t, `Frame: test_cart:TestLine.test_line#2   (entry frame)
Args: self = <test_cart.TestLine object at 0x…>, qty = 20, price = 1.0

  13 | assert cart.line_total(qty, price, 0.0) == qty * price  → True
     |   → cart:line_total#4 → 20.0

Return: None
`, res.stdout)

	res = r.run("flt", cmd, filepath.Join(dir, "test_cart.py")+"::test_total")
	assert.Regexp(t, "^Frame: test_cart:test_total#1   \\(entry frame\\)\nArgs: \\(none\\)\n\n   7 \\| assert cart.total", res.stdout)
	runs, err := filepath.Glob(filepath.Join(r.state, "sessions", "*", "runs", "*"))
	require.NoError(t, err)
	assert.Len(t, runs, 1, "the tests' FLTs come with the first recording (trace_tests): %v", runs)

	res = r.run("list-frames", cmd, "test_cart.py::TestLine::test_line[9-1.0]")
	assert.Equal(t, 1, res.code, "a function command refuses a parametrize id")
	assert.Equal(t, `adi: adi list-frames: param "FUNC": test_cart.py::TestLine::test_line[9-1.0] names a frame, but this method takes a function (drop the [9-1.0])`+"\n", res.stderr)
	res = r.run("step-in", cmd, "test_cart.py::TestLine::test_line[9-1.0]")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, `adi: "test_cart.py::TestLine::test_line[9-1.0]": no test test_cart:TestLine.test_line ran with pytest's id [9-1.0]; `+
		"the ids pytest gave it: test_cart:TestLine.test_line#1 [1-2.0], test_cart:TestLine.test_line#2 [20-1.0]\n", res.stderr)
	res = r.run("flt", cmd, "test_cart.py::test_totl")
	assert.Equal(t, 1, res.code)
	assert.Regexp(t, "adi: no function \"test_cart.py::test_totl\" in the recording; closest: test_cart:test_total\n", res.stderr)
}

// idTests is a test file whose parametrize ids are given by hand, which no argument spells.
var idTests = `import pytest


@pytest.mark.parametrize("rate", [0.0, 0.5, 0.25], ids=["free", "half", "quarter"])
def test_rate(rate):
    assert round(10 * (1 - rate)) == 10 * (1 - rate)
`

// TestPytestNodeIDs: the probe records the node id pytest gave each test it called, so an id
// given by hand names its invocation exactly, the test listing shows it, and an id pytest did not
// give is refused with the ones it gave.
func TestPytestNodeIDs(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-c", "import pytest").Run(); err != nil {
		t.Fatalf("this test needs pytest for /usr/bin/python3 (python3-pytest): run `make test-deps`: %v", err)
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_ids.py"), []byte(idTests), 0o644))
	r := newCLI(t, dir)
	r.env = append(r.env, "PYTHONDONTWRITEBYTECODE=1")
	cmd := "/usr/bin/python3 -m pytest test_ids.py -q -p no:cacheprovider"

	res := r.run("call-tree", cmd, "--depth", "1")
	assert.Equal(t, 1, res.code, res.stderr)
	assert.Equal(t, `Tests: 1 failed, 2 passed
  FAILED test_ids:test_rate#3 [quarter] → AssertionError: assert 8 == (10 * (1 - 0.25))
  passed test_ids:test_rate#1 [free] → None
  passed test_ids:test_rate#2 [half] → None
Call tree of the run: 4 entry frames, failing tests first, then the other tests (depth 1, width 10):
test_ids:test_rate#3(rate=0.25) → raised AssertionError: assert 8 == (10 * (1 - 0.25))\n +  where 8 = round((10 * (1 - 0.25)))
test_ids:test_rate#1(rate=0.0) → None
test_ids:test_rate#2(rate=0.5) → None
… the test runner imported test_ids: 1 call (call-tree test_ids:<module>#1 shows it)
`, res.stdout)

	res = r.run("flt", cmd, "test_ids.py::test_rate[half]")
	assert.Equal(t, 1, res.code, "pytest exits 1: a test failed")
	assert.Equal(t, `Frame: test_ids:test_rate#2   (entry frame)
Args: rate = 0.5

   6 | assert round(10 * (1 - rate)) == 10 * (1 - rate)  → True

Return: None
`, res.stdout)

	res = r.run("flt", cmd, "test_ids.py::test_rate[0.5]")
	assert.Equal(t, 1, res.code)
	assert.Equal(t, `adi: "test_ids.py::test_rate[0.5]": no test test_ids:test_rate ran with pytest's id [0.5]; `+
		"the ids pytest gave it: test_ids:test_rate#1 [free], test_ids:test_rate#2 [half], test_ids:test_rate#3 [quarter]\n", res.stderr)
}

// slowTests is a test file whose tests 2-8 each step 200 statements with 300 objects in scope
// (compared at every step, about a millisecond each): stepping them all would cost more than the
// run; test_1 is cheap.
var slowTests = `class Node:
    def __init__(self, i):
        self.i = i
        self.kids = [i, i + 1]


NODES = [Node(i) for i in range(300)]

def test_1():
    total = sum(range(5))
    assert total == 10
` + slowTest2to8

// TestPytestTestsStepBudget: the first recording steps the tests while 250 ms of stepping last
// (probe config trace_tests_ms): the first test's FLT comes with it, the last one's is recorded by
// a re-run when asked for, with the same exact FLT.
func TestPytestTestsStepBudget(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_slow.py"), []byte(slowTests), 0o644))
	r := newCLI(t, dir)
	r.env = append(r.env, "PYTHONDONTWRITEBYTECODE=1")
	cmd := "/usr/bin/python3 -m pytest test_slow.py -q -p no:cacheprovider"
	runs := func() int {
		dirs, err := filepath.Glob(filepath.Join(r.state, "sessions", "*", "runs", "*"))
		require.NoError(t, err)
		return len(dirs)
	}

	res := r.run("call-tree", cmd, "--depth", "1")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Regexp(t, "tests: 0 failed, 8 passed", res.stderr)
	assert.Regexp(t, "^Tests: 0 failed, 8 passed\n  passed test_slow:test_1#1 → None\n", res.stdout)

	res = r.run("flt", cmd, "test_slow.py::test_1")
	assert.Equal(t, `Frame: test_slow:test_1#1   (entry frame)
Args: (none)

  10 | total = sum(range(5))
     |   + total = 10
  11 | assert total == 10  → True

Return: None
`, res.stdout)
	assert.Equal(t, 1, runs(), "test_1's FLT comes with the recording")

	res = r.run("flt", cmd, "test_slow.py::test_8")
	require.Equal(t, 0, res.code, res.stderr)
	assert.Equal(t, `Frame: test_slow:test_8#1   (entry frame)
Args: (none)

  69 | nodes = list(NODES)
     |   + nodes = [Node(i=0, kids=[0, 1]), Node(i=1, kids=[1, 2]), Node(i=2, kids=[2, 3]), Node(i=3, kids=[… (len=300)
`+slowTest8Steps, res.stdout)
	assert.Equal(t, 2, runs(), "test_8 started after the tests' stepping budget: its FLT needed a re-run")
}

// slowTest2to8 are slowTests' tests 2-8.
var slowTest2to8 = func() string {
	var b strings.Builder
	for k := 2; k <= 8; k++ {
		// nodes[i] = nodes[i] may change nodes: each iteration compares its 300 objects
		fmt.Fprintf(&b, "\n\ndef test_%d():\n    nodes = list(NODES)\n    total = 0\n    for i in range(100):\n"+
			"        nodes[i] = nodes[i]\n        total += i\n    assert total == 4950 and len(nodes) == 300\n", k)
	}
	return b.String()
}()

// slowTest8Steps is test_8's FLT after its first step.
const slowTest8Steps = `  70 | total = 0
     |   + total = 0
  71 | for i in range(100):   [iteration 1]
     |   + i = 0
  72 | nodes[i] = nodes[i]
  73 | total += i
  71 | for i in range(100):   [iteration 2]
     |   ~ i = 1 (was 0)
  72 | nodes[i] = nodes[i]
  73 | total += i
     |   ~ total = 1 (was 0)
     ┆ … iterations 3–99 of line 71 folded (97 iterations, same path as iteration 2; changing: i, total)
  71 | for i in range(100):   [iteration 100]
     |   ~ i = 99 (was 98)
  72 | nodes[i] = nodes[i]
  73 | total += i
     |   ~ total = 4950 (was 4851)
  71 | for i in range(100):   [iteration 101]
  74 | assert total == 4950 and len(nodes) == 300  → True

Return: None
`
