package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/bridge"
)

// TestEngineTruth3Generators checks the numbering of generators (issue 13, third part) on a real
// run of truth3.py with the default interpreter. On 3.8-3.11 (settrace) a generator is numbered
// when it first runs, at the line that runs it, and one never run is not in T; on 3.12+
// (sys.monitoring) it is numbered where it is created and one never run reads "not started"
// (probe test test_truth3 checks both on every interpreter).
func TestEngineTruth3Generators(t *testing.T) {
	s := newSession(t, workdir(t, "truth3.py"), "python truth3.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	// the integration tests' interpreter is the one with debugpy (3.11 here)
	assert.Equal(t, "Call tree of truth3:gens#1 (depth 2, width 10):\n"+
		"truth3:gens#1() → 4\n  truth3:counter#1(n=3) → yielded 3 (last 2)\n  truth3:counter#2(n=2) → yielded 2 (last 1)\n",
		do(t, s, "call-tree truth3:gens#1").Text)
}
