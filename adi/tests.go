package adi

import (
	"fmt"
	"path"
	"strings"
)

// A test, for the test listing of a test target's call tree, is an invocation that satisfies all
// of these:
//
//   - it is an entry frame of T: its caller is not user code (pytest or unittest called it);
//   - its function name (the last part of the qualname) starts with "test";
//   - its qualname has no "<…>" part (not a nested function, lambda or module);
//   - its file is named test_*.py or *_test.py (pytest's default), or it is a method of a class
//     named Test*, *Test or *Tests (unittest.TestCase style).
//
// A test failed when its frame ended with an exception (pytest and unittest catch it), except a
// skip (an exception of type Skipped or SkipTest), which counts as skipped; it passed when it
// returned; it is unfinished when the run ended while it ran. An expected failure (xfail) counts
// as failed here: the recording does not see pytest's marks.

// TestStatus is how a test ended.
type TestStatus string

// The ways a test can end.
const (
	TestFailed     TestStatus = "failed"
	TestPassed     TestStatus = "passed"
	TestSkipped    TestStatus = "skipped"
	TestUnfinished TestStatus = "unfinished"
)

// TestResult is one test that ran: its frame and how it ended. Outcome is the first line of the
// exception ("AssertionError: assert 29.0 == 26.0") for a failed or skipped test, the return
// value for a passed one, and "(unfinished)" for an unfinished one.
type TestResult struct {
	FID   string `json:"fid"`
	Frame int    `json:"frame"`
	// NodeID is the node id pytest gave the test ("tests/test_x.py::test_f[a-1]"), when pytest
	// ran it; a parametrized test's text shows its "[a-1]".
	NodeID  string     `json:"node_id,omitempty"`
	Status  TestStatus `json:"status"`
	Outcome string     `json:"outcome"`
}

// TestCounts counts the tests of a run by how they ended.
type TestCounts struct {
	Failed     int `json:"failed"`
	Passed     int `json:"passed"`
	Skipped    int `json:"skipped,omitempty"`
	Unfinished int `json:"unfinished,omitempty"`
}

// String writes the counts the way the test listing starts: "1 failed, 2 passed", with skipped
// and unfinished tests only when there are some.
func (c TestCounts) String() string {
	s := fmt.Sprintf("%d failed, %d passed", c.Failed, c.Passed)
	if c.Skipped > 0 {
		s += fmt.Sprintf(", %d skipped", c.Skipped)
	}
	if c.Unfinished > 0 {
		s += fmt.Sprintf(", %d unfinished", c.Unfinished)
	}
	return s
}

// Total is the number of tests counted.
func (c TestCounts) Total() int { return c.Failed + c.Passed + c.Skipped + c.Unfinished }

// IsTest reports whether T[j] is a test by the rule above.
func (t *Trace) IsTest(j int) bool {
	f := t.Frame(j)
	if f == nil || f.Caller >= 0 {
		return false
	}
	q := ShortName(f.FID().Func)
	if strings.ContainsAny(q, "<>") {
		return false
	}
	parts := strings.Split(q, ".")
	if !strings.HasPrefix(parts[len(parts)-1], "test") {
		return false
	}
	base := path.Base(f.File)
	if strings.HasSuffix(base, ".py") && (strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py")) {
		return true
	}
	if len(parts) < 2 {
		return false
	}
	class := parts[len(parts)-2]
	return strings.HasPrefix(class, "Test") || strings.HasSuffix(class, "Test") || strings.HasSuffix(class, "Tests")
}

// Tests returns every test of the run, failed ones first, then unfinished ones, then the others,
// each group in the order the tests ran, and their counts.
func (t *Trace) Tests() ([]TestResult, TestCounts) {
	var c TestCounts
	groups := map[TestStatus][]TestResult{}
	for j := range t.Frames {
		if !t.IsTest(j) {
			continue
		}
		r := t.testResult(j)
		switch r.Status {
		case TestFailed:
			c.Failed++
		case TestPassed:
			c.Passed++
		case TestSkipped:
			c.Skipped++
		default:
			c.Unfinished++
		}
		key := r.Status
		if key == TestSkipped {
			key = TestPassed // skipped and passed tests keep their order among each other
		}
		groups[key] = append(groups[key], r)
	}
	out := make([]TestResult, 0, c.Total())
	for _, st := range []TestStatus{TestFailed, TestUnfinished, TestPassed} {
		out = append(out, groups[st]...)
	}
	return out, c
}

// testResult says how the test T[j] ended.
func (t *Trace) testResult(j int) TestResult {
	f := &t.Frames[j]
	r := TestResult{FID: f.FID().String(), Frame: j, NodeID: t.NodeID(j)}
	switch {
	case f.Status == Returned:
		r.Status, r.Outcome = TestPassed, flat(f.Return)
	case f.Status == Raised && f.Exception == nil:
		r.Status, r.Outcome = TestFailed, "exception unknown"
	case f.Status == Raised:
		r.Status = TestFailed
		if _, name, _ := cutLast("."+f.Exception.Type, '.'); name == "Skipped" || name == "SkipTest" {
			r.Status = TestSkipped
		}
		first, _, _ := strings.Cut(f.Exception.Message, "\n")
		r.Outcome = (&Exception{Type: f.Exception.Type, Message: trimSpace(first)}).String()
	default:
		r.Status, r.Outcome = TestUnfinished, "(unfinished)"
	}
	return r
}

// testsText renders the test listing: the counts, then one line per test shown, then a line for
// the tests left out.
func testsText(d detail, c TestCounts, shown []TestResult) []string {
	if c.Total() == 0 {
		return []string{"Tests: none recorded (no test function ran as user code); see the target's output."}
	}
	lines := []string{"Tests: " + c.String()}
	for _, r := range shown {
		word := string(r.Status)
		if r.Status == TestFailed {
			word = "FAILED"
		}
		lines = append(lines, fmt.Sprintf("  %s %s%s → %s", word, r.FID, paramText(r.NodeID), d.val(r.Outcome)))
	}
	if left := c.Total() - len(shown); left > 0 {
		noun := "tests"
		if left == 1 {
			noun = "test"
		}
		lines = append(lines, fmt.Sprintf("  … %d more %s (a larger --width lists them)", left, noun))
	}
	return lines
}
