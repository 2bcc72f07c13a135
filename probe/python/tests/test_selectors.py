"""Trace selectors (index, cond at entry/exit, max), conditions, and replay expectations."""

import unittest

from adi_probe import config

from .harness import ENGINES, record, script


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


class LineConditions(unittest.TestCase):
    """Conditions at "line": evaluated when a statement of the function starts, with its locals."""

    CONDITIONS = [
        {"id": 0, "func": "loops:nested", "cond": "total == 1", "at": "line", "line": 6},
        {"id": 1, "func": "loops:nested", "cond": "j == 1", "at": "line", "line": 5},
        {"id": 2, "func": "loops:countdown", "cond": "n == 0", "at": "line", "line": 29},
        {"id": 3, "func": "loops:countdown", "cond": "n == 1", "at": "line", "line": 29},
        {"id": 4, "func": "loops:early", "cond": "x == 7", "at": "line", "line": 11}]

    def test_hits_at_a_line_in_every_engine(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("loops.py"), conditions=self.CONDITIONS, engine=engine)
                # visits: [statement line, visit] where each hit held (the k-th step at that line)
                self.assertEqual(rec.result["conditions"], [
                    {"id": 0, "hits": [1], "evaluated": 1, "errors": [], "visits": [[6, 1]]},
                    # line 5 runs three times; evaluation stops once the condition held
                    {"id": 1, "hits": [1], "evaluated": 3, "errors": [], "visits": [[5, 3]]},
                    # n -= 1 runs with n = 2 and n = 1, never with 0
                    {"id": 2, "hits": [], "evaluated": 2, "errors": [], "visits": []},
                    {"id": 3, "hits": [1], "evaluated": 2, "errors": [], "visits": [[29, 2]]},
                    # early#2 never reaches line 11 with x == 7
                    {"id": 4, "hits": [1], "evaluated": 3, "errors": [], "visits": [[11, 2]]}])
                self.assertEqual(rec.flts, {}, "stepping for a line condition keeps no FLT")

    def test_line_condition_and_a_traced_frame(self):
        rec = record(script("loops.py"), trace=[{"func": "loops:countdown", "index": 1}],
                     conditions=[{"id": 0, "func": "loops:countdown", "cond": "n == 1", "at": "line", "line": 29}])
        self.assertEqual(rec.result["conditions"][0]["hits"], [1])
        self.assertEqual([rec.fid(i) for i in rec.flts], ["loops:countdown#1"])

    def test_config_errors(self):
        with self.assertRaisesRegex(Exception, "'conditions\\[0\\].line' is required"):
            config.Config({"out": "o", "target": {"mode": "code", "code": "pass"},
                           "conditions": [{"func": "t:f", "cond": "x", "at": "line"}]})
        with self.assertRaisesRegex(Exception, "conditions\\[0\\]: 'line' needs 'at': 'line'"):
            config.Config({"out": "o", "target": {"mode": "code", "code": "pass"},
                           "conditions": [{"func": "t:f", "cond": "x", "line": 3}]})
        with self.assertRaisesRegex(Exception, "trace\\[0\\]: 'at' must be 'entry' or 'exit', not 'line'"):
            config.Config({"out": "o", "target": {"mode": "code", "code": "pass"},
                           "trace": [{"func": "t:f", "cond": "x", "at": "line"}]})


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
