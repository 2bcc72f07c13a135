package bench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFirstBodyLine finds a function's first statement past a multi-line signature and its docstring.
func TestFirstBodyLine(t *testing.T) {
	src := "import x\n\n\ndef f(a,\n      b):\n    r\"\"\"Doc.\n\n    More.\n    \"\"\"\n    # note\n    return a\n"
	assert.Equal(t, 11, firstBodyLine(src, "def f("))
	assert.Equal(t, 0, firstBodyLine(src, "def g("))
	assert.Equal(t, 3, firstBodyLine("def h():\n    \"\"\"One line.\"\"\"\n    pass\n", "def h("), "a docstring runs no statement")
}
