"""The probe under the real debugpy (only where debugpy is installed, e.g. /usr/bin/python3).

A minimal DAP client starts ``python -m debugpy --listen ... adi_probe_run.py CONFIG``, sets a
line breakpoint in a frame the probe records an FLT for, continues at each stop, and checks
that the breakpoint stopped where it should (also with ``adi_probe.hit`` as its condition) and
that the recording is byte-identical to one made without the debugger.
"""

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from .harness import FIXTURES, PROBE, record, script

HAS_DEBUGPY = importlib.util.find_spec("debugpy") is not None


class Dap:
    """Just enough of a DAP client for these tests."""

    def __init__(self, port, timeout):
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.file = self.sock.makefile("rb")
        self.seq = 0

    def send(self, command, **arguments):
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def recv(self):
        length = None
        while True:
            line = self.file.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            key, value = line.split(b":", 1)
            if key.lower() == b"content-length":
                length = int(value)
        return json.loads(self.file.read(length))

    def response(self, command):
        while True:
            msg = self.recv()
            if msg is None:
                raise EOFError(command)
            if msg.get("type") == "response" and msg.get("command") == command:
                return msg

    def close(self):
        try:
            self.send("disconnect")
        except OSError:
            pass
        self.sock.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def debug(config, file, line, condition=None, timeout=30):
    """Run the probe under debugpy with one breakpoint; returns [(function, line, value of n)]."""
    port = free_port()
    env = dict(os.environ, PYTHONHASHSEED="0", PYDEVD_DISABLE_FILE_VALIDATION="1", PYTHONDONTWRITEBYTECODE="1")
    # stderr goes to a file: debugpy's adapter process inherits it and may outlive the debuggee
    errors = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "debugpy", "--listen", "127.0.0.1:%d" % port,
                             "--wait-for-client", PROBE, config], cwd=FIXTURES, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                            start_new_session=True)
    stops = []
    try:
        dap = Dap(port, timeout)
        dap.send("initialize", adapterID="adi-test", linesStartAt1=True, columnsStartAt1=True, pathFormat="path")
        dap.send("attach", justMyCode=False)
        bp = {"line": line}
        if condition:
            bp["condition"] = condition
        dap.send("setBreakpoints", source={"path": file}, breakpoints=[bp])
        dap.send("configurationDone")
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = dap.recv()
            if msg is None or (msg.get("type") == "event" and msg["event"] in ("terminated", "exited")):
                break
            if msg.get("type") == "event" and msg["event"] == "stopped":
                tid = msg["body"]["threadId"]
                dap.send("stackTrace", threadId=tid, levels=1)
                frame = dap.response("stackTrace")["body"]["stackFrames"][0]
                dap.send("evaluate", expression="n", frameId=frame["id"], context="repl")
                value = dap.response("evaluate")["body"]["result"]
                stops.append((frame["name"], frame["line"], value))
                dap.send("continue", threadId=tid)
        dap.close()
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    errors.seek(0)
    stderr = errors.read().decode("utf-8", "replace")
    errors.close()
    return stops, proc.returncode, stderr


def debug_uncaught(argv, timeout=30):
    """Run `argv` under debugpy with the "uncaught" exception filter on; continue at each stop.

    Returns [(reason, function, line, exception id, description)], the exit code and stderr.
    """
    port = free_port()
    env = dict(os.environ, PYTHONHASHSEED="0", PYDEVD_DISABLE_FILE_VALIDATION="1", PYTHONDONTWRITEBYTECODE="1")
    errors = tempfile.TemporaryFile()
    proc = subprocess.Popen([sys.executable, "-m", "debugpy", "--listen", "127.0.0.1:%d" % port,
                             "--wait-for-client"] + list(argv), cwd=FIXTURES, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors,
                            start_new_session=True)
    stops = []
    try:
        dap = Dap(port, timeout)
        dap.send("initialize", adapterID="adi-test", linesStartAt1=True, columnsStartAt1=True, pathFormat="path")
        dap.send("attach", justMyCode=False)
        dap.send("setExceptionBreakpoints", filters=["uncaught"])
        dap.send("configurationDone")
        deadline = time.time() + timeout
        while time.time() < deadline:
            msg = dap.recv()
            if msg is None or (msg.get("type") == "event" and msg["event"] in ("terminated", "exited")):
                break
            if msg.get("type") == "event" and msg["event"] == "stopped":
                tid = msg["body"]["threadId"]
                dap.send("stackTrace", threadId=tid, levels=1)
                frame = dap.response("stackTrace")["body"]["stackFrames"][0]
                dap.send("exceptionInfo", threadId=tid)
                info = dap.response("exceptionInfo")["body"]
                stops.append((msg["body"]["reason"], frame["name"], frame["line"], info.get("exceptionId"),
                              info.get("description")))
                dap.send("continue", threadId=tid)
        dap.close()
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    errors.seek(0)
    stderr = errors.read().decode("utf-8", "replace")
    errors.close()
    return stops, proc.returncode, stderr


