"""Issue 13 ("FLT truth"), third part: generators numbered at their creation."""

import sys
import unittest

from .harness import ENGINES, record, script


class GeneratorNumbering(unittest.TestCase):
    """sys.monitoring (3.12+) numbers a generator when it is created; settrace and setprofile
    (every version) when it first runs (docs/semantics.md)."""

    @classmethod
    def setUpClass(cls):
        cls.recs = {engine: record(script("truth3.py"), engine=engine, trace=[{"func": "truth3:gens", "index": 1}])
                    for engine in ENGINES}

    def each(self):
        for engine, rec in self.recs.items():
            self.assertEqual(rec.returncode, 0, rec.stderr)
            self.assertEqual(rec.stdout, "4\n")
            self.assertNotIn("internal_errors", rec.result)
            yield engine, rec

    def test_numbered_at_creation_with_monitoring(self):
        for engine, rec in self.each():
            table = [(inv.fid, rec.caller_of(inv.fid), inv.call_line, inv.args, inv.outcome)
                     for inv in rec.order if inv.func == "truth3:counter"]
            if engine == "monitoring":
                self.assertEqual(table, [
                    ("truth3:counter#1", "truth3:gens#1", 7, [("n", "2")], ("ret", "None")),
                    ("truth3:counter#2", "truth3:gens#1", 8, [("n", "3")], ("ret", "None")),
                    # created and never run: no arguments are known
                    ("truth3:counter#3", "truth3:gens#1", 10, [], ("not started",))])
            else:
                want = [("truth3:counter#1", "truth3:gens#1", 9, [("n", "3")], ("ret", "None")),
                        ("truth3:counter#2", "truth3:gens#1", 9, [("n", "2")], ("ret", "None"))]
                if sys.version_info < (3, 11):
                    # 3.8-3.10 run an unstarted generator's frame to close it (when `never` dies
                    # as gens returns): it is seen then, raising GeneratorExit at its first line
                    want.append(("truth3:counter#3", "truth3:<module>#1", 14, [("n", "4")],
                                 ("exc", "GeneratorExit", "", 1)))
                self.assertEqual(table, want)

    def test_creating_line_shows_the_callee(self):
        for engine, rec in self.each():
            callees = [(s[0], s[3]) for s in rec.steps("truth3:gens#1") if s[3]]
            if engine == "monitoring":
                self.assertEqual(callees, [(7, ["truth3:counter#1"]), (8, ["truth3:counter#2"]),
                                           (10, ["truth3:counter#3"])])
            else:
                self.assertEqual(callees, [(9, ["truth3:counter#1", "truth3:counter#2"])])

    @unittest.skipUnless(sys.version_info >= (3, 12), "sys.monitoring is 3.12+")
    def test_engine_default_is_monitoring(self):
        rec = record(script("truth3.py"))
        self.assertEqual([inv.outcome for inv in rec.order if inv.func == "truth3:counter"][-1], ("not started",))


if __name__ == "__main__":
    unittest.main()
