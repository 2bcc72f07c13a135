package bridge

import "github.com/adi-bridge/adi/adi"

// IsTestRun reports whether the session's target runs a test runner (pytest or unittest), whose
// call trees start with the tests that ran.
func (s *Session) IsTestRun() bool { return s.target.RunsTests() }

// TestCounts counts the tests of the recording by how they ended, for a test target; it is nil
// for any other target.
func (s *Session) TestCounts() *adi.TestCounts {
	t := s.Trace()
	if !s.IsTestRun() || t == nil {
		return nil
	}
	_, c := t.Tests()
	return &c
}
