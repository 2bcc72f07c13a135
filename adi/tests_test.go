package adi

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pytestTrace is the recording of `python -m pytest test_cart.py` (root /proj), as the probe
// records it: pytest imports the test module and calls each test, so every test is an entry frame.
//
//	/proj/cart.py                                    /proj/test_cart.py
//	 4 def line_total(qty, price, rate):              1 import pytest
//	 5     if qty > 10:                               3 import cart
//	 6         return qty * price * (1 - rate)        6 def test_total():
//	 7     return qty * price                         7     assert cart.total([(10, 2.0), (3, 3.0)], 0.1) == 27.0
//	10 def total(items, rate):                       10 class TestLine:
//	11     s = 0.0                                   11     @pytest.mark.parametrize("qty,price", [(1, 2.0), (20, 1.0)])
//	12     for qty, price in items:                  12     def test_line(self, qty, price):
//	13         s += line_total(qty, price, rate)     13         assert cart.line_total(qty, price, 0.0) == qty * price
//	14     return s
func pytestTrace() *Trace {
	const tc, c = "/proj/test_cart.py", "/proj/cart.py"
	failed := ret("test_cart:test_total", 1, -1, 0, tc, 6, "")
	failed.Status = Raised
	failed.Exception = &Exception{Type: "AssertionError", Line: 7,
		Message: "assert 29.0 == 27.0\n +  where 29.0 = <function total at 0x…>([(10, 2.0), (3, 3.0)], 0.1)"}
	self := Arg{"self", "<test_cart.TestLine object at 0x…>"}
	line := func(n, caller int, value, qty, price, rate string) Frame {
		return ret("cart:line_total", n, caller, 13, c, 4, value, Arg{"qty", qty}, Arg{"price", price}, Arg{"rate", rate})
	}
	imported := func(f Frame) Frame { f.ArgsFP = ImportFP; return f } // pytest imports the test file
	return newTrace("/proj",
		imported(ret("test_cart:<module>", 1, -1, 0, tc, 1, "None")),
		imported(ret("cart:<module>", 1, 0, 3, c, 1, "None")),
		ret("test_cart:TestLine", 1, 0, 10, tc, 10, "None"),
		failed,
		ret("cart:total", 1, 3, 7, c, 10, "29.0", Arg{"items", "[(10, 2.0), (3, 3.0)]"}, Arg{"rate", "0.1"}),
		line(1, 4, "20.0", "10", "2.0", "0.1"),
		line(2, 4, "9.0", "3", "3.0", "0.1"),
		ret("test_cart:TestLine.test_line", 1, -1, 0, tc, 11, "None", self, Arg{"qty", "1"}, Arg{"price", "2.0"}),
		line(3, 7, "2.0", "1", "2.0", "0.0"),
		ret("test_cart:TestLine.test_line", 2, -1, 0, tc, 11, "None", self, Arg{"qty", "20"}, Arg{"price", "1.0"}),
		line(4, 9, "20.0", "20", "1.0", "0.0"),
	)
}

func mustRunTree(t *testing.T, tr *Trace, o TreeOptions, tests bool) *CallTree {
	t.Helper()
	ct, err := tr.RunTree(o, tests)
	require.NoError(t, err)
	return ct
}

