"""The one evaluator (adi_probe.evaluate) that exec and live interact share, run directly."""

import sys
import unittest

from adi_probe import evaluate as ev

TAX = 5  # a module global the table's function reads and the statements assign


def helper(x):
    return 10 // x


def paused(n, code, limit=0.0):
    """Run `code` in this function's frame (n and rate are its locals); returns the answer and
    the locals and TAX afterwards."""
    rate = 2
    got = ev.evaluate(code, sys._getframe(), limit)
    after = {"n": n, "rate": rate, "TAX": TAX}
    return got, after


def answer(output="", value=None, exception=None, traceback=(), changed=(), timed_out=False):
    return {"output": output, "value": value, "exception": exception, "traceback": list(traceback),
            "timed_out": timed_out, "changed": [list(c) for c in changed]}


class EvaluateTable(unittest.TestCase):
    # (name, code, answer, the frame's n, rate and TAX afterwards); n is 3, rate 2, TAX 5 before
    TABLE = [
        ("expression", "n * 10", answer(value="30"), (3, 2, 5)),
        ("statements then a final expression", "x = n + 1; x", answer(value="4", changed=[("x", "4")]), (3, 2, 5)),
        ("statements only", "rate = n", answer(changed=[("rate", "3")]), (3, 3, 5)),
        ("None is not shown", "None", answer(), (3, 2, 5)),
        ("a call returning None", "print('n is', n)", answer(output="n is 3\n"), (3, 2, 5)),
        ("print output and a value", "print('a')\nprint('b', file=sys.stderr)\n'c'",
         answer(output="a\nb\n", value="'c'"), (3, 2, 5)),
        ("exception with line and traceback", "n = 0\nprint('before')\nhelper(n)",
         answer(output="before\n", changed=[("n", "0")],
                exception={"type": "ZeroDivisionError", "message": "integer division or modulo by zero", "line": 3},
                traceback=["statement line 3: helper(n)", __file__ + ":12 in helper: return 10 // x"]),
         (0, 2, 5)),
        ("syntax error", "x = = 1",
         answer(exception={"type": "SyntaxError", "message": "invalid syntax", "line": 1},
                traceback=["statement line 1: x = = 1"]), (3, 2, 5)),
        ("nested scope sees the locals", "[n * i for i in range(3)], (lambda: rate)()",
         answer(value="([0, 3, 6], 2)"), (3, 2, 5)),
        ("nested scope assigns a local", "rate = sum(n for _ in 'ab')", answer(changed=[("rate", "6")]), (3, 6, 5)),
        ("module global assigned from the function", "TAX = 0", answer(changed=[("TAX", "0")]), (3, 2, 0)),
        ("module global with a nested scope", "TAX = [n][0] + 1", answer(changed=[("TAX", "4")]), (3, 2, 4)),
        ("global statement", "global TAX\nTAX = 9", answer(changed=[("TAX", "9")]), (3, 2, 9)),
        ("a new name stays in the frame", "fresh = 1", answer(changed=[("fresh", "1")]), (3, 2, 5)),
        ("changed names: rebinding the same object is no change", "rate = rate\nn += 1", answer(changed=[("n", "4")]), (4, 2, 5)),
        ("SystemExit is reported", "raise SystemExit(3)",
         answer(exception={"type": "SystemExit", "message": "3", "line": 1},
                traceback=["statement line 1: raise SystemExit(3)"]), (3, 2, 5)),
    ]

    def setUp(self):
        global TAX
        TAX = 5

    def test_table(self):
        for name, code, want, (n, rate, tax) in self.TABLE:
            with self.subTest(name):
                self.setUp()
                got, after = paused(3, code)
                self.assertEqual(got, want)
                self.assertEqual(after, {"n": n, "rate": rate, "TAX": tax})

    def test_bounds(self):
        got, _ = paused(3, "print('x' * 20000)\n'y' * 5000")
        self.assertEqual(got["output"], "x" * 20000 + "\n")  # whole up to OUTPUT_LIMIT
        got, _ = paused(3, "print('x' * %d)" % ev.OUTPUT_LIMIT)
        self.assertEqual(len(got["output"]), ev.OUTPUT_LIMIT + len("\n[... 1 characters cut ...]\n"))
        self.assertIn("[... 1 characters cut ...]", got["output"])
        got, _ = paused(3, "'y' * 5000")
        self.assertTrue(got["value"].endswith("... (len=5000)"), got["value"][-40:])

    def test_value_is_the_repr(self):
        # the items of a container show their own repr, as Python prints the container
        class Sym:
            def __init__(self, name):
                self.name, self._cache = name, {"zero": None}

            def __repr__(self):
                return self.name

        class Box:
            pass

        ns = {"b": [Sym("x"), Sym("x")], "Box": Box}
        self.assertEqual(ev.evaluate("b, repr(b)", None, ns=ns), answer(value="([x, x], '[x, x]')"))
        self.assertEqual(ev.evaluate("c = {1: b[0]}; c", None, ns=ns), answer(value="{1: x}", changed=[("c", "{1: x}")]))
        got = ev.evaluate("[Box()]", None, ns=ns)["value"]
        self.assertRegex(got, r"^\[<.*Box object at 0x\u2026>\]$")
        self.assertEqual(ev.evaluate("list(range(2000))", None, ns=ns)["value"], repr(list(range(2000)))[:ev.VALUE_LIMIT] + "... (len=2000)")

    def test_time_limit_interrupts(self):
        got, after = paused(3, "n = 7\nwhile True: pass", limit=0.2)
        self.assertEqual(got, answer(timed_out=True, changed=[("n", "7")]))
        self.assertEqual(after["n"], 7)

    def test_module_level(self):
        ns = {"__name__": "m", "a": 1}
        exec(compile("import sys\nf = sys._getframe()", "m.py", "exec"), ns)
        got = ev.evaluate("a += 1\n[a for _ in 'x']", ns["f"])
        self.assertEqual(got, answer(value="[2]", changed=[("a", "2")]))
        self.assertEqual(ns["a"], 2)

    def test_without_a_frame(self):
        ns = {"a": 1}
        self.assertEqual(ev.evaluate("b = a + 1; b", None, ns=ns), answer(value="2", changed=[("b", "2")]))
        self.assertEqual(ns["b"], 2)


if __name__ == "__main__":
    unittest.main()
