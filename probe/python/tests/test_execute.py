"""In-process exec stops: a `stops` entry with an ``exec`` statement, run by the probe alone."""

import unittest

from .harness import ENGINES, record, script


def exec_at(func, line, visit, stmt, engine, index=1):
    """Run exec_stop.py with one exec stop under `engine`; returns the Recording."""
    stops = [{"id": 0, "func": "exec_stop:" + func, "index": index, "line": line, "visit": visit,
              "exec": stmt}]
    return record(script("exec_stop.py"), engine=engine, stops=stops)


class ExecStop(unittest.TestCase):
    def each_engine(self, func, line, visit, stmt, check):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = exec_at(func, line, visit, stmt, engine)
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(rec.result["engine"], engine)
                check(rec)

    def assert_stopped(self, rec, exec_result):
        self.assertEqual(rec.exec_result, exec_result)
        self.assertEqual(rec.result["stopped"], "exec")
        self.assertEqual(rec.result["exit"], {"kind": "os_exit", "code": 0, "exception": None})
        # the program ended at the stop: what it printed before is kept, nothing after it ran
        self.assertEqual(rec.stdout, "before\n")
        self.assertEqual(rec.stderr, "")

    def test_expression_at_the_visit(self):
        # countdown(2): line 9 runs with n == 2, then n == 1
        def check(rec):
            self.assert_stopped(rec, {"output": "", "value": "10", "exception": None, "traceback": [], "changed": []})
            self.assertEqual(rec.end("exec_stop:countdown#1")[0], "unfinished")
            self.assertEqual(rec.lines("exec_stop:countdown#1"), [8, 9, 8, 9])
            self.assertNotIn("exec_stop:gen#1", rec.fids())
        self.each_engine("countdown", 9, 2, "n * 10", check)

    def test_output_and_exception_line(self):
        def check(rec):
            self.assert_stopped(rec, {"output": "n is 2\n", "value": None, "exception": {
                "type": "NameError", "message": "name 'undefined_thing' is not defined", "line": 2},
                "traceback": ["statement line 2: undefined_thing"], "changed": []})
        self.each_engine("countdown", 9, 1, "print('n is', n)\nundefined_thing", check)

    def test_calls_are_not_recorded(self):
        def check(rec):
            self.assert_stopped(rec, {"output": "", "value": "4", "exception": None, "traceback": [], "changed": []})
            self.assertNotIn("exec_stop:helper#1", rec.fids())
        self.each_engine("countdown", 8, 1, "helper(3) + (n - 2)", check)

    def test_syntax_error(self):
        def check(rec):
            self.assertEqual(rec.exec_result["exception"]["type"], "SyntaxError")
            self.assertEqual(rec.exec_result["exception"]["line"], 1)
            self.assertEqual(rec.result["stopped"], "exec")
        self.each_engine("countdown", 8, 1, "x = = 1", check)

    def test_generator_steps_count_resumptions(self):
        # gen's line 3 starts a step when reached (visits 1, 3, 5) and when resumed (2, 4)
        def check(rec):
            self.assert_stopped(rec, {"output": "", "value": "(1, 5, 5)", "exception": None, "traceback": [],
                                      "changed": []})
        self.each_engine("gen", 3, 3, "i, got, total", check)

        def resumed(rec):
            self.assert_stopped(rec, {"output": "", "value": "(0, False)", "exception": None, "traceback": [],
                                      "changed": []})
        self.each_engine("gen", 3, 2, "i, 'got' in dir()", resumed)

    def test_not_reached_runs_to_the_end(self):
        def check(rec):
            self.assertIsNone(rec.exec_result)
            self.assertNotIn("stopped", rec.result)
            self.assertEqual(rec.result["exit"], {"kind": "exit", "code": 0, "exception": None})
            self.assertEqual(rec.stdout, "before\nafter\n")
            # the stop's invocation was stepped: its FLT says where it went
            self.assertEqual(rec.lines("exec_stop:countdown#1"), [8, 9, 8, 9, 8, 10])
        self.each_engine("countdown", 9, 3, "n", check)

    def test_other_invocation_does_not_stop(self):
        def check(rec):
            self.assertIsNone(rec.exec_result)
            self.assertNotIn("stopped", rec.result)
        for engine in ENGINES:
            with self.subTest(engine=engine):
                check(exec_at("countdown", 9, 1, "n", engine, index=2))

    def test_stops_only_writes_no_records(self):
        # an exec's run (config "stops_only"): the stop answers, calls.bin and flt.bin hold their
        # magic alone, and what the program does is the same
        def check(rec):
            self.assert_stopped(rec, {"output": "", "value": "10", "exception": None, "traceback": [], "changed": []})
            self.assertEqual(rec.calls_records, [])
            self.assertEqual(rec.flt_records, [])
        for engine in ENGINES:
            with self.subTest(engine=engine):
                stops = [{"id": 0, "func": "exec_stop:countdown", "index": 1, "line": 9, "visit": 2, "exec": "n * 10"}]
                rec = record(script("exec_stop.py"), engine=engine, stops=stops, light=True, stops_only=True)
                self.assertEqual(rec.returncode, 0, rec.stderr)
                check(rec)

    def test_stops_only_missed_runs_to_the_end(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                stops = [{"id": 0, "func": "exec_stop:countdown", "index": 1, "line": 9, "visit": 3, "exec": "n"}]
                rec = record(script("exec_stop.py"), engine=engine, stops=stops, light=True, stops_only=True)
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertIsNone(rec.exec_result)
                self.assertNotIn("stopped", rec.result)
                self.assertEqual(rec.stdout, "before\nafter\n")
                self.assertEqual(rec.calls_records, [])

    def test_exec_must_be_a_string(self):
        rec = record(script("exec_stop.py"), stops=[{"func": "exec_stop:countdown", "index": 1, "line": 9,
                                                     "exec": 3}])
        self.assertEqual(rec.returncode, 2)
        self.assertEqual(rec.stderr, "adi: 'stops[0].exec' must be a string\n")
        self.assertEqual(rec.result["error"], "'stops[0].exec' must be a string")


if __name__ == "__main__":
    unittest.main()


class NestedScopes(unittest.TestCase):
    """A comprehension, generator expression or lambda in the statement sees the frame's locals."""

    def test_comprehension_sees_locals(self):
        rec = exec_at("countdown", 9, 1, "[n * i for i in range(3)], sum(n for _ in 'ab'), (lambda: n)()",
                      "trace")
        self.assertEqual(rec.exec_result, {"output": "", "value": "([0, 2, 4], 4, 2)", "exception": None,
                                           "traceback": [], "changed": []})

    def test_assignment_with_comprehension_reaches_the_frame(self):
        rec = record(script("exec_stop.py"), stops=[
            {"id": 0, "func": "exec_stop:countdown", "index": 1, "line": 9, "visit": 1,
             "exec": "xs = [n + i for i in range(2)]\nprint(xs, [x for x in xs if x > n])"}])
        self.assertEqual(rec.exec_result, {"output": "[2, 3] [3]\n", "value": None, "exception": None,
                                           "traceback": [], "changed": [["xs", "[2, 3]"]]})