func TestRunTreeText(t *testing.T) {
	tests := []struct {
		name string
		tree func(t *testing.T) *CallTree
		want string
	}{
		{"test target", func(t *testing.T) *CallTree { return mustRunTree(t, pytestTrace(), TreeOptions{}, true) }, `Tests: 1 failed, 2 passed
  FAILED test_cart:test_total#1 → AssertionError: assert 29.0 == 27.0
  passed test_cart:TestLine.test_line#1 → None
  passed test_cart:TestLine.test_line#2 → None
Call tree of the run: 4 entry frames, failing tests first, then the other tests (depth 2, width 10):
test_cart:test_total#1() → raised AssertionError: assert 29.0 == 27.0\n +  where 29.0 = <function total at 0x…>([(10, 2.0), (3, 3.0)], 0.1)
  cart:total#1(items=[(10, 2.0), (3, 3.0)], rate=0.1) → 29.0
    cart:line_total#1(qty=10, price=2.0, rate=0.1) → 20.0
    cart:line_total#2(qty=3, price=3.0, rate=0.1) → 9.0
test_cart:TestLine.test_line#1(self, qty=1, price=2.0) → None
  cart:line_total#3(qty=1, price=2.0, rate=0.0) → 2.0
test_cart:TestLine.test_line#2(self, qty=20, price=1.0) → None
  cart:line_total#4(qty=20, price=1.0, rate=0.0) → 20.0
… the test runner imported test_cart: 3 calls (call-tree test_cart:<module>#1 shows them)
`},
		{"test target, narrow", func(t *testing.T) *CallTree {
			return mustRunTree(t, pytestTrace(), TreeOptions{Depth: 1, Width: 1}, true)
		}, `Tests: 1 failed, 2 passed
  FAILED test_cart:test_total#1 → AssertionError: assert 29.0 == 27.0
  … 2 more tests (a larger --width lists them)
Call tree of the run: 4 entry frames, failing tests first, then the other tests (depth 1, width 1):
test_cart:test_total#1() → raised AssertionError: assert 29.0 == 27.0\n +  where 29.0 = <function total at 0x…>([(10, 2.0), (3, 3.0)], 0.1)
  cart:total#1(items=[(10, 2.0), (3, 3.0)], rate=0.1) → 29.0  ⋯ 2 calls below
… 2 more entry calls to TestLine.test_line, 4 with their callees
… the test runner imported test_cart: 3 calls (call-tree test_cart:<module>#1 shows them)
`},
		{"other target: every entry frame in order", func(t *testing.T) *CallTree {
			return mustRunTree(t, pytestTrace(), TreeOptions{Depth: 1, Width: 2}, false)
		}, `Call tree of the run: 4 entry frames (depth 1, width 2):
test_cart:<module>#1() → None
  … imported cart: 1 call (call-tree cart:<module>#1 shows it)
  test_cart:TestLine#1() → None
test_cart:test_total#1() → raised AssertionError: assert 29.0 == 27.0\n +  where 29.0 = <function total at 0x…>([(10, 2.0), (3, 3.0)], 0.1)
  cart:total#1(items=[(10, 2.0), (3, 3.0)], rate=0.1) → 29.0  ⋯ 2 calls below
… 2 more entry calls to TestLine.test_line, 4 with their callees
`},
		{"test target without tests", func(t *testing.T) *CallTree { return mustRunTree(t, fixture(), TreeOptions{Depth: 1}, true) }, `Tests: none recorded (no test function ran as user code); see the target's output.
Call tree of the run: 1 entry frame (depth 1, width 10):
t:<module>#1() → None
  t:main#1() → 48  ⋯ 10 calls below
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.tree(t).Text(TextOptions{}))
		})
	}
}

// TestRunTreeOneEntry checks that a run with one entry frame reads as before: the tree of T[0].
func TestRunTreeOneEntry(t *testing.T) {
	ct := mustRunTree(t, fixture(), TreeOptions{}, false)
	assert.Equal(t, mustTree(t, fixture(), 0, TreeOptions{}).Text(TextOptions{}), ct.Text(TextOptions{}))
	_, err := (&Trace{}).RunTree(TreeOptions{}, true)
	require.EqualError(t, err, "the recording has no frames; check the target's output")
	_, err = fixture().RunTree(TreeOptions{Width: -1}, false)
	require.EqualError(t, err, "call-tree depth and width must be positive (got 0 and -1)")
}

func TestRunTreeJSON(t *testing.T) {
	b, err := json.Marshal(mustRunTree(t, pytestTrace(), TreeOptions{Depth: 1, Width: 2}, true))
	require.NoError(t, err)
	var got struct {
		Roots []struct {
			FID string `json:"fid"`
		} `json:"roots"`
		HiddenRoots     []CallGroup     `json:"hidden_roots"`
		HiddenRootCalls int             `json:"hidden_root_calls"`
		ImportRoots     []CallGroup     `json:"import_roots"`
		ImportRootCalls int             `json:"import_root_calls"`
		EntryFrames     int             `json:"entry_frames"`
		TestCounts      json.RawMessage `json:"test_counts"`
		Tests           json.RawMessage `json:"tests"`
		Root            json.RawMessage `json:"root"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Nil(t, got.Root)
	assert.Equal(t, 4, got.EntryFrames)
	require.Len(t, got.Roots, 2)
	assert.Equal(t, "test_cart:test_total#1", got.Roots[0].FID)
	assert.Equal(t, "test_cart:TestLine.test_line#1", got.Roots[1].FID)
	assert.Equal(t, []CallGroup{{Func: "test_cart:TestLine.test_line", Count: 1, First: "test_cart:TestLine.test_line#2"}}, got.HiddenRoots)
	assert.Equal(t, 2, got.HiddenRootCalls)
	assert.Equal(t, []CallGroup{{Func: "test_cart:<module>", Count: 1, First: "test_cart:<module>#1"}}, got.ImportRoots)
	assert.Equal(t, 3, got.ImportRootCalls)
	assert.JSONEq(t, `{"failed": 1, "passed": 2}`, string(got.TestCounts))
	assert.JSONEq(t, `[
		{"fid": "test_cart:test_total#1", "frame": 3, "status": "failed", "outcome": "AssertionError: assert 29.0 == 27.0"},
		{"fid": "test_cart:TestLine.test_line#1", "frame": 7, "status": "passed", "outcome": "None"}]`, string(got.Tests))
}

func TestIsTest(t *testing.T) {
	const in, out = false, true
	tests := []struct {
		fn, file string
		caller   int
		want     bool
	}{
		{"test_x:test_f", "/p/test_x.py", -1, out},
		{"x_test:test_f", "/p/x_test.py", -1, out},
		{"test_x:TestC.test_m", "/p/test_x.py", -1, out},
		{"checks:CartTest.test_m", "/p/checks.py", -1, out},    // unittest style, any file
		{"checks:CartTests.test_m", "/p/checks.py", -1, out},   // unittest style, any file
		{"checks:TestCart.testTotal", "/p/checks.py", -1, out}, // unittest's testX names
		{"checks:test_f", "/p/checks.py", -1, in},              // a plain function outside a test file
		{"checks:Cart.test_m", "/p/checks.py", -1, in},         // not a test class
		{"test_x:helper", "/p/test_x.py", -1, in},              // not a test name
		{"test_x:<module>", "/p/test_x.py", -1, in},
		{"test_x:test_f.<locals>.test_inner", "/p/test_x.py", -1, in},
		{"test_x:test_f", "/p/test_x.py", 0, in}, // called by user code: a helper, not a test
		{"test_x:TestC.setUp", "/p/test_x.py", -1, in},
	}
	for _, tt := range tests {
		frames := []Frame{ret("m:<module>", 1, -1, 0, "/p/m.py", 1, "None")}
		frames = append(frames, ret(tt.fn, 1, tt.caller, 0, tt.file, 3, "None"))
		assert.Equal(t, tt.want, newTrace("/p", frames...).IsTest(1), "%s in %s", tt.fn, tt.file)
	}
}

func TestTestStatus(t *testing.T) {
	raised := func(typ, msg string) Frame {
		f := ret("test_x:test_f", 1, -1, 0, "/p/test_x.py", 3, "")
		f.Status, f.Exception = Raised, &Exception{Type: typ, Message: msg}
		return f
	}
	unfinished := ret("test_x:test_f", 1, -1, 0, "/p/test_x.py", 3, "")
	unfinished.Status = Unfinished
	tests := []struct {
		frame Frame
		want  TestResult
	}{
		{raised("AssertionError", "assert 1 == 2\n +  where …"), TestResult{"test_x:test_f#1", 0, "", TestFailed, "AssertionError: assert 1 == 2"}},
		{raised("Skipped", "no network"), TestResult{"test_x:test_f#1", 0, "", TestSkipped, "Skipped: no network"}},
		{raised("unittest.case.SkipTest", "later"), TestResult{"test_x:test_f#1", 0, "", TestSkipped, "unittest.case.SkipTest: later"}},
		{ret("test_x:test_f", 1, -1, 0, "/p/test_x.py", 3, "None"), TestResult{"test_x:test_f#1", 0, "", TestPassed, "None"}},
		{unfinished, TestResult{"test_x:test_f#1", 0, "", TestUnfinished, "(unfinished)"}},
	}
	for _, tt := range tests {
		list, _ := newTrace("/p", tt.frame).Tests()
		assert.Equal(t, []TestResult{tt.want}, list)
	}
}

func TestResolveNodeID(t *testing.T) {
	tests := []struct {
		ref  string
		want int
	}{
		{"test_cart.py::test_total", 3},
		{"/proj/test_cart.py::test_total", 3},
		{"test_cart.py::TestLine::test_line", 7},
		{"test_cart.py::TestLine::test_line#2", 9},
		{"test_cart.py::TestLine::test_line[1-2.0]", 7},
		{"test_cart.py::TestLine::test_line[20-1.0]", 9},
		{"proj/test_cart.py::test_total", 3}, // relative to another directory: the one file it ends
	}
	tr := pytestTrace()
	for _, tt := range tests {
		r, err := ParseRef(tt.ref)
		require.NoError(t, err, tt.ref)
		got, err := tr.ResolveFrame(r)
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tt.want, got, tt.ref)
		fn, err := tr.ResolveFunc(r)
		require.NoError(t, err, tt.ref)
		assert.Equal(t, tr.Frames[tt.want].FID().Func, fn, tt.ref)
	}
}

func TestResolveNodeIDErrors(t *testing.T) {
	tests := []struct{ ref, err string }{
		{"test_cart.py::test_totl", `no function "test_cart.py::test_totl" in the recording; closest: test_cart:test_total`},
		{"test_cart.py::TestLine::test_line#3", `test_cart:TestLine.test_line#3: test_cart:TestLine.test_line was called 2 time(s); use an index from 1 to 2`},
		{"test_cart.py::TestLine::test_line[3-1.0]", `"test_cart.py::TestLine::test_line[3-1.0]": no invocation of test_cart:TestLine.test_line has arguments that spell pytest's id [3-1.0]; ` +
			`pick one by index: test_cart:TestLine.test_line#1 (self=<test_cart.TestLine…, qty=1, price=2.0), test_cart:TestLine.test_line#2 (self=<test_cart.TestLine…, qty=20, price=1.0)`},
		{"test_carts.py::test_total", `no recorded function is defined in /proj/test_carts.py; closest: /proj/test_cart.py`},
	}
	tr := pytestTrace()
	for _, tt := range tests {
		r, err := ParseRef(tt.ref)
		require.NoError(t, err, tt.ref)
		_, err = tr.ResolveFrame(r)
		require.EqualError(t, err, tt.err, tt.ref)
		assert.ErrorIs(t, err, ErrNotFound)
	}
	// Two invocations whose arguments spell the same id: the error lists both.
	tr = newTrace("/p", ret("test_x:test_f", 1, -1, 0, "/p/test_x.py", 3, "None", Arg{"a", "1"}, Arg{"b", "'x'"}),
		ret("test_x:test_f", 2, -1, 0, "/p/test_x.py", 3, "None", Arg{"a", "1"}, Arg{"b", "'y'"}))
	r, err := ParseRef("test_x.py::test_f[1]")
	require.NoError(t, err)
	_, err = tr.ResolveFrame(r)
	require.EqualError(t, err, `"test_x.py::test_f[1]": several invocations of test_x:test_f have arguments that spell pytest's id [1]; pick one by index: test_x:test_f#1 (a=1, b='x'), test_x:test_f#2 (a=1, b='y')`)
	// A run of pytest recorded the ids it gave (by hand here, spelled by no argument): they decide.
	tr.SetNodeID(0, "test_x.py::test_f[first]")
	tr.SetNodeID(1, "test_x.py::test_f[second]")
	r, err = ParseRef("test_x.py::test_f[second]")
	require.NoError(t, err)
	j, err := tr.ResolveFrame(r)
	require.NoError(t, err)
	assert.Equal(t, 1, j)
	r, err = ParseRef("test_x.py::test_f[1]")
	require.NoError(t, err)
	_, err = tr.ResolveFrame(r)
	require.EqualError(t, err, `"test_x.py::test_f[1]": no test test_x:test_f ran with pytest's id [1]; the ids pytest gave it: test_x:test_f#1 [first], test_x:test_f#2 [second]`)
	assert.ErrorIs(t, err, ErrNotFound)
	list, _ := tr.Tests()
	assert.Equal(t, "test_x.py::test_f[first]", list[0].NodeID)
	assert.Equal(t, []string{"Tests: 0 failed, 2 passed", "  passed test_x:test_f#1 [first] → None", "  passed test_x:test_f#2 [second] → None"},
		testsText(detail{}, TestCounts{Passed: 2}, list))
	tr = newTrace("/p", ret("test_x:test_f", 1, -1, 0, "/p/test_x.py", 3, "None", Arg{"a", "1"}, Arg{"b", "'x'"}),
		ret("test_x:test_f", 2, -1, 0, "/p/test_x.py", 3, "None", Arg{"a", "1"}, Arg{"b", "'y'"}))
	r, err = ParseRef("test_x.py::test_f[y-1]") // any order of the arguments
	require.NoError(t, err)
	j, err = tr.ResolveFrame(r)
	require.NoError(t, err)
	assert.Equal(t, 1, j)
}
