"""Watching functions in a live process (adi_probe/watch.py; PROTOCOL.md, "Watching in a live
process"): a server-like fixture (watch_app.py: `handle(req)` called by a loop in the main thread
and by worker threads, driven line by line through its stdin) runs under tests/watch_driver.py,
which starts the watch as adi's live launcher does; the test adds watches through the control
socket and reads calls.bin/flt.bin."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from . import harness

HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "watch_driver.py")
APP = os.path.join(harness.FIXTURES, "watch_app.py")
LAUNCHER = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "live", "python",
                        "adi_live_run.py")
PROBE_DIR = os.path.dirname(HERE)
MODERN = "monitoring" if sys.version_info >= (3, 12) else None  # the engine on 3.12+, whatever else


def _has_debugpy(python):
    try:
        return subprocess.run([python, "-c", "import debugpy"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class App:
    """The fixture running under the watch (or without it: watch=False)."""

    def __init__(self, watch=True, engine=None, env=None, debugpy=False, watches=None):
        self.tmp = tempfile.mkdtemp(prefix="adi-watch-test-")
        self.out = os.path.join(self.tmp, "out")
        self.sock_path = os.path.join(self.tmp, "ctl.sock")
        cfg = {"out": self.out, "socket": self.sock_path, "root": harness.FIXTURES, "repr_limit": 200}
        if watches:
            cfg["watches"] = watches
        run_env = dict(os.environ)
        run_env["PYTHONHASHSEED"] = "0"
        run_env["PYTHONDONTWRITEBYTECODE"] = "1"
        run_env.pop("ADI_PROBE_ENGINE", None)
        if engine is not None:
            run_env["ADI_PROBE_ENGINE"] = engine
        run_env.update(env or {})
        self.stdin = None
        if debugpy:
            fifo = os.path.join(self.tmp, "stdin")
            os.mkfifo(fifo)
            launch = {"mode": "script", "path": APP, "argv": [], "stdin": fifo, "probe": PROBE_DIR, "watch": cfg}
            argv = [harness.DEBIAN_PYTHON, "-m", "debugpy", "--listen", "127.0.0.1:0", LAUNCHER, json.dumps(launch)]
            self.proc = subprocess.Popen(argv, cwd=harness.FIXTURES, env=run_env, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.stdin = open(fifo, "wb")
        else:
            argv = [sys.executable, DRIVER, json.dumps(cfg) if watch else "-", APP]
            self.proc = subprocess.Popen(argv, cwd=harness.FIXTURES, env=run_env, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.stdin = self.proc.stdin
        self.conn = None
        self.next_id = 0

    def send(self, line):
        """A command for the program; returns the line it printed."""
        self.stdin.write((line + "\n").encode())
        self.stdin.flush()
        return self.proc.stdout.readline().decode().strip()

    def connect(self):
        """A client of the control socket (waiting for the server to listen)."""
        return harness.connect_control(self.sock_path, self.proc)

    def raw(self, text, conn=None):
        conn = conn or self.conn
        conn.write(text.encode() + b"\n")
        conn.flush()
        return json.loads(conn.readline().decode())

    def ctl(self, op, **kw):
        """One request on the control socket; returns its result (errors raise)."""
        answer = self.call(op, **kw)
        if "error" in answer:
            raise AssertionError(answer["error"])
        return answer["result"]

    def call(self, op, **kw):
        if self.conn is None:
            self.conn = self.connect()
        self.next_id += 1
        req = dict(kw, id=self.next_id, op=op)
        answer = self.raw(json.dumps(req))
        assert answer["id"] == self.next_id, answer
        return answer

    def finish(self):
        """Quit the program; returns (stdout after the last command, stderr, Recording)."""
        self.send("quit")
        if self.conn is not None:
            self.conn.close()
        if self.stdin is not self.proc.stdin:
            self.stdin.close()
        out, err = self.proc.communicate(timeout=60)
        proc = subprocess.CompletedProcess([], self.proc.returncode, out, err)
        try:
            rec = harness.Recording(self.out, proc) if os.path.exists(self.out) else None
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return out.decode(), err.decode(), rec


def summary(rec):
    """[(fid, caller fid, call line, args, outcome)] in idx order."""
    return [(i.fid, rec.caller_of(i.fid), i.call_line, i.args, i.outcome) for i in rec.order]


HANDLE_4 = [
    ("watch_app:handle#1", None, 0, [("req", "4")], ("ret", "8")),
    ("watch_app:price#1", "watch_app:handle#1", 25, [("n", "4")], ("ret", "6")),
    ("watch_app:Store.put#1", "watch_app:handle#1", 26,
     [("self", "Store(items={3: 3})"), ("key", "4"), ("value", "6")], ("ret", "2")),
]


class WatchTest(unittest.TestCase):

    def check_handle_4(self, engine=None, expect_engine=None, **kw):
        app = App(engine=engine, **kw)
        self.assertEqual(app.ctl("ping")["engine"], expect_engine or engine)
        self.assertEqual(app.send("req 3"), "req 4")  # before any watch: not recorded
        res = app.ctl("add", func="handle")
        self.assertEqual(res, {"watch": 1, "matches": ["watch_app:handle"]})
        self.assertEqual(app.send("current"), "current -1")  # not inside a recorded frame
        self.assertEqual(app.send("req 4"), "req 8")
        # flushed when the root returned, before the program went on
        calls = harness.read_bin(os.path.join(app.out, "calls.bin"), b"adi-calls 1\n")[0]
        self.assertIn(0, [r[1] for r in calls if r[0] == "callret"])
        self.assertEqual(app.send("req 1"), "req 3")
        self.assertEqual(app.ctl("remove", watch=1), {"removed": [1]})
        self.assertEqual(app.send("req 5"), "req 14")  # after the remove: not recorded
        out, err, rec = app.finish()
        self.assertEqual(app.proc.returncode, 0, err)
        self.assertEqual(summary(rec), HANDLE_4 + [
            ("watch_app:handle#2", None, 0, [("req", "1")], ("ret", "3")),
            ("watch_app:price#2", "watch_app:handle#2", 25, [("n", "1")], ("ret", "0")),
            ("watch_app:Store.put#2", "watch_app:handle#2", 26,
             [("self", "Store(items={3: 3, 4: 6})"), ("key", "1"), ("value", "0")], ("ret", "3")),
        ])
        self.assertEqual(rec.threads, {0: "MainThread"})
        # the raw call records of the first root: caller -1, call line 0, tid 0, values in full
        codes = {v[0]: k for k, v in rec.codes.items()}
        recs = {r[1]: r for r in rec.calls_records if r[0] == "callret" and r[1] < 3}
        self.assertEqual(recs[0], ["callret", 0, codes["watch_app:handle"], -1, 0, 0, (4,), None, 8])
        self.assertEqual(recs[1], ["callret", 1, codes["watch_app:price"], 0, 0, 25, (4,), None, 6])
        put = recs[2]
        self.assertEqual(put[:6] + [list(put[6])] + put[8:], ["callret", 2, codes["watch_app:Store.put"], 0, 0,
                                                              26, ["Store(items={3: 3})", 4, 6], 2])
        self.assertEqual(rec.steps("watch_app:handle#1"), [
            (25, "cost = price(req)", [("cost", None, "6", "new")], ["watch_app:price#1"], [], {}),
            # the module-level STORE it names changed too (an item added by the call)
            (26, "size = STORE.put(req, cost)", [("size", None, "2", "new"),
                                                 ("global STORE", None, "6", "new", ".items[4]")],
             ["watch_app:Store.put#1"], [], {}),
            (27, "return cost + size", [], [], [], {}),
        ])
        self.assertEqual(rec.flts[0]["args"], [4])
        self.assertEqual(rec.flts[0]["returned"], 8)
        self.assertEqual(rec.end("watch_app:handle#1"), ["return", 0])
        self.assertEqual(rec.steps("watch_app:price#1"), [
            (18, "total = 0", [("total", None, "0", "new")], [], [], {}),
            (19, "for i in range(n):", [("i", None, "0", "new")], [], [(19, 1)], {}),
            (20, "total += i", [], [], [(19, 1)], {}),
            (19, "for i in range(n):", [("i", "0", "1", "mod")], [], [(19, 2)], {}),
            (20, "total += i", [("total", "0", "1", "mod")], [], [(19, 2)], {}),
            (19, "for i in range(n):", [("i", "1", "2", "mod")], [], [(19, 3)], {}),
            (20, "total += i", [("total", "1", "3", "mod")], [], [(19, 3)], {}),
            (19, "for i in range(n):", [("i", "2", "3", "mod")], [], [(19, 4)], {}),
            (20, "total += i", [("total", "3", "6", "mod")], [], [(19, 4)], {}),
            (19, "for i in range(n):", [], [], [(19, 5)], {}),
            (21, "return total", [], [], [], {}),
        ])
        self.assertEqual(rec.steps("watch_app:Store.put#1"), [
            (10, "self.items[key] = value", [("self", None, "6", "new", ".items[4]")], [], [], {}),
            (11, "return len(self.items)", [], [], [], {}),
        ])
        self.assertEqual(sorted(rec.flts), list(range(6)))  # every recorded frame has its FLT
        self.assertTrue(all(f["end"] == ["return", 0] for f in rec.flts.values()))
        return rec

    def test_caught_invocations_exact(self):
        for engine in harness.ENGINES:
            with self.subTest(engine=engine):
                self.check_handle_4(engine, "monitoring" if engine == "monitoring" else engine)

    def test_foreign_global_tracer(self):
        # a debugger's global trace function (as pydevd's) is installed first: the probe picks
        # the profile engine (3.8-3.11; sys.monitoring on 3.12+), chains the tracer and records
        # the same
        self.check_handle_4(expect_engine=MODERN or "profile", env={"WATCH_FOREIGN_TRACE": "1"})

    @unittest.skipUnless(os.path.exists(harness.DEBIAN_PYTHON) and _has_debugpy(harness.DEBIAN_PYTHON),
                         "needs debugpy for /usr/bin/python3")
    def test_under_debugpy(self):
        # the live launcher under a real pydevd (debugpy --listen, no client): same records
        if sys.executable != harness.DEBIAN_PYTHON:
            self.skipTest("runs with /usr/bin/python3 only")
        self.check_handle_4(expect_engine="profile", debugpy=True)

    def test_threads(self):
        app = App()
        app.ctl("add", func="watch_app:handle")
        self.assertEqual(app.send("threads 2"), "threads [2, 2]")
        self.assertEqual(app.ctl("list")["watches"][0]["caught"], 2)
        out, err, rec = app.finish()
        roots = [i for i in rec.order if i.func == "watch_app:handle"]
        self.assertEqual([(i.caller, i.call_line, i.args, i.outcome) for i in roots],
                         [(-1, 0, [("req", "2")], ("ret", "2"))] * 2)
        self.assertEqual(sorted(i.tid for i in roots), [1, 2])  # worker threads, not main (0)
        self.assertEqual([i.fid for i in roots], ["watch_app:handle#1", "watch_app:handle#2"])
        for root in roots:
            kids = [i.func for i in rec.order if i.caller == root.idx]
            self.assertEqual(kids, ["watch_app:price", "watch_app:Store.put"])
            self.assertTrue(all(i.tid == root.tid for i in rec.order if i.caller == root.idx))
        self.assertNotIn("watch_app:worker", [i.func for i in rec.order])  # the caller is not recorded

    def test_cond_and_max(self):
        app = App()
        res = app.ctl("add", func="handle", cond="req % 2 == 0", max=2)
        for n in (1, 2, 3, 4, 6):
            app.send("req %d" % n)
        watches = app.ctl("list")["watches"]
        self.assertEqual(watches, [{"watch": res["watch"], "func": "handle", "cond": "req % 2 == 0", "max": 2,
                                    "caught": 2, "active": False, "cond_errors": []}])
        out, err, rec = app.finish()
        roots = [(i.fid, i.args) for i in rec.order if i.func == "watch_app:handle"]
        self.assertEqual(roots, [("watch_app:handle#1", [("req", "2")]), ("watch_app:handle#2", [("req", "4")])])

    def test_cond_error_counts_as_false(self):
        app = App()
        app.ctl("add", func="handle", cond="undefined_name > 1")
        app.send("req 2")
        app.send("req 3")
        w = app.ctl("list")["watches"][0]
        self.assertEqual((w["caught"], w["active"]), (0, True))
        self.assertEqual(w["cond_errors"], ["NameError: name 'undefined_name' is not defined"] * 2)
        out, err, rec = app.finish()
        self.assertEqual(rec.order, [])

    def test_bad_cond(self):
        app = App()
        answer = app.call("add", func="handle", cond="req >")
        self.assertTrue(answer["error"].startswith("SyntaxError: "), answer)
        self.assertEqual(app.ctl("list")["watches"], [])
        app.finish()

    def test_not_yet_loaded(self):
        app = App()
        res = app.ctl("add", func="late", cond="x > 1")
        self.assertEqual(res["matches"], [])
        self.assertEqual(app.send("import 5"), "import 11")
        res2 = app.ctl("add", func="watch_lazy:late", max=1)
        self.assertEqual(res2["matches"], ["watch_lazy:late"])
        # a qualname and a last part match too, classes' methods included
        self.assertEqual(app.ctl("add", func="Store.put")["matches"], ["watch_app:Store.put"])
        self.assertEqual(app.ctl("add", func="put")["matches"], ["watch_app:Store.put"])
        self.assertEqual(app.ctl("remove", watch=None)["removed"], [1, 2, 3, 4])
        out, err, rec = app.finish()
        self.assertEqual(summary(rec), [("watch_lazy:late#1", None, 0, [("x", "5")], ("ret", "11"))])
        self.assertEqual(rec.steps("watch_lazy:late#1"), [
            (2, "y = x * 2", [("y", None, "10", "new")], [], [], {}),
            (3, "return y + 1", [], [], [], {}),
        ])

    def test_watch_nested_in_root(self):
        # a watched function called inside another root is a callee there, not a new root
        app = App()
        app.ctl("add", func="handle", max=1)
        app.ctl("add", func="price")
        app.send("req 2")
        app.send("req 3")
        w = {x["func"]: x["caught"] for x in app.ctl("list")["watches"]}
        self.assertEqual(w, {"handle": 1, "price": 1})
        out, err, rec = app.finish()
        self.assertEqual([(i.fid, rec.caller_of(i.fid)) for i in rec.order], [
            ("watch_app:handle#1", None), ("watch_app:price#1", "watch_app:handle#1"),
            ("watch_app:Store.put#1", "watch_app:handle#1"), ("watch_app:price#2", None)])

    def test_initial_watches_and_protocol_errors(self):
        app = App(watches=[{"func": "handle", "max": 1}])
        app.send("req 2")
        conn = app.connect()
        self.assertIn("error", app.raw("not json", conn))
        self.assertIn("error", app.raw("[1, 2]", conn))
        self.assertEqual(app.raw('{"id": 7, "op": "nope"}', conn)["id"], 7)
        self.assertIn("error", app.raw('{"id": 8, "op": "nope"}', conn))
        ping = app.raw('{"id": 9, "op": "ping"}', conn)["result"]
        self.assertEqual(ping["pid"], app.proc.pid)
        self.assertEqual(ping["python"], "%d.%d.%d" % sys.version_info[:3])
        conn.close()
        # another client later
        self.assertEqual(app.ctl("list")["watches"][0]["caught"], 1)
        self.assertGreater(app.ctl("flush")["bytes"], 0)
        out, err, rec = app.finish()
        self.assertEqual([i.fid for i in rec.order if i.caller < 0], ["watch_app:handle#1"])

    def test_open_invocations_and_current(self):
        app = App()
        app.ctl("add", func="wait_line")
        app.ctl("add", func="here")
        app.stdin.write(b"wait\n")
        app.stdin.flush()
        # wait_line#1 now blocks reading its line: the periodic flush writes it open
        deadline = time.monotonic() + 10
        calls = flt = []
        while time.monotonic() < deadline:
            calls = harness.read_bin(os.path.join(app.out, "calls.bin"), b"adi-calls 1\n")[0]
            flt = harness.read_bin(os.path.join(app.out, "flt.bin"), b"adi-flt 1\n")[0]
            if any(r[0] == "call" for r in calls):
                break
            time.sleep(0.05)
        opened = [r for r in calls if r[0] == "call"]
        self.assertEqual([r[1:6] for r in opened], [[0, opened[0][2], -1, 0, 0]])
        self.assertIn(["begin", 0, ()], [[r[0], r[1], tuple(r[2])] for r in flt if r[0] == "begin"])
        self.assertEqual(app.send("hello"), "wait hello")
        self.assertEqual(app.send("current"), "current 1")  # here#1 is idx 1
        out, err, rec = app.finish()
        self.assertEqual(summary(rec), [("watch_app:wait_line#1", None, 0, [], ("ret", "'hello'")),
                                        ("watch_app:here#1", None, 0, [], ("ret", "1"))])
        self.assertEqual(rec.lines("watch_app:wait_line#1"), [36, 37])

    def test_generator_root(self):
        for engine in harness.ENGINES:
            with self.subTest(engine=engine):
                app = App(engine=engine)
                app.ctl("add", func="numbers")
                self.assertEqual(app.send("gen 3"), "gen [0, 0, 1]")
                out, err, rec = app.finish()
                self.assertEqual(summary(rec), [
                    ("watch_app:numbers#1", None, 0, [("n", "3")], ("ret", "None")),
                    ("watch_app:price#1", "watch_app:numbers#1", 47, [("n", "0")], ("ret", "0")),
                    ("watch_app:price#2", "watch_app:numbers#1", 47, [("n", "1")], ("ret", "0")),
                    ("watch_app:price#3", "watch_app:numbers#1", 47, [("n", "2")], ("ret", "1")),
                ])
                self.assertEqual(rec.get("watch_app:numbers#1").events,
                                 [("yield", "0", 47), ("resume",), ("yield", "0", 47), ("resume",),
                                  ("yield", "1", 47), ("resume",)])
                self.assertEqual(rec.lines("watch_app:numbers#1"), [46, 47, 47, 46, 47, 47, 46, 47, 47, 46])

    def test_suspended_generator_root(self):
        # the watch is used up (max 1) while its root is suspended: its resumptions are still
        # recorded (the monitoring engine stays on while a recorded generator lives)
        for engine in harness.ENGINES:
            with self.subTest(engine=engine):
                app = App(engine=engine)
                app.ctl("add", func="numbers", max=1)
                self.assertEqual(app.send("gstart 3"), "gstart 0")
                self.assertFalse(app.ctl("list")["watches"][0]["active"])
                self.assertEqual(app.send("req 2"), "req 2")  # not recorded
                self.assertEqual(app.send("gnext"), "gnext 0")
                out, err, rec = app.finish()
                self.assertEqual([(i.fid, rec.caller_of(i.fid), i.args) for i in rec.order], [
                    ("watch_app:numbers#1", None, [("n", "3")]),
                    ("watch_app:price#1", "watch_app:numbers#1", [("n", "0")]),
                    ("watch_app:price#2", "watch_app:numbers#1", [("n", "1")]),
                ])
                gen = rec.get("watch_app:numbers#1")
                self.assertEqual(gen.events[:3], [("yield", "0", 47), ("resume",), ("yield", "0", 47)])
                # closed when main() returned (3.13 closes it without resuming it)
                self.assertEqual(gen.outcome, ("exc", "GeneratorExit", "", 47))

    def test_output_unchanged(self):
        script = ["req 3", "threads 3", "req 4", "import 2", "req 5"]
        plain = App(watch=False)
        want = [plain.send(line) for line in script]
        want_out = plain.finish()[0]
        app = App(watches=[{"func": "handle"}, {"func": "late"}])
        got = [app.send(line) for line in script]
        got_out, err, rec = app.finish()
        self.assertEqual(got, want)
        self.assertEqual(got_out, want_out)
        self.assertEqual(len([i for i in rec.order if i.caller < 0]), 6)


if __name__ == "__main__":
    unittest.main()
