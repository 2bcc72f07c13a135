"""Issue 13 ("FLT truth"), second part: class bodies, async generators, coroutines' kinds."""

import sys
import unittest

from .harness import ENGINES, record, script


@unittest.skipIf(sys.version_info < (3, 7), "the fixture uses asyncio.run (3.7+)")
class Truth2(unittest.TestCase):
    """Each check runs under every engine of this interpreter."""

    @classmethod
    def setUpClass(cls):
        cls.recs = {engine: record(script("truth2.py"), engine=engine) for engine in ENGINES}

    def each(self):
        for rec in self.recs.values():
            self.assertEqual(rec.returncode, 0, rec.stderr)
            self.assertEqual(rec.stdout, "base+child\n([0, 10], [2, 3])\n")
            self.assertNotIn("internal_errors", rec.result)
        return list(self.recs.values())

    def test_class_body_returns_its_class(self):
        # not the __class__ cell that a body using super() returns (nor None)
        for rec in self.each():
            self.assertEqual(rec.get("truth2:Base#1").outcome, ("ret", "class Base"))
            self.assertEqual(rec.get("truth2:Child#1").outcome, ("ret", "class Child"))

    def test_async_generator_yields_its_value(self):
        for rec in self.each():
            self.assertEqual(rec.get("truth2:ticks#1").events,
                             [("yield", "0", 16), ("resume",), ("yield", "10", 16), ("resume",)])

    def test_code_records_say_what_the_code_is(self):
        for rec in self.each():
            kinds = {r[2]: r[6] for r in rec.calls_records if r[0] == "code"}
            self.assertEqual(kinds, {
                "truth2:<module>": "", "truth2:Base": "class", "truth2:Child": "class",
                "truth2:main": "", "truth2:Child.hello": "", "truth2:Base.hello": "",
                "truth2:amain": "coroutine", "truth2:collect": "coroutine",
                "truth2:ticks": "async generator", "truth2:work": "coroutine"})


if __name__ == "__main__":
    unittest.main()
