"""Watching functions in an editor's recording run (adi_probe/editwatch.py; PROTOCOL.md,
"Watching in an editor's run"): a full recording whose config names a control socket; watches
added through it while the program runs record the FLTs of the following invocations, written
as they end."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from . import harness

APP = os.path.join(harness.FIXTURES, "editwatch_app.py")
FUNC = "editwatch_app:work"


class EditorRun:
    """editwatch_app.py recorded by the probe with a control socket; its stdin is a FIFO the
    test writes numbers to (each a call of work) and reads the answers of."""

    def __init__(self, engine=None):
        self.tmp = tempfile.mkdtemp(prefix="adi-editwatch-test-")
        self.out = os.path.join(self.tmp, "out")
        self.sock_path = os.path.join(self.tmp, "ctl.sock")
        fifo = os.path.join(self.tmp, "stdin")
        os.mkfifo(fifo)
        target = harness.script("editwatch_app.py")
        target["stdin"] = fifo
        cfg = {"version": 1, "out": self.out, "target": target, "root": harness.FIXTURES,
               "control": self.sock_path}
        cfg_path = os.path.join(self.tmp, "config.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        env.pop("ADI_PROBE_ENGINE", None)
        if engine is not None:
            env["ADI_PROBE_ENGINE"] = engine
        self.proc = subprocess.Popen([sys.executable, harness.PROBE, cfg_path], cwd=harness.FIXTURES, env=env,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.stdin = open(fifo, "wb")  # (blocks until the probe opens it)
        self.conn = self._connect()
        self.next_id = 0

    def _connect(self):
        return harness.connect_control(self.sock_path, self.proc)

    def work(self, x):
        self.stdin.write(b"%d\n" % x)
        self.stdin.flush()
        return self.proc.stdout.readline().decode().strip()

    def call(self, op, **kw):
        self.next_id += 1
        self.conn.write(json.dumps(dict(kw, id=self.next_id, op=op)).encode() + b"\n")
        self.conn.flush()
        answer = json.loads(self.conn.readline().decode())
        assert answer["id"] == self.next_id, answer
        return answer

    def ctl(self, op, **kw):
        answer = self.call(op, **kw)
        if "error" in answer:
            raise AssertionError(answer["error"])
        return answer["result"]

    def so_far(self):
        """What the run wrote so far (it runs on)."""
        proc = subprocess.CompletedProcess([], None, b"", b"")
        return harness.Recording(self.out, proc)

    def finish(self):
        self.conn.close()
        self.stdin.write(b"quit\n")
        self.stdin.close()
        out, err = self.proc.communicate(timeout=60)
        self.socket_left = os.path.exists(self.sock_path)
        try:
            return harness.Recording(self.out, subprocess.CompletedProcess([], self.proc.returncode, out, err))
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


class EditorWatchTest(unittest.TestCase):

    def check(self, engine):
        run = EditorRun(engine)
        try:
            self.assertEqual(run.work(1), "2")  # work#1, before any watch
            self.assertEqual(run.ctl("add", func="work", cond="x > 1", max=2),
                             {"watch": 1, "matches": [FUNC]})
            self.assertEqual(run.work(1), "2")   # work#2: the cond does not hold
            self.assertEqual(run.work(3), "7")   # work#3: caught
            # written when it returned, before any flush
            so_far = run.so_far()
            self.assertEqual(so_far.lines(FUNC + "#3"), [5, 6, 7, 8])
            self.assertEqual(run.work(2), "4")   # work#4: caught (its max)
            self.assertEqual(run.work(5), "11")  # work#5: the max was reached
            watches = run.ctl("list")["watches"]
            self.assertEqual(watches, [{"watch": 1, "func": "work", "cond": "x > 1", "max": 2, "caught": 2,
                                        "fids": [FUNC + "#3", FUNC + "#4"], "active": False,
                                        "removed": False, "cond_errors": []}])
            self.assertEqual(run.ctl("add", func=FUNC, cond="nope > 0")["watch"], 2)
            self.assertEqual(run.work(6), "13")  # work#6: the cond raises
            self.assertEqual(run.ctl("list")["watches"][1]["cond_errors"], ["NameError: name 'nope' is not defined"])
            self.assertEqual(run.ctl("remove", watch=None), {"removed": [1, 2]})
            self.assertEqual(run.ctl("remove", watch=None), {"removed": []})
            self.assertEqual([(w["watch"], w["caught"], w["active"], w["removed"]) for w in run.ctl("list")["watches"]],
                             [(1, 2, False, True), (2, 0, False, True)])
            self.assertIn("SyntaxError", run.call("add", func="work", cond="x >")["error"])
            self.assertEqual(run.call("add", func="work", max=0)["error"], "max must be a positive integer")
            self.assertEqual(run.work(7), "15")  # work#7: no watch
            self.assertIn("bytes", run.ctl("flush"))
        finally:
            rec = run.finish()
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.stderr, "")
        self.assertEqual([f for f in rec.fids() if f.startswith(FUNC)], [FUNC + "#%d" % n for n in range(1, 8)])
        traced = sorted(rec.fid(i) for i in rec.flts)
        self.assertEqual(traced, [FUNC + "#3", FUNC + "#4"])
        self.assertEqual(rec.steps(FUNC + "#4")[0][:2], (5, "y = x * 2"))
        self.assertEqual(rec.lines(FUNC + "#4"), [5, 6, 8])
        self.assertEqual(rec.result["exit"]["code"], 0)
        self.assertEqual([(w["watch"], w["fids"], w["removed"]) for w in rec.result["watches"]],
                         [(1, [FUNC + "#3", FUNC + "#4"], True), (2, [], True)])
        self.assertFalse(run.socket_left)

    def test_engines(self):
        for engine in harness.ENGINES:
            with self.subTest(engine=engine):
                self.check(engine)

    def test_auto(self):
        self.check(None)

    def test_before_first_call(self):
        """A watch added before its function's code was ever run: it is armed when first seen."""
        run = EditorRun()
        try:
            # (matches names work only if the main module's body has defined it by now: a race)
            self.assertEqual(run.ctl("add", func="work")["watch"], 1)
            self.assertEqual(run.work(1), "2")
            self.assertEqual(run.work(3), "7")
            self.assertEqual(run.ctl("list")["watches"][0]["fids"], [FUNC + "#1", FUNC + "#2"])
            self.assertEqual(run.ctl("ping")["pid"], run.proc.pid)
        finally:
            rec = run.finish()
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(sorted(rec.fid(i) for i in rec.flts), [FUNC + "#1", FUNC + "#2"])
        self.assertEqual(rec.lines(FUNC + "#2"), [5, 6, 7, 8])


if __name__ == "__main__":
    unittest.main()
