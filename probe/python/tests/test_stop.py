"""Stopping a run with SIGTERM (what the bridge does when a run's time is up): the probe writes
what it recorded, closes the live frames as unfinished and says so in result.json."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import types
import unittest

from .harness import ENGINES, FIXTURES, PROBE, Recording, script


def stopped_run(argv=(), engine=None):
    """Run sleeper.py under the probe, wait for its "ready" line, stop it as the bridge does,
    and return the Recording and the stdout lines before "ready"."""
    tmp = tempfile.mkdtemp(prefix="adi-probe-test-")
    try:
        out = os.path.join(tmp, "out")
        target = dict(script("sleeper.py", argv), stdin=None)
        cfg_path = os.path.join(tmp, "config.json")
        with open(cfg_path, "w") as f:
            json.dump({"version": 1, "out": out, "target": target, "root": FIXTURES}, f)
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        env.pop("ADI_PROBE_ENGINE", None)
        if engine is not None:
            env["ADI_PROBE_ENGINE"] = engine
        proc = subprocess.Popen([sys.executable, PROBE, cfg_path], cwd=FIXTURES, env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            before = []
            for line in proc.stdout:
                if line == b"ready\n":
                    break
                before.append(line.decode())
            stdout, stderr = stop(proc)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        done = types.SimpleNamespace(returncode=proc.returncode, stdout=stdout, stderr=stderr)
        return Recording(out, done), before
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def stop(proc):
    """Stop proc as the bridge does: SIGTERM, again every 200 ms until it exits."""
    for _ in range(300):
        proc.send_signal(signal.SIGTERM)
        try:
            return proc.communicate(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
    raise AssertionError("the run did not stop in 60 s")


class Stop(unittest.TestCase):
    def test_sigterm_writes_what_was_recorded(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec, _ = stopped_run(engine=engine)
                self.assertEqual(rec.returncode, 143, rec.stderr)
                self.assertEqual(rec.stderr, "")
                res = rec.result
                self.assertEqual(res["stopped"], "timeout")
                self.assertEqual(res["exit"], {"kind": "stopped", "code": 143, "exception": None})
                self.assertFalse(res["complete"])
                self.assertEqual(res["calls"], 5)
                self.assertEqual([(i.fid, i.outcome) for i in rec.order], [
                    ("sleeper:<module>#1", None),
                    ("sleeper:main#1", None),
                    ("sleeper:f#1", ("ret", "0")),
                    ("sleeper:f#2", ("ret", "2")),
                    ("sleeper:f#3", ("ret", "4"))])

    def test_sigterm_while_calls_are_being_made(self):
        # the main thread is most often inside the probe's hooks: T still has no gap (a call the
        # interrupted hook was starting may be counted and not written)
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec, _ = stopped_run(["busy"], engine=engine)
                self.assertEqual(rec.returncode, 143, rec.stderr)
                self.assertEqual(rec.result["stopped"], "timeout")
                self.assertIn(rec.result["calls"] - len(rec.order), (0, 1))
                self.assertGreaterEqual(rec.result["calls"], 1006)
                self.assertEqual(rec.fids()[:6], ["sleeper:<module>#1", "sleeper:main#1", "sleeper:f#1",
                                                  "sleeper:f#2", "sleeper:f#3", "sleeper:busy#1"])

    def test_the_target_sees_the_default_disposition(self):
        rec, before = stopped_run(["report"])
        self.assertEqual(before, ["getsignal True\n", "signal True\n", "child True\n"])
        self.assertEqual(rec.returncode, 143, rec.stderr)
        self.assertEqual(rec.result["stopped"], "timeout")  # SIG_DFL given back: the probe's handler

    def test_a_handler_of_the_target_is_left_alone(self):
        rec, _ = stopped_run(["own-handler"])
        self.assertEqual(rec.returncode, 3, rec.stderr)
        self.assertNotIn("stopped", rec.result)
        self.assertEqual(rec.result["exit"], {"kind": "exit", "code": 3, "exception": None})
        self.assertEqual(rec.get("sleeper:main#1").outcome[:2], ("exc", "SystemExit"))

    def test_an_ignored_sigterm_stays_ignored(self):
        # a process started with SIGTERM ignored: the probe installs nothing (SIGKILL ends it)
        code = ("import signal, sys; sys.path.append(%r); import adi_probe.stop as s; "
                "r = s.Stopper(None); r.install(); "
                "print(r.installed, signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)" % os.path.dirname(PROBE))
        old = signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            proc = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, timeout=60)
        finally:
            signal.signal(signal.SIGTERM, old)
        self.assertEqual(proc.stdout, b"False True\n")


if __name__ == "__main__":
    unittest.main()
