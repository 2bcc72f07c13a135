"""ΔS by identity (changes.Tracker): rebinding versus in-place change, object keys, aliases,
library caches, plain data at any size."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from adi_probe.changes import MAX_NODES, Tracker  # noqa: E402
from adi_probe.values import Values  # noqa: E402

from .test_flt import traced  # noqa: E402


class Sym:
    """A library value type (not the entry script's): shown by its own repr, like sympy's."""

    def __init__(self, name):
        self.name = name
        self._mhash = None
        self._assumptions = {}

    def __repr__(self):
        return self.name

    def __hash__(self):
        return hash(self.name)


class Node:
    def __init__(self):
        self.kids = []


def tracker(**roots):
    t = Tracker(Values(60), "self")
    for name, v in roots.items():
        t.bind(name, v)
    return t


class Identity(unittest.TestCase):
    def test_a_rebinding_is_shown_as_one(self):
        x, y = Sym("x"), Sym("y")
        item = (x, x, x)
        t = tracker(item=item)
        item = (x, x, y)
        self.assertEqual(t.changes({"item": item}), [["item", "(x, x, x)", "(x, x, y)", "mod"]])
        # a tuple holding the same objects again is no change
        self.assertEqual(t.changes({"item": (x, x, y)}), [])

    def test_object_keys_by_identity(self):
        x, y = Sym("x"), Sym("y")
        d = {x: 0, y: 0}
        t = tracker(d=d)
        d[x] += 1
        self.assertEqual(t.changes({"d": d}), [["d", 0, 1, "mod", "[x]"]])

    def test_a_key_whose_cache_fills_leaves_its_dict_unchanged(self):
        x = Sym("x")
        powers = {x: 2}
        t = tracker(powers=powers, x=x)
        x._assumptions["zero"] = False
        # once, under the name that reaches it (dict keys are not walked)
        self.assertEqual(t.changes({"powers": powers, "x": x}), [["x", None, False, "new", "._assumptions['zero']"]])

    def test_an_alias_is_not_repeated(self):
        a = []
        b = {"k": a}
        c = Node()
        c.kids = a
        t = tracker(b=b, c=c, a=a)
        a.append(1)
        self.assertEqual(t.changes({"b": b, "c": c, "a": a}, ("a",)), [["a", None, "1", "app"]])
        # without a name from the statement: under the first root that reaches it
        a.append(2)
        self.assertEqual(t.changes({"b": b, "c": c, "a": a}), [["b", None, "2", "app", "['k']"]])

    def test_a_nested_rebinding_is_not_a_path_inside_it(self):
        n = Node()
        n.kids = [Sym("x")]
        t = tracker(n=n)
        n.kids = [Sym("y")]
        self.assertEqual(t.changes({"n": n}), [["n", "[x]", "[y]", "mod", ".kids"]])
        n.kids[0].name = "z"
        self.assertEqual(t.changes({"n": n}), [["n", "'y'", "'z'", "mod", ".kids[0].name"]])

    def test_library_cache_fillings_are_not_shown(self):
        s = Sym("x")
        t = tracker(s=s)
        s._mhash = 42
        self.assertEqual(t.changes({"s": s}), [])
        s.name = "w"
        self.assertEqual(t.changes({"s": s}), [["s", "'x'", "'w'", "mod", ".name"]])
        # a method's own object: what it sets is what it does
        me = Sym("me")
        t = tracker(self=me)
        me._mhash = 7
        self.assertEqual(t.changes({"self": me}), [["self", None, 7, "mod", "._mhash"]])


class Scale(unittest.TestCase):
    def test_plain_data_at_any_size(self):
        big = {i: [i, {"w": 1.0}] for i in range(20000)}
        t = tracker(big=big)
        self.assertEqual(t.changes({"big": big}), [])
        big[19999][1]["w"] = 2.0
        self.assertEqual(t.changes({"big": big}), [["big", "1.0", "2.0", "mod", "[19999][1]['w']"]])
        big[5] = [5]
        self.assertEqual(t.changes({"big": big}), [["big", "[5, {'w': 1.0}]", "[5]", "mod", "[5]"]])

    def test_past_the_node_budget_identity_only(self):
        nodes = [Node() for _ in range(MAX_NODES + 10)]
        t = tracker(nodes=nodes)
        nodes[-1].kids.append(1)  # beyond the node budget: not seen (documented)
        self.assertEqual(t.changes({"nodes": nodes}), [])
        nodes[0].kids.append(1)
        self.assertEqual(t.changes({"nodes": nodes}), [["nodes", None, "1", "app", "[0].kids"]])

    def test_cycles_terminate(self):
        a = Node()
        a.kids.append(a)
        t = tracker(a=a)
        a.kids.append(2)
        self.assertEqual(t.changes({"a": a}), [["a", None, "2", "app", ".kids"]])


class ModuleState(unittest.TestCase):
    """A function's effect on module-level objects its code names is part of its FLT."""

    def test_reserve(self):
        rec = traced("module_state.py", "module_state:reserve#1")
        self.assertEqual([s[:3] for s in rec.steps("module_state:reserve#1")], [
            (13, "have = STOCK[sku]", [("have", None, "7", "new")]),
            (14, "STOCK[sku] = have - n", [("global STOCK", "7", "5", "mod", "['bolt']")]),
            (15, "LOG.append(sku)", [("global LOG", None, "'bolt'", "app")]),
            (16, "CFG.level += 1", [("global CFG", "2", "3", "mod", ".level")]),
            (17, "return STOCK[sku]", []),
        ])


class ReadsTheSame(unittest.TestCase):
    def test_equal_texts_of_two_types_name_them(self):
        from fractions import Fraction
        t = tracker(n=Fraction(8))
        self.assertEqual(t.changes({"n": 8}), [["n", "Fraction(8, 1)", 8, "mod"]])
        t = tracker(n=8.0)
        self.assertEqual(t.changes({"n": True}), [["n", "8.0", True, "mod"]])
        t = tracker(s="a")
        self.assertEqual(t.changes({"s": b"a"}), [["s", "'a'", "b'a'", "mod"]])

    def test_a_rebinding_that_reads_the_same(self):
        class Int(int):
            pass
        t = tracker(i=8)
        self.assertEqual(t.changes({"i": Int(8)}), [["i", "8 (int)", "8 (tests.test_changes.ReadsTheSame.test_a_rebinding_that_reads_the_same.<locals>.Int)", "mod"]])
