"""Running targets like python does: argv, sys.path, __main__, stdin, exits, launch errors."""

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

from .harness import ENGINES, DEBIAN_PYTHON, FIXTURES, PROBE, code, module, record, script

FIX = FIXTURES


class MainModule(unittest.TestCase):
    def test_script_sees_what_python_gives_it(self):
        rec = record(script("main_check.py", ["x", "y"]))
        self.assertEqual(rec.returncode, 0, rec.stderr)
        plain = subprocess.run([sys.executable, os.path.join(FIX, "main_check.py"), "x", "y"], cwd=FIX,
                               stdout=subprocess.PIPE, universal_newlines=True, check=True)
        self.assertEqual(rec.stdout, plain.stdout)
        self.assertIn("name __main__\n", rec.stdout)
        self.assertIn("argv ['%s', 'x', 'y']\n" % os.path.join(FIX, "main_check.py"), rec.stdout)
        self.assertIn("path0 %s\n" % FIX, rec.stdout)
        self.assertIn("pickled __main__ 3\n", rec.stdout)
        self.assertIn("probe_on_path False\n", rec.stdout)
        self.assertEqual(rec.fids(), ["main_check:<module>#1", "main_check:Point#1", "main_check:check#1",
                                      "main_check:Point.__init__#1"])

    def test_code_mode(self):
        rec = record(code("import sys, cmod; print(cmod.main(21), sys.argv, repr(sys.path[0]))", ["q"]))
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.stdout, "42 ['-c', 'q'] ''\n")
        self.assertEqual([(i.fid, i.caller, i.args, i.outcome) for i in rec.order], [
            ("cmod:<module>#1", -1, [], ("ret", "None")),
            ("cmod:main#1", -1, [("k", "21")], ("ret", "42"))])

    def test_module_mode_unittest(self):
        rec = record(module("unittest", ["unittest_sample.T.test_add"]))
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertIn("Ran 1 test", rec.stderr)
        self.assertEqual(rec.result["exit"], {"kind": "exit", "code": 0, "exception": None})
        self.assertEqual(rec.fids(), ["unittest_sample:<module>#1", "unittest_sample:T#1",
                                      "unittest_sample:T.test_add#1", "unittest_sample:add#1"])
        self.assertEqual(rec.caller_of("unittest_sample:add#1"), "unittest_sample:T.test_add#1")
        self.assertEqual(rec.get("unittest_sample:add#1").outcome, ("ret", "5"))

    @unittest.skipUnless(importlib.util.find_spec("pytest"), "pytest is not installed for this Python "
                                                               "(it is for %s)" % DEBIAN_PYTHON)
    def test_module_mode_pytest(self):
        rec = record(module("pytest", ["pyt/test_sample.py::test_mul", "-q", "-p", "no:cacheprovider"]))
        self.assertEqual(rec.returncode, 0, rec.stdout + rec.stderr)
        self.assertIn("1 passed", rec.stdout)
        self.assertEqual(rec.fids(), ["pyt.test_sample:<module>#1", "pyt.test_sample:test_mul#1",
                                      "pyt.test_sample:mul#1"])
        self.assertEqual(rec.get("pyt.test_sample:mul#1").args, [("a", "3"), ("b", "4")])
        self.assertEqual(rec.get("pyt.test_sample:mul#1").outcome, ("ret", "12"))


class Stdin(unittest.TestCase):
    def test_from_file(self):
        rec = record(script("stdin_prog.py"), stdin_text="hello\nworld\n")
        self.assertEqual(rec.stdout, "['HELLO', 'WORLD'] EOF\n")
        self.assertEqual([(i.fid, i.args) for i in rec.order[2:]], [
            ("stdin_prog:shout#1", [("line", "'hello\\n'")]), ("stdin_prog:shout#2", [("line", "'world\\n'")])])

    def test_none_is_eof(self):
        rec = record(script("stdin_prog.py"))
        self.assertEqual(rec.stdout, "[] EOF\n")


