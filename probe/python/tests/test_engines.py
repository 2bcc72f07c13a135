"""Engines agree, runs are deterministic, and the probe coexists with a debugger's tracer."""

import json
import os
import sys
import tempfile
import unittest

from .harness import ENGINES, FIXTURES, record, script

# (fixture, trace selectors, extra config) covering every kind of record
SCENARIOS = [
    ("loops.py", ["loops:nested#1", "loops:early#1", "loops:skipping#1", "loops:countdown#1"], {}),
    ("exceptions.py", ["exceptions:caught_inside#1", "exceptions:raiser#1", "exceptions:middle#2",
                       "exceptions:top#1"], {}),
    ("recursion.py", ["recursion:fact#2"], {}),
    ("methods.py", ["methods:main#1", "methods:Counter.__init__#1"], {}),
    ("generators.py", ["generators:numbers#1", "generators:outer#1", "generators:inner#1",
                       "generators:thrower#1", "generators:coro#1", "generators:main#1"], {}),
    ("comprehensions.py", ["comprehensions:main#1"], {}),
    ("mutation.py", ["mutation:mutate#1"], {}),
    ("multiline.py", ["multiline:build#1"], {}),
    # (not main: on 3.13 the repr of a joined Thread may still say "started", a CPython race)
    ("threads_prog.py", ["threads_prog:work#2", "threads_prog:step#2", "threads_prog:main.<locals>.run#1"], {}),
    ("osexit.py", ["osexit:main#1"], {}),
    ("settrace_prog.py", ["settrace_prog:main#1"], {}),
    ("values_prog.py", ["values_prog:main#1"], {"repr_limit": 40}),
    ("many_calls.py", ["many_calls:loop#1"], {"limits": {"max_calls": 20, "max_steps": 30}}),
    ("async_prog.py", ["async_prog:gather_all#1", "async_prog:agen#1", "async_prog:<module>#1"], {}),
    ("conditions.py", [], {
        "trace": [{"func": "conditions:f", "cond": "x % 2 == 1", "max": 1},
                  {"func": "conditions:f", "cond": "_return >= 6", "at": "exit"}],
        "conditions": [{"id": 0, "func": "conditions:f", "cond": "x > 2"},
                       {"id": 1, "func": "conditions:g", "cond": "_exception is not None", "at": "exit"}]}),
]


def selectors(fids):
    return [{"func": f.rsplit("#", 1)[0], "index": int(f.rsplit("#", 1)[1])} for f in fids]


def run(scenario, **kw):
    name, fids, extra = scenario
    config = dict(extra)
    config["trace"] = config.get("trace", []) + selectors(fids)
    return record(script(name), **dict(config, **kw))


def comparable_result(rec):
    result = dict(rec.result)
    result.pop("duration_ms")
    result.pop("engine")
    return result


class EnginesAgree(unittest.TestCase):
    """Every engine available on this interpreter writes byte-identical records (but for the
    numbering of generators, which sys.monitoring takes at their creation)."""

    def test_all_scenarios(self):
        if len(ENGINES) < 2:
            self.skipTest("one engine only")
        for scenario in SCENARIOS:
            with self.subTest(fixture=scenario[0]):
                runs = {engine: run(scenario, engine=engine) for engine in ENGINES}
                first = runs[ENGINES[0]]
                self.assertTrue(first.calls_raw)
                for engine in ENGINES[1:]:
                    other = runs[engine]
                    self.assertEqual(other.result["engine"], engine)
                    if any(r[0] == "made" for r in other.calls_records):
                        # sys.monitoring numbers generators when they are created, the others
                        # when they first run (docs/semantics.md; test_truth3 checks both)
                        continue
                    self.assertEqual(other.calls_raw, first.calls_raw, "%s vs %s" % (engine, ENGINES[0]))
                    self.assertEqual(other.flt_raw, first.flt_raw, "%s vs %s" % (engine, ENGINES[0]))
                    self.assertEqual(comparable_result(other), comparable_result(first))


class Deterministic(unittest.TestCase):
    def test_same_program_same_bytes(self):
        for scenario in SCENARIOS[:9]:
            with self.subTest(fixture=scenario[0]):
                a, b = run(scenario), run(scenario)
                self.assertEqual(a.calls_raw, b.calls_raw)
                self.assertEqual(a.flt_raw, b.flt_raw)

    def test_no_timing_fields_in_records(self):
        rec = run(SCENARIOS[0])
        for r in rec.calls_records + rec.flt_records:
            self.assertNotIsInstance(r[-1], float)


class UnderADebugger(unittest.TestCase):
    """A pydevd-like global tracer keeps seeing every line of a frame the probe steps."""

    def _fake(self, argv_tail, traced, grab=None):
        out = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
        out.close()
        env = {"FAKE_DEBUG_FILE": os.path.join(FIXTURES, "loops.py"), "FAKE_DEBUG_OUT": out.name}
        if grab:
            env["FAKE_DEBUG_GRAB"] = grab
        try:
            rec = record(script("loops.py"), env=env, trace=selectors(traced),
                         wrapper=[os.path.join(FIXTURES, "fake_debugger.py")] + argv_tail)
            with open(out.name) as f:
                seen = json.load(f)
        finally:
            os.unlink(out.name)
        return rec, seen

    def test_debugger_sees_every_line_and_probe_records_the_same(self):
        import subprocess
        out = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
        out.close()
        env = dict(os.environ, FAKE_DEBUG_FILE=os.path.join(FIXTURES, "loops.py"), FAKE_DEBUG_OUT=out.name)
        subprocess.run([sys.executable, os.path.join(FIXTURES, "fake_debugger.py"),
                        os.path.join(FIXTURES, "loops.py")], env=env, check=True, cwd=FIXTURES)
        with open(out.name) as f:
            alone = json.load(f)
        os.unlink(out.name)

        traced = ["loops:nested#1", "loops:skipping#1", "loops:countdown#1"]
        rec, seen = self._fake([], traced)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        expected_engine = "monitoring" if sys.version_info >= (3, 12) else "profile"
        self.assertEqual(rec.result["engine"], expected_engine)
        for func in ("nested", "skipping", "countdown", "early", "main"):
            self.assertEqual([ln for f, ln in seen if f == func], [ln for f, ln in alone if f == func], func)
        self.assertEqual(seen, alone)

        plain = record(script("loops.py"), trace=selectors(traced))
        self.assertEqual(rec.calls_raw, plain.calls_raw)
        self.assertEqual(rec.flt_raw, plain.flt_raw)

    def test_debugger_taking_over_a_stepped_frame(self):
        # like pydevd stopping in nested(): it assigns its tracer to the calling frames, main
        # among them; the probe wraps it again when nested returns
        traced = ["loops:main#1"]
        rec, seen = self._fake([], traced, grab="nested")
        self.assertEqual(rec.returncode, 0, rec.stderr)
        plain = record(script("loops.py"), trace=selectors(traced))
        self.assertEqual(rec.flt_raw, plain.flt_raw)
        self.assertEqual(rec.calls_raw, plain.calls_raw)
        self.assertEqual([ln for f, ln in seen if f == "main"], [34, 35, 36, 37, 38])


if __name__ == "__main__":
    unittest.main()
