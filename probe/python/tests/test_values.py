"""Value rendering and fingerprints (unit tests of adi_probe.values, plus one recorded run)."""

import os
import sys
import unittest
from collections import OrderedDict, deque

from .harness import record, script

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from adi_probe.values import Values  # noqa: E402


class BadRepr:
    def __repr__(self):
        raise TypeError("no")


class Plain:
    pass


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1
        self.b = [1]


class Render(unittest.TestCase):
    def setUp(self):
        self.v = Values(repr_limit=40)
        self.render = self.v.render

    def test_scalars(self):
        self.assertEqual(self.render(5), "5")
        self.assertEqual(self.render(-2.5), "-2.5")
        self.assertEqual(self.render(None), "None")
        self.assertEqual(self.render(True), "True")
        self.assertEqual(self.render("a'b"), '"a\'b"')
        self.assertEqual(self.render(b"xy"), "b'xy'")

    def test_bounded_text_with_length(self):
        self.assertEqual(self.render("x" * 100), "'" + "x" * 40 + "'... (len=100)")
        self.assertEqual(self.render(10 ** 50), str(10 ** 50)[:40] + "...")

    def test_containers_summarised_with_length(self):
        self.assertEqual(self.render(list(range(100))), "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...] (len=100)")
        self.assertEqual(self.render({k: k for k in range(30)}),
                         "{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, ...} (len=30)")
        self.assertEqual(self.render((1,)), "(1,)")
        self.assertEqual(self.render(set()), "set()")
        self.assertEqual(self.render(frozenset([2])), "frozenset({2})")
        self.assertEqual(self.render(deque([1, 2])), "deque([1, 2])")
        self.assertEqual(self.render([[1, [2, [3]]], {"k": (4,)}]), "[[1, [2, [3]]], {'k': (4,)}]")

    def test_program_repr_not_called(self):
        # BadRepr's __repr__ raises: it is the program's code, so it is never called
        self.assertEqual(self.render(BadRepr()), "BadRepr()")
        self.assertEqual(self.render([1, BadRepr()]), "[1, BadRepr()]")

    def test_addresses_stripped(self):
        render = Values(200).render
        self.assertEqual(render(Plain()), "<%s.Plain object at 0x\u2026>" % __name__)
        self.assertEqual(render([Plain()]), "[<%s.Plain object at 0x\u2026>]" % __name__)

    def test_cycles(self):
        a = [1]
        a.append(a)
        self.assertEqual(self.render(a), "[1, [...]]")
        d = {}
        d["me"] = d
        self.assertEqual(self.render(d), "{'me': {...}}")

    def test_container_subclasses_walked(self):
        self.assertEqual(self.render(OrderedDict(a=1)), "OrderedDict({'a': 1})")

    def test_huge_ints(self):
        text = Values(200).render(-(10 ** 5000))
        self.assertTrue(text.startswith("<int with ") or text.startswith("-1000"), text)
        self.assertLessEqual(len(text), 204)


class ArgsFingerprint(unittest.TestCase):
    def test_short_scalars_are_their_own_fingerprint(self):
        v = Values()
        self.assertEqual(v.args([1, "a", None]), (["1", "'a'", "None"], "=1, 'a', None"))

    def test_addresses_inside_containers_do_not_count(self):
        """A deepcopy memo ({id(obj): ...}) differs from run to run only by the addresses."""
        v = Values()
        self.assertEqual(v.args([{140626988203904: {}}])[1], v.args([{140073972786368: {}}])[1])
        self.assertEqual(v.args([[Plain(), 140626988203904]])[1], v.args([[Plain(), 140073972786368]])[1])
        self.assertNotEqual(v.args([{1: {}}])[1], v.args([{1: {}, 2: {}}])[1])

    def test_others_are_stable_crcs(self):
        v = Values()
        reprs, fp = v.args([[1, 2], Plain()])
        self.assertRegex(fp, r"^#[0-9a-f]{16}$")
        self.assertEqual(fp, Values().args([[1, 2], Plain()])[1])  # no ids, no hash randomisation
        self.assertNotEqual(fp, v.args([[1, 3], Plain()])[1])
        self.assertNotEqual(v.args(["x" * 500])[1], v.args(["x" * 499 + "y"])[1])


class Recorded(unittest.TestCase):
    def test_values_in_call_records(self):
        rec = record(script("values_prog.py"), repr_limit=40)
        self.assertEqual(rec.get("values_prog:show#1").args, [
            ("bad", "BadRepr()"),
            ("plain", "<__main__.Plain object at 0x\u2026>"),
            ("cyc", "[1, [...]]"),
            ("huge", "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...] (len=100000)"),
            ("text", "'" + "x" * 40 + "'... (len=1000)")])


if __name__ == "__main__":
    unittest.main()


class Watched:
    """Objects whose every hook records that it ran (the program would see it)."""

    ran = []


class SideRepr:
    def __init__(self):
        self.count = 1

    def __repr__(self):
        Watched.ran.append("__repr__")
        return "SideRepr!"


class ClassProperty:
    """A lazy proxy: reading __class__ evaluates it (django's SimpleLazyObject does this)."""

    def __init__(self):
        self._wrapped = None

    @property
    def __class__(self):
        Watched.ran.append("__class__")
        return int

    def __repr__(self):
        Watched.ran.append("__repr__")
        return "lazy"


class GetattrHook:
    __slots__ = ("a",)

    def __init__(self):
        self.a = 1

    def __getattr__(self, name):
        Watched.ran.append("__getattr__ " + name)
        raise AttributeError(name)

    def __getattribute__(self, name):
        Watched.ran.append("__getattribute__ " + name)
        return object.__getattribute__(self, name)


