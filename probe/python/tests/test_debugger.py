"""Functions for the debugger: hit(stop_id) as a breakpoint condition."""

import json
import os
import sys
import tempfile
import unittest

from .harness import FIXTURES, record, script

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def with_breakpoint(line, expression, stops, traced=(), fixture="loops.py", on_stop=None):
    """Run a fixture under the fake debugger with a conditional breakpoint at `line`."""
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
    out.close()
    env = {"FAKE_DEBUG_FILE": os.path.join(FIXTURES, fixture), "FAKE_DEBUG_OUT": out.name,
           "FAKE_DEBUG_BREAK": "%d:%s" % (line, expression)}
    if on_stop:
        env["FAKE_DEBUG_ON_STOP"] = on_stop
    try:
        rec = record(script(fixture), env=env, stops=stops,
                     trace=[{"func": f.rsplit("#")[0], "index": int(f.rsplit("#")[1])} for f in traced],
                     wrapper=[os.path.join(FIXTURES, "fake_debugger.py")])
        with open(out.name) as f:
            seen = json.load(f)
    finally:
        os.unlink(out.name)
    return rec, seen


class Hit(unittest.TestCase):
    def test_only_the_asked_visit_of_the_asked_invocation(self):
        stops = [{"id": 1, "func": "loops:countdown", "index": 1, "line": 29, "visit": 2}]
        rec, seen = with_breakpoint(29, "__import__('adi_probe').hit(1)", stops)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(seen, [["countdown", 29, "False"], ["countdown", 29, "True"]])

    def test_other_invocations_do_not_hit(self):
        stops = [{"id": 4, "func": "loops:early", "index": 2, "line": 11, "visit": 1}]
        rec, seen = with_breakpoint(11, "__import__('adi_probe').hit(4)", stops)
        # early#1 arrives twice at line 11, early#2 once
        self.assertEqual(seen, [["early", 11, "False"], ["early", 11, "False"], ["early", 11, "True"]])

    def test_unknown_stop(self):
        rec, seen = with_breakpoint(11, "__import__('adi_probe').hit(99)", [])
        self.assertEqual([s[2] for s in seen], ["False"] * 3)

    def test_stepping_and_breakpoint_together(self):
        stops = [{"id": 1, "func": "loops:countdown", "index": 1, "line": 29, "visit": 1}]
        rec, seen = with_breakpoint(29, "__import__('adi_probe').hit(1)", stops, traced=["loops:countdown#1"])
        self.assertEqual(seen, [["countdown", 29, "True"], ["countdown", 29, "False"]])
        self.assertEqual(rec.lines("loops:countdown#1"), [28, 29, 28, 29, 28, 30])


    def test_visits_count_steps_not_line_events(self):
        # `y = max(x,\n 0)` gives the debugger one or two line events on its first line per
        # execution, depending on the Python version; the FLT has one step per execution
        stops = [{"id": 2, "func": "hits:f", "index": 1, "line": 4, "visit": 2}]
        rec, seen = with_breakpoint(4, "(__import__('adi_probe').hit(2), x)", stops, fixture="hits.py",
                                    traced=["hits:f#1"])
        self.assertEqual([s[2] for s in seen if s[2].startswith("(True")], ["(True, 2)"])
        self.assertEqual(rec.lines("hits:f#1").count(4), 3)


class Execute(unittest.TestCase):
    STOP = [{"id": 0, "func": "loops:countdown", "index": 1, "line": 29, "visit": 2}]

    def execute(self, stmt):
        run = "__import__('adi_probe.execute', fromlist=['run']).run(%s)" % json.dumps(stmt)
        rec, seen = with_breakpoint(29, "__import__('adi_probe').hit(0)", self.STOP, on_stop=run)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertIn(["stop", 29, "'ok'"], seen)
        return rec

    def test_expression(self):
        rec = self.execute("n * 10")
        self.assertEqual(rec.exec_result, {"output": "", "value": "10", "exception": None,
                                           "traceback": [], "changed": []})

    def test_assignment_changes_the_frame(self):
        # stopped before `n -= 1` with n == 1: n = 3 makes the loop run two more times
        rec = self.execute("n = 3\nprint('n is', n)")
        self.assertEqual(rec.exec_result, {"output": "n is 3\n", "value": None, "exception": None,
                                           "traceback": [], "changed": [["n", "3"]]})
        self.assertEqual(rec.get("loops:countdown#1").outcome, ("ret", "0"))
        self.assertEqual(rec.lines("loops:countdown#1"), [28, 29, 28, 29, 28, 29, 28, 29, 28, 30])
        self.assertEqual(rec.fids().count("loops:countdown#1"), 1)

    def test_calls_are_not_recorded(self):
        rec = self.execute("early([1], 1)")
        self.assertEqual(rec.exec_result["value"], "0")
        self.assertEqual(rec.fids().count("loops:early#3"), 0)

    def test_exception(self):
        rec = self.execute("x = 1\nundefined_thing")
        self.assertEqual(rec.exec_result, {"output": "", "value": None, "exception": {
            "type": "NameError", "message": "name 'undefined_thing' is not defined", "line": 2},
            "traceback": ["statement line 2: undefined_thing"], "changed": [["x", "1"]]})


class Editor(unittest.TestCase):
    def test_stop_and_flush(self):
        stops = [{"id": 0, "func": "loops:countdown", "index": 1, "line": 29, "visit": 1}]
        rec, seen = with_breakpoint(29, "__import__('adi_probe').hit(0)", stops,
                                    on_stop="(__import__('adi_probe.editor').editor.stop(), "
                                            "__import__('adi_probe.editor').editor.flush() > 0)")
        self.assertIn(["stop", 29, "(%d, True)" % rec.get("loops:countdown#1").idx], seen)


if __name__ == "__main__":
    unittest.main()
