"""FLTs: exact step lists (line, statement, ΔS, callees, loop positions, events) and ends."""

import sys
import unittest

from .harness import record, script

OBJ = "<__main__.%s object at 0x\u2026>"


def traced(name, *fids):
    """Record fixture `name` with an FLT for each fid."""
    selectors = []
    for fid in fids:
        func, index = fid.rsplit("#", 1)
        selectors.append({"func": func, "index": int(index)})
    return record(script(name), trace=selectors)


class Loops(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rec = traced("loops.py", "loops:nested#1", "loops:early#1", "loops:skipping#1",
                         "loops:countdown#1")

    def test_nested_loops(self):
        self.assertEqual(self.rec.steps("loops:nested#1"), [
            (2, "total = 0", [("total", None, "0", "new")], [], [], {}),
            (3, "for i in range(n):", [("i", None, "0", "new")], [], [(3, 1)], {}),
            (4, "for j in range(i):", [], [], [(3, 1), (4, 1)], {}),
            (3, "for i in range(n):", [("i", "0", "1", "mod")], [], [(3, 2)], {}),
            (4, "for j in range(i):", [("j", None, "0", "new")], [], [(3, 2), (4, 1)], {}),
            (5, "total += j", [], [], [(3, 2), (4, 1)], {}),
            (4, "for j in range(i):", [], [], [(3, 2), (4, 2)], {}),
            (3, "for i in range(n):", [("i", "1", "2", "mod")], [], [(3, 3)], {}),
            (4, "for j in range(i):", [], [], [(3, 3), (4, 1)], {}),
            (5, "total += j", [], [], [(3, 3), (4, 1)], {}),
            (4, "for j in range(i):", [("j", "0", "1", "mod")], [], [(3, 3), (4, 2)], {}),
            (5, "total += j", [("total", "0", "1", "mod")], [], [(3, 3), (4, 2)], {}),
            (4, "for j in range(i):", [], [], [(3, 3), (4, 3)], {}),
            (3, "for i in range(n):", [], [], [(3, 4)], {}),
            (6, "return total", [], [], [], {}),
        ])
        self.assertEqual(self.rec.end("loops:nested#1"), ["return", 0])

    @unittest.skipIf(sys.version_info < (3, 7),
                     "3.6 lists a frame's locals last first (bpo-32690): new names in another order")
    def test_early_return_inside_loop(self):
        self.assertEqual(self.rec.steps("loops:early#1"), [
            (10, "for k, x in enumerate(xs):", [("k", None, "0", "new"), ("x", None, "5", "new")], [],
             [(10, 1)], {}),
            (11, "if x == target:", [], [], [(10, 1)], {"test": False}),
            (10, "for k, x in enumerate(xs):", [("k", "0", "1", "mod"), ("x", "5", "7", "mod")], [],
             [(10, 2)], {}),
            (11, "if x == target:", [], [], [(10, 2)], {"test": True}),
            (12, "return k", [], [], [(10, 2)], {}),
        ])

    def test_continue_and_break(self):
        self.assertEqual(self.rec.lines("loops:skipping#1"),
                         [17, 18, 19, 20, 18, 19, 21, 23, 18, 19, 20, 18, 19, 21, 23, 18, 19, 21, 22, 24])
        steps = self.rec.steps("loops:skipping#1")
        self.assertEqual(steps[7], (23, "kept.append(x)", [("kept", None, "2", "app")], [], [(18, 2)], {}))
        self.assertEqual([s[4] for s in steps[15:]], [[(18, 5)]] * 4 + [[]])

    def test_while_loop(self):
        self.assertEqual(self.rec.steps("loops:countdown#1"), [
            (28, "while n > 0:", [], [], [(28, 1)], {"test": True}),
            (29, "n -= 1", [("n", "2", "1", "mod")], [], [(28, 1)], {}),
            (28, "while n > 0:", [], [], [(28, 2)], {"test": True}),
            (29, "n -= 1", [("n", "1", "0", "mod")], [], [(28, 2)], {}),
            (28, "while n > 0:", [], [], [(28, 3)], {"test": False}),
            (30, "return n", [], [], [], {}),
        ])


class Exceptions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rec = traced("exceptions.py", "exceptions:caught_inside#1", "exceptions:raiser#1",
                         "exceptions:middle#2", "exceptions:top#1")

    def test_raised_and_caught_in_frame(self):
        err = "ZeroDivisionError('integer division or modulo by zero')"
        self.assertEqual(self.rec.steps("exceptions:caught_inside#1"), [
            (6, "try:", [], [], [], {}),
            (7, "y = 10 // x", [], [], [], {"raise": ["ZeroDivisionError", "integer division or modulo by zero"]}),
            (8, "except ZeroDivisionError as e:", [("e", None, err, "new")], [], [], {}),
            (9, "y = -1", [("y", None, "-1", "new"), ("e", err, None, "del")], [], [], {}),
            (10, "return y", [], [], [], {}),
        ])
        self.assertEqual(self.rec.end("exceptions:caught_inside#1"), ["return", 0])

    def test_escaping_frames(self):
        self.assertEqual(self.rec.steps("exceptions:raiser#1"), [
            (14, 'if kind == "value":', [], [], [], {"test": True}),
            (15, 'raise ValueError("bad value %d" % 3)', [], [], [], {"raise": ["ValueError", "bad value 3"]}),
        ])
        self.assertEqual(self.rec.end("exceptions:raiser#1"), ["exception", 0])
        self.assertEqual(self.rec.steps("exceptions:middle#2"), [
            (20, "out = raiser(kind)", [], ["exceptions:raiser#2"], [], {"raise": ["AppError", "custom"]}),
        ])
        self.assertEqual(self.rec.end("exceptions:middle#2"), ["exception", 0])

    def test_caught_by_caller(self):
        steps = self.rec.steps("exceptions:top#1")
        self.assertEqual(steps[3], (28, "middle(kind)", [], ["exceptions:middle#1"], [(26, 1)],
                                    {"raise": ["ValueError", "bad value 3"]}))
        self.assertEqual(steps[4], (29, "except (ValueError, AppError) as exc:",
                                    [("exc", None, "ValueError('bad value 3')", "new")], [], [(26, 1)], {}))
        self.assertEqual(steps[5][2], [("results", None, "'ValueError'", "app"),
                                       ("exc", "ValueError('bad value 3')", None, "del")])
        self.assertEqual([s[0] for s in steps], [25, 26, 27, 28, 29, 30, 26, 27, 28, 29, 30, 26, 31])


class Mutation(unittest.TestCase):
    def test_in_place_changes_del_and_multiline(self):
        rec = traced("mutation.py", "mutation:mutate#1")
        steps = rec.steps("mutation:mutate#1")
        box = OBJ % "Box"
        self.assertEqual(steps[:7], [
            (6, "xs = [1, 2]", [("xs", None, "[1, 2]", "new")], [], [], {}),
            (7, "xs.append(3)", [("xs", None, "3", "app")], [], [], {}),
            (8, "d = {}", [("d", None, "{}", "new")], [], [], {}),
            (9, 'd["k"] = 1', [("d", None, "1", "new", "['k']")], [], [], {}),
            (10, "b = Box()", [("b", None, box, "new")], [], [], {}),
            (11, "b.attr = 5", [("b", None, "5", "new", ".attr")], [], [], {}),
            (12, "del d", [("d", "{'k': 1}", None, "del")], [], [], {}),
        ])
        # a change past the repr limit is seen, and shown by its path
        self.assertEqual(steps[9][:3], (15, "big[90] = -1", [("big", "90", "-1", "mod", "[90]")]))
        self.assertEqual(steps[8][:3], (14, "big.append(100)", [("big", None, "100", "app")]))
        self.assertEqual(steps[10], (16, "total = (1 +\n         2 +\n         3)",
                                     [("total", None, "6", "new")], [], [], {}))
        # rebinding a tuple to an equal one is not a change
        self.assertEqual(steps[11:], [
            (19, "t = (1, 2)", [("t", None, "(1, 2)", "new")], [], [], {}),
            (20, "t = (1, 2)", [], [], [], {}),
            (21, "return xs, b, big, total, t", [], [], [], {}),
        ])


class MultiLineStatements(unittest.TestCase):
    def test_one_step_per_statement(self):
        rec = traced("multiline.py", "multiline:build#1")
        self.assertEqual(rec.steps("multiline:build#1"), [
            (6, "parts = [\n    piece(1),\n    piece(2),\n]",
             [("parts", None, "[1, 2]", "new")], ["multiline:piece#1", "multiline:piece#2"], [], {}),
            (10, "total = piece(\n    sum(parts))", [("total", None, "3", "new")], ["multiline:piece#3"], [], {}),
            (12, "for p in (\n        parts):", [("p", None, "1", "new")], [], [(12, 1)], {}),
            (14, "total += p", [("total", "3", "4", "mod")], [], [(12, 1)], {}),
            (12, "for p in (\n        parts):", [("p", "1", "2", "mod")], [], [(12, 2)], {}),
            (14, "total += p", [("total", "4", "6", "mod")], [], [(12, 2)], {}),
            (12, "for p in (\n        parts):", [], [], [(12, 3)], {}),
            (15, "return (total,\n        len(parts))", [], [], [], {}),
        ])


class Recursion(unittest.TestCase):
    def test_callee_is_the_inner_invocation(self):
        rec = traced("recursion.py", "recursion:fact#2")
        self.assertEqual(rec.steps("recursion:fact#2"), [
            (2, "if n <= 1:", [], [], [], {"test": False}),
            (4, "return n * fact(n - 1)", [], ["recursion:fact#3"], [], {}),
        ])


class Methods(unittest.TestCase):
    def test_callees_and_lambdas(self):
        rec = traced("methods.py", "methods:main#1", "methods:Counter.__init__#1")
        steps = rec.steps("methods:main#1")
        self.assertEqual(steps[0], (28, "c = Counter.make(1)", [("c", None, "Counter(value=1)", "new")],
                                    ["methods:Counter.make#1"], [], {}))
        self.assertEqual(steps[1], (29, "c.add(Counter.double(2))", [("c", "1", "5", "mod", ".value")],
                                    ["methods:Counter.double#1", "methods:Counter.add#1"], [], {}))
        self.assertEqual(steps[5][3], ["methods:main.<locals>.<lambda>#%d" % k for k in range(1, 5)])
        self.assertEqual(rec.steps("methods:Counter.__init__#1"), [
            (5, "self.value = start", [("self", None, "1", "new", ".value")], [], [], {}),
            (6, "Counter.instances += 1", [], [], [], {}),
        ])


class Comprehensions(unittest.TestCase):
    def test_calls_inside_are_callees_of_the_statement(self):
        rec = traced("comprehensions.py", "comprehensions:main#1")
        self.assertEqual(rec.steps("comprehensions:main#1"), [
            (6, "a = [sq(x) for x in range(3)]", [("a", None, "[0, 1, 4]", "new")],
             ["comprehensions:sq#1", "comprehensions:sq#2", "comprehensions:sq#3"], [], {}),
            (7, "b = {x: sq(x) for x in range(2)}", [("b", None, "{0: 0, 1: 1}", "new")],
             ["comprehensions:sq#4", "comprehensions:sq#5"], [], {}),
            (8, "c = sum(sq(x) for x in range(2))", [("c", None, "1", "new")],
             ["comprehensions:sq#6", "comprehensions:sq#7"], [], {}),
            (9, "return a, b, c", [], [], [], {}),
        ])


class Generators(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rec = traced("generators.py", "generators:numbers#1", "generators:outer#1",
                         "generators:thrower#1", "generators:coro#1")

    def test_yield_and_resume_steps(self):
        self.assertEqual(self.rec.steps("generators:numbers#1"), [
            (2, "for i in range(n):", [("i", None, "0", "new")], [], [(2, 1)], {}),
            (3, "got = yield i", [], [], [(2, 1)], {"yield": "0"}),
            (3, "got = yield i", [("got", None, "1", "new")], [], [(2, 1)], {"resume": True}),
            (4, "if got:", [], [], [(2, 1)], {"test": True}),
            (5, "n += got", [("n", "2", "3", "mod")], [], [(2, 1)], {}),
            (2, "for i in range(n):", [("i", "0", "1", "mod")], [], [(2, 2)], {}),
            (3, "got = yield i", [], [], [(2, 2)], {"yield": "1"}),
            (3, "got = yield i", [("got", "1", "None", "mod")], [], [(2, 2)], {"resume": True}),
            (4, "if got:", [], [], [(2, 2)], {"test": False}),
            (2, "for i in range(n):", [], [], [(2, 3)], {}),
            (6, 'return "done"', [], [], [], {}),
        ])
        self.assertEqual(self.rec.end("generators:numbers#1"), ["return", 0])

    def test_yield_from(self):
        self.assertEqual(self.rec.steps("generators:outer#1"), [
            (16, "r = yield from inner()", [], ["generators:inner#1"], [], {"yield": "1"}),
            (16, "r = yield from inner()", [], [], [], {"resume": True, "yield": "2"}),
            (16, "r = yield from inner()", [("r", None, "3", "new")], [], [], {"resume": True}),
            (17, "yield r", [], [], [], {"yield": "3"}),
            (17, "yield r", [], [], [], {"resume": True}),
        ])

    def test_throw_and_close(self):
        self.assertEqual(self.rec.steps("generators:thrower#1"), [
            (21, "try:", [], [], [], {}),
            (22, "yield 1", [], [], [], {"yield": "1"}),
            (22, "yield 1", [], [], [], {"resume": True, "raise": ["ValueError", "x"]}),
            (23, "except ValueError:", [], [], [], {}),
            (24, 'yield "caught"', [], [], [], {"yield": "'caught'"}),
            (24, 'yield "caught"', [], [], [], {"resume": True, "raise": ["GeneratorExit", ""]}),
        ])
        self.assertEqual(self.rec.end("generators:thrower#1"), ["exception", 0])

    @unittest.skipIf(sys.version_info < (3, 8), "3.6/3.7 report a line event on `while True:` (SETUP_LOOP)")
    def test_while_true_coroutine(self):
        header = sys.version_info >= (3, 10)  # 3.8/3.9 report no line for `while True:`
        expected = [(29, "total = 0", [("total", None, "0", "new")], [], [], {})]
        if header:
            expected.append((30, "while True:", [], [], [(30, 1)], {"test": True}))
        expected += [
            (31, "x = yield total", [], [], [(30, 1)], {"yield": "0"}),
            (31, "x = yield total", [("x", None, "5", "new")], [], [(30, 1)], {"resume": True}),
            (32, "if x is None:", [], [], [(30, 1)], {"test": False}),
            (34, "total += x", [("total", "0", "5", "mod")], [], [(30, 1)], {}),
        ]
        if header:
            expected.append((30, "while True:", [], [], [(30, 2)], {"test": True}))
        expected += [
            (31, "x = yield total", [], [], [(30, 2)], {"yield": "5"}),
            (31, "x = yield total", [("x", "5", "None", "mod")], [], [(30, 2)], {"resume": True}),
            (32, "if x is None:", [], [], [(30, 2)], {"test": True}),
            (33, "break", [], [], [(30, 2)], {}),
            (35, "return total", [], [], [], {}),
        ]
        self.assertEqual(self.rec.steps("generators:coro#1"), expected)


class Unfinished(unittest.TestCase):
    def test_frames_live_at_os_exit(self):
        rec = traced("osexit.py", "osexit:main#1")
        self.assertEqual(rec.steps("osexit:main#1"), [
            (9, "helper(1)", [], ["osexit:helper#1"], [], {}),
            (10, 'print("bye", flush=True)', [], [], [], {}),
            (11, "os._exit(3)", [], [], [], {}),
        ])
        self.assertEqual(rec.end("osexit:main#1"), ["unfinished", 0])


class Statements(unittest.TestCase):
    def test_stmts_record(self):
        rec = traced("loops.py", "loops:countdown#1")
        cid = rec.get("loops:countdown#1").cid
        self.assertEqual(rec.stmts[cid], {28: "while n > 0:", 29: "n -= 1", 30: "return n"})
        self.assertEqual([r[0] for r in rec.flt_records], ["stmts", "begin", "step", "step", "step", "step",
                                                           "step", "step", "end"])


if __name__ == "__main__":
    unittest.main()


class BranchOutcomes(unittest.TestCase):
    """Each if/elif/while/case/assert line says what its test decided (ev "test")."""

    def test_if_elif_while_assert(self):
        rec = traced("branches.py", "branches:choose#1", "branches:choose#2", "branches:failing#1")
        T, F = {"test": True}, {"test": False}
        self.assertEqual([(s[0], s[5]) for s in rec.steps("branches:choose#1")], [
            (2, T), (3, {}), (8, T), (9, {}), (8, T), (9, {}), (8, F), (10, T), (11, F)])
        self.assertEqual([(s[0], s[5]) for s in rec.steps("branches:choose#2")], [
            (2, F), (4, F), (7, {}), (8, F), (10, T), (11, F)])
        # a test that raised has no outcome; a failing assert is False
        steps = rec.steps("branches:failing#1")
        self.assertEqual([(s[0], s[5]) for s in steps], [
            (16, {}), (17, {"raise": ["ZeroDivisionError", "integer division or modulo by zero"]}),
            (19, {}), (20, {}),
            (21, {"raise": ["AssertionError", "too small"], "test": False})])

    @unittest.skipIf(sys.version_info < (3, 10), "match needs 3.10")
    def test_match_case(self):
        rec = traced("branches_match.py", "branches_match:kind#1")
        self.assertEqual([(s[0], s[5]) for s in rec.steps("branches_match:kind#1")], [
            (2, {}), (3, {"test": False}), (5, {"test": True}), (6, {})])


class ChangePaths(unittest.TestCase):
    """Changes are detected exactly (big lists and dicts, bytearray, array, deep nesting, C
    objects without attributes) and shown by the path that changed."""

    @classmethod
    def setUpClass(cls):
        rec = traced("truth_changes.py", "truth_changes:f#1")
        cls.changes = {}
        for line, _, changes, _, _, _ in rec.steps("truth_changes:f#1"):
            cls.changes[line] = changes  # the last visit of each line

    def test_exact_detection_with_paths(self):
        c = self.changes
        self.assertEqual(c[14], [("l256", "299", "-1", "mod", "[299]")])
        self.assertEqual(c[16], [("b", "0", "1", "mod", "[5]")])
        self.assertEqual(c[17], [("b", None, "120, 121", "app")])
        self.assertEqual(c[19], [("a", "2", "7", "mod", "[1]")])
        self.assertEqual(c[28], [("c", "count(0)", "count(1)", "mod")])
        self.assertEqual(c[44], [("l100", "99", "-1", "mod", "[99]")])
        # 301 levels of nesting: the innermost list got an item, shown once, under the name the
        # line used (`deep` reaches the same list; an alias is not repeated)
        self.assertEqual(c[26], [("cur", None, "1", "app")])

    def test_attributes_slots_and_keys(self):
        c = self.changes
        self.assertEqual(c[30], [("p", None, "2", "app", ".items")])
        self.assertEqual(c[31], [("p", "0", "1", "mod", ".count")])
        self.assertEqual(c[33], [("s", None, "3", "app", ".b")])
        self.assertEqual(c[34], [("s", "1", "5", "mod", ".a")])
        self.assertEqual(c[36], [("led", None, "16", "app", ".rows")])
        x30 = "'" + "x" * 30 + "'"
        self.assertEqual(c[38], [("big", x30, "'changed'", "mod", "['7']")])
        self.assertEqual(c[39], [("big", None, "1", "new", "['new']")])
        self.assertEqual(c[40], [("big", x30, None, "del", "['3']")])

    def test_new_object_equal_to_the_old(self):
        self.assertEqual(self.changes[42], [("y", None, "[1]", "same")])


class ObjectsFromAttributes(unittest.TestCase):
    @unittest.skipIf(sys.version_info < (3, 7), "the fixture uses dataclasses (3.7+)")
    def test_objects_render_as_their_attributes(self):
        rec = traced("truth_render.py", "truth_render:f#1", "truth_render:Custom.__init__#1")
        self.assertEqual([s[2] for s in rec.steps("truth_render:f#1")][:5], [
            [("p", None, "Plain(items=[1, 2], count=0)", "new")],
            [("p", "0", "1", "mod", ".count")],
            [("c", None, "Custom(a=3, b=6)", "new")],
            [("d", None, "DC(x=1, y=2)", "new")],
            [("e", None, OBJ % "Empty", "new")],
        ])
        # self in __init__: the attributes that exist so far
        inv = rec.get("truth_render:Custom.__init__#1")
        self.assertEqual(inv.args, [("self", "Custom()"), ("a", "3")])
        self.assertEqual([s[2] for s in rec.steps("truth_render:Custom.__init__#1")], [
            [("self", None, "3", "new", ".a")], [("self", None, "6", "new", ".b")]])
