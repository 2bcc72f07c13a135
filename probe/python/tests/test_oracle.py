"""The ΔS oracle (oracle.py), on its own: what it finds each statement changed, and how it judges
an FLT. integration/oracle_test.go compares it with adi's real FLTs."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.path.join(HERE, "oracle.py")
FIXTURES = os.path.join(HERE, "fixtures")
PROG = "oracle_prog.py"


def run(func, index=1, flt=None):
    """The oracle's JSON for invocation `index` of `func` in the fixture (with a comparison
    when `flt`, an FLT as adi's JSON has it, is given)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        argv = [sys.executable, ORACLE, "--file", PROG, "--func", func, "--index", str(index), "--out", out]
        if flt is not None:
            path = os.path.join(tmp, "flt.json")
            with open(path, "w") as f:
                json.dump({"result": {"flt": flt}}, f)
            argv += ["--adi", path]
        proc = subprocess.run(argv + ["--", PROG], cwd=FIXTURES, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
                              timeout=60)
        assert proc.returncode == 0, proc.stderr.decode()
        with open(out) as f:
            return json.load(f)


def changes(res):
    """[(line, {name: (status, [paths])})] of the oracle's steps."""
    return [(s["line"], {c["name"]: (c["status"], [p["path"] for p in c.get("paths", [])])
                         for c in s["changes"]}) for s in res["steps"]]


def flt(steps):
    return {"frame": {"fid": "x#1"}, "steps": [{"line": line, "changes": ch} for line, ch in steps]}


class Truth(unittest.TestCase):
    def test_a_new_tuple_is_a_rebinding(self):
        got = changes(run("rebind"))
        self.assertEqual([line for line, _ in got], [16, 17, 16, 17, 16, 18])
        self.assertEqual(got[0][1], {"item": ("new", [])})
        self.assertEqual(got[2][1], {"item": ("rebound", [])})  # (a, a, b) -> (a, b, b)

    def test_one_write_one_atom_reached_by_each_alias(self):
        got = changes(run("alias"))
        self.assertEqual(got[2], (24, {"a": ("changed", [".name"]), "same": ("changed", [".name"]),
                                       "pair": ("changed", ["[0].name"])}))

    def test_a_change_inside_a_key_has_no_path(self):
        res = run("keys")
        step = res["steps"][1]
        self.assertEqual(step["line"], 30)
        by_name = {c["name"]: c for c in step["changes"]}
        self.assertEqual([(p["path"], p["expressible"]) for p in by_name["a"]["paths"]], [(".cache['k']", True)])
        (inside,) = by_name["d"]["paths"]
        self.assertTrue(inside["path"].startswith("{key P@") and inside["path"].endswith("}.cache['k']"), inside)
        self.assertFalse(inside["expressible"])
        self.assertEqual(inside["object"], by_name["a"]["paths"][0]["object"])  # one object, two ways
        (bump,) = res["steps"][2]["changes"]
        self.assertEqual((bump["name"], bump["status"], bump["paths"][0]["kind"]), ("d", "changed", "set"))
        self.assertRegex(bump["paths"][0]["path"], r"^\[P@\d+\(.*name='b'.*\)\]$")

    def test_globals_declared_and_module_state(self):
        got = changes(run("glob", 2))
        self.assertEqual(got, [(41, {"global TOTAL": ("rebound", [])}), (42, {"module LOG": ("changed", ["[1]"])}),
                               (43, {})])

    def test_generators_are_counted_by_call(self):
        res = run("gen", 2)
        self.assertEqual(res["invocations"], 2)
        # a yield ends a step; the resumption starts one on the same line
        self.assertEqual([(s["line"], s.get("suspend", False), s.get("resume", False)) for s in res["steps"]],
                         [(47, False, False), (48, True, False), (48, False, True), (47, False, False),
                          (48, True, False), (48, False, True), (47, False, False), (48, True, False),
                          (48, False, True), (47, False, False)])


class Judge(unittest.TestCase):
    def test_path_on_a_rebound_variable(self):
        res = run("rebind", flt=flt([
            (16, [{"name": "item", "new": "(...)", "kind": "new"}]), (17, []),
            (16, [{"name": "item", "path": "[1].name", "old": "'a'", "new": "'b'", "kind": "mod"}]),
            (17, []), (16, []), (18, [])]))
        mm = res["comparison"]["mismatches"]
        self.assertEqual([(m["check"], m["line"], m["name"]) for m in mm], [("path-on-rebound", 16, "item")])

    def test_duplicates_and_missing(self):
        res = run("alias", flt=flt([
            (22, [{"name": "same", "new": "P", "kind": "new"}]),
            (23, [{"name": "pair", "new": "[P, P]", "kind": "new"}]),
            (24, [{"name": "a", "path": ".name", "old": "'a'", "new": "'z'", "kind": "mod"},
                  {"name": "pair", "path": "[1].name", "old": "'a'", "new": "'z'", "kind": "mod"}]),
            (25, [])]))
        mm = res["comparison"]["mismatches"]
        self.assertEqual([(m["check"], m["line"], m["name"]) for m in mm], [("duplicate", 24, "a, pair")])
        res = run("alias", flt=flt([(22, []), (23, [{"name": "pair", "new": "[P, P]", "kind": "new"}]),
                                    (24, []), (25, [])]))
        mm = res["comparison"]["mismatches"]
        self.assertEqual([(m["check"], m["line"], m["name"]) for m in mm],
                         [("missing", 22, "same"), ("missing", 24, "a")])

    def test_not_real_wrong_step_and_a_key_readded(self):
        res = run("keys", flt=flt([
            (29, [{"name": "d", "new": "{...}", "kind": "new"},
                  {"name": "a", "path": ".cache['k']", "new": "1", "kind": "new"}]),
            (30, [{"name": "d", "path": "[P(name='a', cache={'k': 1})]", "new": "1", "kind": "new"},
                  {"name": "d", "path": "[P(name='a', cache={})]", "kind": "del"}]),
            (31, [{"name": "d", "path": "[P(name='b', cache={})]", "old": "2", "new": "3", "kind": "mod"}]),
            (32, [])]))
        mm = res["comparison"]["mismatches"]
        self.assertEqual([(m["check"], m["line"], m["name"]) for m in mm],
                         [("wrong-step", 29, "a"), ("missing", 30, "a"), ("not-real", 30, "d"),
                          ("not-real", 30, "d")])
        self.assertIn("the key is the same object, changed inside: key.cache['k'] added = 1", mm[2]["oracle"])


if __name__ == "__main__":
    unittest.main()
