package integration

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/adi-bridge/adi/bridge"
)

// TestEngineTruth2 checks the second part of issue 13 ("FLT truth") on a real run of truth2.py:
// a class body returns "class NAME" (not the __class__ cell of a class that uses super()), an
// async generator's yields show the yielded values, and the footers of coroutines and async
// generators say what they are.
func TestEngineTruth2(t *testing.T) {
	s := newSession(t, workdir(t, "truth2.py"), "python truth2.py", func(o *bridge.Options) { o.EagerSteps = -1 })
	for _, c := range []struct{ line, want string }{
		{"call-tree truth2:<module>#1 --depth 1", "Call tree of truth2:<module>#1 (depth 1, width 10):\n" +
			"truth2:<module>#1() → None\n  truth2:Base#1() → class Base\n  truth2:Child#1() → class Child\n" +
			"  truth2:main#1() → None  ⋯ 7 calls below\n"},
		{"flt ticks#1", "Frame: truth2:ticks#1   (caller truth2:collect#1, line 21)\nArgs: n = 2\n\n" +
			"  15 | for i in range(n):\n     |   + i = 0\n" +
			"  16 | yield i * 10\n     |   ⏸ yield 0\n  16 | yield i * 10\n     |   ▶ resumed\n" +
			"  15 | for i in range(n):\n     |   ~ i = 1 (was 0)\n" +
			"  16 | yield i * 10\n     |   ⏸ yield 10\n  16 | yield i * 10\n     |   ▶ resumed\n" +
			"  15 | for i in range(n):\n\n" +
			"Return: None  (an async generator; it suspended 2 time(s))\n"},
		// A task asyncio.gather started is first run by the event loop, which asyncio.run (line
		// 39 of main) runs: its caller is main#1, not amain#1 that created it (docs/semantics.md).
		{"flt work#1", "Frame: truth2:work#1   (caller truth2:main#1, line 39)\nArgs: k = 1\n\n" +
			"  27 | await asyncio.sleep(0)\n     |   ⏸ yield None\n  27 | await asyncio.sleep(0)\n     |   ▶ resumed\n" +
			"  28 | return k + 1\n\n" +
			"Return: 2  (a coroutine; it suspended 1 time(s))\n"},
	} {
		assert.Equal(t, c.want, do(t, s, c.line).Text, c.line)
	}
}