class SideStr(Exception):
    def __str__(self):
        Watched.ran.append("__str__")
        return "side"


class NoProgramCode(unittest.TestCase):
    """Rendering reads values without the program being able to tell: a library type's own repr
    runs under guards (reprguard.py), and one that did anything but return text is put back and
    struck off (its values are then read from their state)."""

    def setUp(self):
        Watched.ran = []
        self.values = Values(200)

    def look(self, v):
        self.values.args([v, 1])
        self.values.args_summary([v])
        return self.values.render(v)

    def test_side_effecting_repr(self):
        self.assertEqual(self.look(SideRepr()), "SideRepr(count=1)")
        self.assertEqual(Watched.ran, [])

    def test_class_property(self):
        self.assertEqual(self.look(ClassProperty()), "ClassProperty(_wrapped=None)")
        self.assertEqual(Watched.ran, [])

    def test_getattr_and_getattribute_hooks(self):
        self.assertEqual(self.look(GetattrHook()), "GetattrHook(a=1)")
        self.assertEqual(Watched.ran, [])

    def test_exception_str(self):
        from adi_probe.stepper import exc_message
        self.assertEqual(exc_message(SideStr("bad", 2), 100), "('bad', 2)")
        self.assertEqual(self.look(SideStr("bad")), "SideStr('bad')")
        self.assertEqual(Watched.ran, [])

    @unittest.skipIf(sys.version_info < (3, 7), "it uses dataclasses (3.7+)")
    def test_generated_and_library_reprs(self):
        import collections
        import dataclasses
        import enum
        import fractions

        @dataclasses.dataclass
        class Point:
            x: int
            y: int = 2

        class Color(enum.Enum):
            RED = 1

        Pair = collections.namedtuple("Pair", "a b")
        # a library's generated repr runs (under guards): it names the class by its qualname
        self.assertEqual(self.look(Point(1)), "NoProgramCode.test_generated_and_library_reprs.<locals>.Point(x=1, y=2)")
        self.assertEqual(self.look(Color.RED), "<Color.RED: 1>")
        self.assertEqual(self.look(Pair(1, [2])), "Pair(a=1, b=[2])")
        self.assertEqual(self.look(fractions.Fraction(1, 3)), "Fraction(1, 3)")  # the standard library's

    def test_summary(self):
        reprs, _ = self.values.args_summary([SideRepr(), 3, "x", None, 1.5])
        self.assertEqual(reprs, ["<SideRepr, not rendered>", 3, "'x'", None, "1.5"])
        self.assertEqual(Watched.ran, [])

    def test_summary_answered_by_types(self):
        """Arguments without a scalar are answered from their types the second time (cached):
        the same reprs and fingerprint as the first time, and a scalar of a type seen before as
        a big int or a long str is still itself."""
        summ = self.values.args_summary
        first = summ([SideRepr(), [1]])
        again = summ((SideRepr(), [2, 3]))
        self.assertEqual(list(first[0]), ["<SideRepr, not rendered>", "<list, not rendered>"])
        self.assertEqual(list(again[0]), list(first[0]))
        self.assertEqual(again[1], first[1])
        self.assertEqual(list(summ((SideRepr(),))[0]), ["<SideRepr, not rendered>"])
        self.assertEqual(list(summ((SideRepr(),))[0]), ["<SideRepr, not rendered>"])
        big, long = 10 ** 400, "y" * 40
        self.assertEqual(list(summ((big,))[0]), ["<int, not rendered>"])
        self.assertEqual(list(summ((big,))[0]), ["<int, not rendered>"])
        self.assertEqual(list(summ((5,))[0]), [5])
        self.assertEqual(list(summ((long,))[0]), ["<str, not rendered>"])
        self.assertEqual(list(summ((long,))[0]), ["<str, not rendered>"])
        self.assertEqual(list(summ(("z",))[0]), ["'z'"])
        self.assertNotEqual(summ((SideRepr(), 5))[1], summ((SideRepr(), 6))[1])
        # the exit path's inline summary: only types every value of which is summarised so
        self.values.summary(big)
        self.values.summary(long)
        self.values.summary(1.5)
        self.assertEqual(self.values.summary_objs.get(SideRepr), "<SideRepr, not rendered>")
        self.assertNotIn(str, self.values.summary_objs)
        self.assertNotIn(float, self.values.summary_objs)
        self.assertEqual(Watched.ran, [])


class AddressFreeFingerprints(unittest.TestCase):
    """Argument fingerprints are the same in every run: no address, no address-derived order."""

    def setUp(self):
        self.args = Values(200).args

    def test_address_valued_ints(self):
        a, b = object(), object()
        self.assertEqual(self.args([id(a)])[1], self.args([id(b)])[1])
        self.assertNotEqual(self.args([5])[1], self.args([6])[1])
        self.assertEqual(self.args([[id(a), 1]])[1], self.args([[id(b), 1]])[1])

    def test_sets_by_sorted_content(self):
        xs = ["k%d" % i for i in range(20)]
        self.assertEqual(self.args([set(xs)])[1], self.args([set(reversed(xs))])[1])
        self.assertNotEqual(self.args([{1, 2}])[1], self.args([{1, 3}])[1])

    def test_objects_by_state_not_address(self):
        p, q = SideRepr(), SideRepr()
        self.assertEqual(self.args([p])[1], self.args([q])[1])
        q.count = 2
        self.assertNotEqual(self.args([p])[1], self.args([q])[1])
