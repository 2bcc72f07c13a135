package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestEngineRecursionLimit records a program that recurses until RecursionError, catches it and
// calls another function (issue 13, first part): the program reaches the depth it reaches under
// plain python with python's own message, and the recording goes on after the error (probe test
// test_recursion checks every engine and interpreter).
func TestEngineRecursionLimit(t *testing.T) {
	s := newSession(t, workdir(t, "recursion_limit.py"), "python recursion_limit.py")
	assert.Equal(t, "Call tree of recursion_limit:main#1 (depth 1, width 10):\n"+
		"recursion_limit:main#1() → None\n"+
		"  recursion_limit:depth#1() → 'maximum recursion depth exceeded'  ⋯ 997 calls below\n"+
		"  recursion_limit:reached#1() → 997  ⋯ 997 calls below\n"+
		"  recursion_limit:after#1(x=21) → 42\n",
		do(t, s, "call-tree recursion_limit:main#1 --depth 1").Text)
	assert.Equal(t, "Call tree of recursion_limit:down#997 (depth 1, width 10):\n"+
		"recursion_limit:down#997(n=996) → raised RecursionError: maximum recursion depth exceeded\n",
		do(t, s, "call-tree recursion_limit:down#997 --depth 1").Text)
}