class Exits(unittest.TestCase):
    def test_os_exit_still_writes_the_result(self):
        rec = record(script("osexit.py"))
        self.assertEqual(rec.returncode, 3)
        self.assertEqual(rec.stdout, "bye\n")
        self.assertEqual(rec.result["exit"], {"kind": "os_exit", "code": 3, "exception": None})
        self.assertEqual([(i.fid, i.outcome) for i in rec.order], [
            ("osexit:<module>#1", None), ("osexit:main#1", None), ("osexit:helper#1", ("ret", "2"))])

    def test_forked_child_writes_nothing(self):
        """The child of os.fork records nothing; the parent writes a fork record naming the
        invocation it forked in (main#1), so that answers can say the child's calls are missing."""
        rec = record(script("fork_prog.py"))
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.fids(), ["fork_prog:<module>#1", "fork_prog:main#1", "fork_prog:parent_work#1"])
        self.assertEqual(rec.result["exit"], {"kind": "exit", "code": 0, "exception": None})
        self.assertEqual([r for r in rec.calls_records if r[0] == "fork"], [["fork", rec.get("fork_prog:main#1").idx]])

    def test_sys_exit_codes(self):
        for how, status, stderr in (("int", 3, ""), ("str", 1, "goodbye\n"), ("none", 0, "")):
            with self.subTest(how=how):
                rec = record(script("sysexit.py", [how]))
                self.assertEqual(rec.returncode, status)
                self.assertEqual(rec.stderr, stderr)
                self.assertEqual(rec.result["exit"], {"kind": "exit", "code": status, "exception": None})
                self.assertEqual(rec.get("sysexit:leave#1").outcome[:2], ("exc", "SystemExit"))

    def test_killed_run_is_readable_up_to_its_last_batch(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("killed.py"), engine=engine)
                self.assertEqual(rec.returncode, -9)
                self.assertIsNone(rec.result)
                # batches are written every 2048 calls: the last one before the kill ended at
                # idx 4095; the harness checks that no idx is missing below the highest
                self.assertEqual(len(rec.order), 4096)
                self.assertEqual([i.fid for i in rec.order[:3]], ["killed:<module>#1", "killed:main#1",
                                                                  "killed:work#1"])
                for inv in rec.order[:3]:
                    self.assertIsNone(inv.outcome)  # written open, never ended
                self.assertEqual(rec.order[-1].fid, "killed:leaf#4093")
                self.assertEqual(rec.order[-2].outcome, ("ret", "4091"))

    def test_uncaught_exception(self):
        rec = record(script("uncaught.py"))
        plain = subprocess.run([sys.executable, os.path.join(FIX, "uncaught.py")], cwd=FIX,
                               stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(rec.returncode, 1)
        self.assertEqual(rec.stderr, plain.stderr)
        self.assertNotIn("adi_probe", rec.stderr)
        exc = rec.result["exit"]["exception"]
        self.assertEqual(rec.result["exit"]["kind"], "exception")
        self.assertEqual(rec.result["exit"]["code"], 1)
        self.assertEqual((exc["type"], exc["message"], exc["file"], exc["line"]),
                         ("KeyError", "'zz'", os.path.join(FIX, "uncaught.py"), 2))
        self.assertEqual(exc["traceback"], plain.stderr)
        self.assertEqual([(i.fid, i.outcome) for i in rec.order], [
            ("uncaught:<module>#1", ("exc", "KeyError", "'zz'", 10)),
            ("uncaught:outer#1", ("exc", "KeyError", "'zz'", 6)),
            ("uncaught:inner#1", ("exc", "KeyError", "'zz'", 2))])

    def test_syntax_error_in_target(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.py")
            with open(path, "w") as f:
                f.write("x = (\n")
            rec = record(script(path), root=tmp)
            plain = subprocess.run([sys.executable, path], stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(rec.returncode, 1)
        if sys.version_info >= (3, 10):
            self.assertEqual(rec.stderr, plain.stderr)
        else:  # 3.8/3.9 place an EOF error differently when parsing a string
            self.assertEqual(rec.stderr.splitlines()[-1], plain.stderr.splitlines()[-1])
        self.assertEqual(rec.result["exit"]["exception"]["type"], "SyntaxError")


class LaunchErrors(unittest.TestCase):
    def run_config(self, config_text):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                f.write(config_text.replace("OUT", os.path.join(tmp, "out")))
            proc = subprocess.run([sys.executable, PROBE, path], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
            result = None
            if os.path.exists(os.path.join(tmp, "out", "result.json")):
                with open(os.path.join(tmp, "out", "result.json")) as f:
                    result = json.load(f)
        return proc, result

    def test_missing_script(self):
        rec = record(script("/nonexistent/t.py"))
        self.assertEqual(rec.returncode, 2)
        self.assertEqual(rec.stderr, "adi: cannot run /nonexistent/t.py: no such file\n")
        self.assertEqual(rec.result["exit"], {"kind": "exit", "code": 2, "exception": None})
        self.assertEqual(rec.result["error"], "cannot run /nonexistent/t.py: no such file")
        self.assertFalse(rec.result["complete"])

    def test_missing_module(self):
        rec = record(module("no_such_module_here"))
        self.assertEqual(rec.returncode, 2)
        self.assertEqual(rec.stderr, "adi: cannot run module no_such_module_here: "
                                     "No module named no_such_module_here\n")
        self.assertEqual(rec.result["error"], "cannot run module no_such_module_here: "
                                              "No module named no_such_module_here")

    def test_missing_stdin_file(self):
        rec = record(dict(script("stdin_prog.py"), stdin="/nonexistent/in.txt"))
        self.assertEqual(rec.returncode, 2)
        self.assertEqual(rec.stderr, "adi: cannot read stdin file /nonexistent/in.txt: No such file or directory\n")

    def test_bad_config(self):
        proc, result = self.run_config('{"version": 1, "out": "OUT", "target": {"mode": "nope"}}')
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stderr, "adi: target.mode must be 'script', 'module' or 'code', not 'nope'\n")
        self.assertEqual(result["error"], "target.mode must be 'script', 'module' or 'code', not 'nope'")
        self.assertEqual(result["exit"]["code"], 2)

    def test_bad_condition(self):
        proc, result = self.run_config('{"out": "OUT", "target": {"mode": "code", "code": "pass"},'
                                       ' "trace": [{"func": "t:f", "cond": "x >"}]}')
        self.assertEqual(proc.returncode, 2)
        try:
            compile("x >", "", "eval")
        except SyntaxError as exc:
            why = exc.msg  # "invalid syntax" (3.8/3.9: "unexpected EOF while parsing")
        self.assertEqual(proc.stderr, "adi: condition 'x >' is not a Python expression: %s\n" % why)
        self.assertEqual(result["error"], "condition 'x >' is not a Python expression: %s" % why)

    def test_unreadable_config(self):
        proc, result = self.run_config("{not json")
        self.assertEqual(proc.returncode, 2)
        self.assertTrue(proc.stderr.startswith("adi: config "), proc.stderr)
        self.assertIsNone(result)


if __name__ == "__main__":
    unittest.main()


class TraceTests(unittest.TestCase):
    """trace_tests: the FLT of each test function a test runner calls, not of what it calls."""

    def test_unittest_methods(self):
        rec = record(module("unittest", ["unittest_sample.T.test_add", "unittest_sample.T.test_other"]),
                     trace_tests=True)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        traced = sorted(rec.fid(i) for i in rec.flts)
        self.assertEqual(traced, ["unittest_sample:T.test_add#1", "unittest_sample:T.test_other#1"])
        self.assertEqual([s[0] for s in rec.steps("unittest_sample:T.test_add#1")], [10])

    def test_time_budget(self):
        # trace_tests_ms: tests that start once the tests' stepping time is spent are not
        # stepped; with none, the first test (started before anything was spent) is the only one
        rec = record(module("unittest", ["unittest_sample.T.test_add", "unittest_sample.T.test_other"]),
                     trace_tests=True, trace_tests_ms=0)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        traced = sorted(rec.fid(i) for i in rec.flts)
        self.assertEqual(traced, ["unittest_sample:T.test_add#1"])
        self.assertEqual(rec.end("unittest_sample:T.test_add#1"), ["return", 0])
        self.assertEqual([inv.fid for inv in rec.order if ".test_" in inv.fid],
                         ["unittest_sample:T.test_add#1", "unittest_sample:T.test_other#1"])

    def test_off_by_default(self):
        rec = record(module("unittest", ["unittest_sample.T.test_add"]))
        self.assertEqual(rec.flts, {})
