"""Trace selectors (index, cond at entry/exit, max), conditions, and replay expectations."""

import unittest

from .harness import record, script


class TraceSelectors(unittest.TestCase):
    def test_by_index(self):
        rec = record(script("recursion.py"), trace=[{"func": "recursion:fact", "index": 3}])
        self.assertEqual([rec.fid(i) for i in rec.flts], ["recursion:fact#3"])
        self.assertEqual(rec.lines("recursion:fact#3"), [2, 3])

    def test_by_condition_at_entry_with_max(self):
        rec = record(script("conditions.py"), trace=[{"func": "conditions:f", "cond": "x >= 2", "max": 2}])
        self.assertEqual([rec.fid(i) for i in rec.flts], ["conditions:f#3", "conditions:f#4"])

    def test_by_condition_at_exit(self):
        rec = record(script("conditions.py"),
                     trace=[{"func": "conditions:f", "cond": "_return in (2, 6) and y > 0", "at": "exit"}])
        self.assertEqual([rec.fid(i) for i in rec.flts], ["conditions:f#2", "conditions:f#4"])
        self.assertEqual(rec.steps("conditions:f#4"), [
            (2, "y = x * 2", [("y", None, "6", "new")], [], [], {}),
            (3, "return y", [], [], [], {})])
        # the stmts record comes once, before the first kept FLT
        self.assertEqual([r[0] for r in rec.flt_records],
                         ["stmts", "begin", "step", "step", "end", "begin", "step", "step", "end"])

    def test_exit_condition_on_exception_with_max(self):
        rec = record(script("conditions.py"), trace=[
            {"func": "conditions:g", "cond": "isinstance(_exception, NameError)", "at": "exit", "max": 1}])
        self.assertEqual([rec.fid(i) for i in rec.flts], ["conditions:g#1"])
        self.assertEqual(rec.steps("conditions:g#1"), [
            (7, "return undefined_name + x", [], [], [],
             {"raise": ["NameError", "name 'undefined_name' is not defined"]})])
        self.assertEqual(rec.end("conditions:g#1"), ["exception", 0])


class Conditions(unittest.TestCase):
    def test_hits_evaluations_and_errors(self):
        rec = record(script("conditions.py"), conditions=[
            {"id": 0, "func": "conditions:f", "cond": "x > 2"},
            {"id": 1, "func": "conditions:f", "cond": "_return == 4 and y == 4", "at": "exit"},
            {"id": 7, "func": "conditions:f", "cond": "nope > 1"},
            {"id": 3, "func": "conditions:g", "cond": "_exception is not None and _return is None", "at": "exit"}])
        error = "NameError: name 'nope' is not defined"
        self.assertEqual(rec.result["conditions"], [
            {"id": 0, "hits": [4, 5], "evaluated": 5, "errors": []},
            {"id": 1, "hits": [3], "evaluated": 5, "errors": []},
            {"id": 7, "hits": [], "evaluated": 5, "errors": [[n, error] for n in range(1, 6)]},
            {"id": 3, "hits": [1], "evaluated": 1, "errors": []}])

    def test_condition_calls_are_not_recorded(self):
        rec = record(script("recursion.py"), conditions=[
            {"id": 0, "func": "recursion:main", "cond": "fact(2) == 2"}])
        self.assertEqual(rec.result["conditions"][0]["hits"], [1])
        self.assertEqual(rec.fids(), ["recursion:<module>#1", "recursion:main#1", "recursion:fact#1",
                                      "recursion:fact#2", "recursion:fact#3"])


class Expectations(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.first = record(script("diverge.py"))
        leaf = cls.first.get("diverge:leaf#2")
        cls.expect = [{"func": "diverge:leaf", "index": 2, "args_fp": leaf.fp,
                       "chain": ["diverge:<module>#1", "diverge:main#1", "diverge:branch#1"]}]

    def test_first_run(self):
        self.assertEqual(self.first.caller_of("diverge:leaf#2"), "diverge:branch#1")
        self.assertEqual(self.first.get("diverge:leaf#2").fp, "=2")

    def test_same_run_replays(self):
        rec = record(script("diverge.py"), expect=self.expect, trace=[{"func": "diverge:leaf", "index": 2}])
        self.assertIsNone(rec.result["divergence"])
        self.assertEqual(rec.steps("diverge:leaf#2"), [(5, "return x + 1", [], [], [], {})])

    def test_diverging_run(self):
        rec = record(script("diverge.py"), expect=self.expect, trace=[{"func": "diverge:leaf", "index": 2}],
                     env={"ADI_TEST_MODE": "b"})
        self.assertEqual(rec.result["divergence"], {
            "fid": "diverge:leaf#2",
            "expected": "callers diverge:<module>#1 > diverge:main#1 > diverge:branch#1, args =2",
            "actual": "callers diverge:<module>#1 > diverge:main#1, args =2"})
        self.assertEqual(rec.flts, {})

    def test_expected_invocation_never_happens(self):
        rec = record(script("diverge.py"), expect=[{"func": "diverge:leaf", "index": 9, "chain": [], "args_fp": "=1"}])
        self.assertEqual(rec.result["divergence"], {"fid": "diverge:leaf#9",
                                                    "expected": "callers (none), args =1",
                                                    "actual": "no such call"})


if __name__ == "__main__":
    unittest.main()