@unittest.skipUnless(HAS_DEBUGPY, "debugpy is not installed for this Python")
class UncaughtUnderDebugpy(unittest.TestCase):
    """An exception the target does not catch reaches the debugger as in a plain debugpy run."""

    def test_uncaught_filter_stops_and_result_says_exception(self):
        path = os.path.join(FIXTURES, "uncaught.py")
        plain = debug_uncaught([path])
        self.assertEqual(plain[0], [("exception", "inner", 2, "KeyError", "'zz'")])
        with tempfile.TemporaryDirectory() as tmp:
            config = {"version": 1, "out": os.path.join(tmp, "out"), "root": FIXTURES,
                      "target": {"mode": "script", "path": path, "argv": [], "stdin": None}}
            config_path = os.path.join(tmp, "config.json")
            with open(config_path, "w") as f:
                json.dump(config, f)
            stops, code, stderr = debug_uncaught([PROBE, config_path])
            with open(os.path.join(tmp, "out", "result.json")) as f:
                result = json.load(f)
        self.assertEqual(stops, plain[0])
        self.assertEqual(code, 1)
        # printed once, as the plain run prints it: no probe frame in it
        self.assertEqual(stderr, plain[2])
        self.assertEqual(stderr.count("Traceback (most recent call last)"), 1)
        self.assertEqual(result["exit"]["kind"], "exception")
        self.assertEqual(result["exit"]["code"], 1)
        self.assertEqual(result["exit"]["exception"]["type"], "KeyError")
        self.assertTrue(result["complete"])


@unittest.skipUnless(HAS_DEBUGPY, "debugpy is not installed for this Python")
class UnderDebugpy(unittest.TestCase):
    def run_both(self, traced, line, condition=None, stops=()):
        path = os.path.join(FIXTURES, "loops.py")
        selectors = [{"func": f.rsplit("#", 1)[0], "index": int(f.rsplit("#", 1)[1])} for f in traced]
        with tempfile.TemporaryDirectory() as tmp:
            config = {"version": 1, "out": os.path.join(tmp, "out"), "root": FIXTURES,
                      "target": {"mode": "script", "path": path, "argv": [], "stdin": None},
                      "trace": selectors, "stops": list(stops)}
            config_path = os.path.join(tmp, "config.json")
            with open(config_path, "w") as f:
                json.dump(config, f)
            got, code, stderr = debug(config_path, path, line, condition)
            with open(os.path.join(tmp, "out", "calls.bin"), "rb") as f:
                calls = f.read()
            with open(os.path.join(tmp, "out", "flt.bin"), "rb") as f:
                flt = f.read()
            with open(os.path.join(tmp, "out", "result.json")) as f:
                result = json.load(f)
        plain = record(script("loops.py"), trace=selectors)
        self.assertEqual(code, 0, stderr)
        self.assertEqual(calls, plain.calls_raw)
        self.assertEqual(flt, plain.flt_raw)
        return got, result, stderr

    def test_breakpoint_in_a_stepped_frame(self):
        got, result, stderr = self.run_both(["loops:countdown#1"], 29)
        self.assertEqual(got, [("countdown", 29, "2"), ("countdown", 29, "1")])
        self.assertEqual(result["engine"], "monitoring" if sys.version_info >= (3, 12) else "profile")
        self.assertNotIn("PYDEV DEBUGGER WARNING", stderr)

    def test_hit_condition(self):
        stops = [{"id": 1, "func": "loops:countdown", "index": 1, "line": 29, "visit": 2}]
        got, _, _ = self.run_both(["loops:countdown#1", "loops:nested#1"], 29,
                                  condition="__import__('adi_probe').hit(1)", stops=stops)
        self.assertEqual(got, [("countdown", 29, "1")])


if __name__ == "__main__":
    unittest.main()
