"""Test helpers: run the probe on a fixture in a subprocess and read what it wrote.

``record(...)`` writes a config, runs ``python adi_probe_run.py CONFIG`` (the interpreter
running the tests, unless ``python=`` says otherwise) with the fixtures directory as cwd and
root, ``PYTHONHASHSEED=0`` and an empty stdin, and returns a ``Recording``.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
PROBE = os.path.join(os.path.dirname(HERE), "adi_probe_run.py")
DEBIAN_PYTHON = "/usr/bin/python3"
ENGINES = ("trace", "profile", "monitoring") if sys.version_info >= (3, 12) else ("trace", "profile")


def script(name, argv=()):
    """A `target` for a fixture script."""
    return {"mode": "script", "path": os.path.join(FIXTURES, name), "argv": list(argv)}


def module(name, argv=()):
    """A `target` for ``python -m name``."""
    return {"mode": "module", "module": name, "argv": list(argv)}


def code(text, argv=()):
    """A `target` for ``python -c text``."""
    return {"mode": "code", "code": text, "argv": list(argv)}


def record(target, python=None, engine=None, env=None, stdin_text=None, wrapper=None,
           root=FIXTURES, **config):
    """Run the probe on `target` with extra config keys; returns a Recording."""
    tmp = tempfile.mkdtemp(prefix="adi-probe-test-")
    out = os.path.join(tmp, "out")
    target = dict(target)
    target.setdefault("stdin", None)
    if stdin_text is not None:
        path = os.path.join(tmp, "stdin.txt")
        with open(path, "w") as f:
            f.write(stdin_text)
        target["stdin"] = path
    cfg = {"version": 1, "out": out, "target": target, "root": root}
    cfg.update(config)
    cfg_path = os.path.join(tmp, "config.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f)
    run_env = dict(os.environ)
    run_env["PYTHONHASHSEED"] = "0"
    run_env["PYTHONDONTWRITEBYTECODE"] = "1"  # keep __pycache__ out of the fixtures
    run_env.pop("ADI_PROBE_ENGINE", None)
    if engine is not None:
        run_env["ADI_PROBE_ENGINE"] = engine
    run_env.update(env or {})
    argv = [python or sys.executable] + list(wrapper or []) + [PROBE, cfg_path]
    proc = subprocess.run(argv, cwd=root, env=run_env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    try:
        return Recording(out, proc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read_bin(path, magic):
    """The records of calls.bin or flt.bin (PROTOCOL.md), and the file's raw bytes."""
    import marshal
    records = []
    raw = b""
    if os.path.exists(path):
        with open(path, "rb") as f:
            raw = f.read()
        assert raw.startswith(magic), raw[:20]
        pos = len(magic)
        while pos < len(raw):
            n = int.from_bytes(raw[pos:pos + 4], "little")
            records.extend(marshal.loads(raw[pos + 4:pos + 4 + n]))
            pos += 4 + n
    return [list(r) for r in records], raw


def value(v):
    """A value field as its repr: an int, bool or None stands for itself."""
    return v if type(v) is str else repr(v)


class Invocation:
    """One invocation (a `call`, `callret` or `callexc` record) plus how it ended."""

    def __init__(self, rec, fields):
        self.idx, self.cid, self.caller, self.tid, self.call_line, args, fp = fields[:7]
        self.func = rec.codes[self.cid][0]
        self.n = None  # set in idx order by Recording
        self.fid = None
        reprs = [value(a) for a in args]
        self.args = list(zip(rec.codes[self.cid][3], reprs))
        if fp is None:
            fp = "=" + ", ".join(reprs)
        elif type(fp) is bytes:  # marshalled canonical tokens: the reader's checksum (PROTOCOL.md)
            import zlib
            fp = "#%08x%08x" % (zlib.crc32(fp), zlib.adler32(fp))
        self.fp = fp
        self.outcome = None   # ("ret", repr), ("exc", type, message, line) or ("not started",)
        self.events = []      # ("yield", repr, line) / ("resume",)


class Recording:
    """What one probe run wrote (see PROTOCOL.md)."""

    def __init__(self, out, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")
        self.calls_records, self.calls_raw = read_bin(os.path.join(out, "calls.bin"), b"adi-calls 1\n")
        self.flt_records, self.flt_raw = read_bin(os.path.join(out, "flt.bin"), b"adi-flt 1\n")
        self.result = self.exec_result = None
        for attr, name in (("result", "result.json"), ("exec_result", "exec.json")):
            path = os.path.join(out, name)
            if os.path.exists(path):
                with open(path) as f:
                    setattr(self, attr, json.load(f))
        self.codes = {}
        self.threads = {}
        self.invocations = {}
        self.trunc = None
        self.gaps = []    # config "only": invocations called through a function not recorded
        self.strays = []  # (stepped invocation, the function not recorded it called)
        outcomes = []
        for r in self.calls_records:
            tag = r[0]
            if tag == "code":
                self.codes[r[1]] = (r[2], r[3], r[4], list(r[5]))
            elif tag == "thread":
                self.threads[r[1]] = r[2]
            elif tag == "made":
                # numbered at creation (3.12+); its call record follows when it starts
                inv = Invocation(self, list(r[1:6]) + [(), None])
                inv.outcome = ("not started",)
                self.invocations[r[1]] = inv
            elif tag == "bare":
                # a bare call that returned: idx, cid, caller, tid, value (PROTOCOL.md)
                inv = Invocation(self, list(r[1:5]) + [0, ("\x01",) * len(self.codes[r[2]][3]), "~bare"])
                inv.outcome = ("ret", value(r[5]))
                self.invocations[r[1]] = inv
            elif tag in ("call", "callret", "callexc"):
                inv = Invocation(self, r[1:])
                first = self.invocations.get(r[1])
                if first is not None and first.outcome == ("not started",):
                    first = None  # its first start: the call record replaces the made one
                if first is not None:
                    # written twice: open by a flush while another thread ended it (PROTOCOL.md)
                    if tag == "call" or first.outcome is not None:
                        continue
                    inv.events = first.events
                self.invocations[r[1]] = inv
                if tag == "callret":
                    inv.outcome = ("ret", value(r[8]))
                elif tag == "callexc":
                    inv.outcome = ("exc", r[8], r[9], r[10])
            elif tag in ("ret", "exc", "yield", "resume"):
                outcomes.append(r)
            elif tag == "trunc":
                self.trunc = r[1]
            elif tag == "gap":
                self.gaps.append(r[1])
            elif tag == "stray":
                self.strays.append((r[1], r[2]))
        for r in outcomes:
            inv = self.invocations[r[1]]
            if r[0] == "ret":
                inv.outcome = ("ret", value(r[2]))
            elif r[0] == "exc":
                inv.outcome = ("exc", r[2], r[3], r[4])
            elif r[0] == "yield":
                inv.events.append(("yield", r[2], r[3]))
            else:
                inv.events.append(("resume",))
        self.order = [self.invocations[i] for i in sorted(self.invocations)]
        if [i.idx for i in self.order] != list(range(len(self.order))):
            raise AssertionError("invocations missing: %s" % [i.idx for i in self.order])
        counts = {}
        for inv in self.order:
            inv.n = counts[inv.func] = counts.get(inv.func, 0) + 1
            inv.fid = "%s#%d" % (inv.func, inv.n)
        self.stmts = {}
        self.flts = {}
        for r in self.flt_records:
            if r[0] == "stmts":
                self.stmts[r[1]] = r[2]
            elif r[0] == "begin":
                self.flts[r[1]] = {"steps": [], "end": None, "args": list(r[2]) if len(r) > 2 else None,
                                   "returned": None}
            elif r[0] == "step":
                line, changes, callees, loop, ev = r[2:]
                changes = [[c[0], None if c[3] in ("new", "app", "same") else value(c[1]),
                            None if c[3] == "del" else value(c[2]), c[3]] + list(c[4:])
                           for c in changes]
                self.flts[r[1]]["steps"].append([line, changes, list(callees), [list(x) for x in loop], ev])
            elif r[0] == "end":
                self.flts[r[1]]["end"] = r[2:4]
                if len(r) > 4:
                    self.flts[r[1]]["returned"] = r[4]

    def fid(self, idx):
        return self.invocations[idx].fid

    def get(self, fid):
        """The Invocation with this fid (``module:qualname#n``)."""
        for inv in self.order:
            if inv.fid == fid:
                return inv
        raise KeyError("%s not recorded; have %s" % (fid, [i.fid for i in self.order]))

    def fids(self):
        return [inv.fid for inv in self.order]

    def caller_of(self, fid):
        caller = self.get(fid).caller
        return None if caller < 0 else self.fid(caller)

    def tree(self, fid):
        """(fid, [children...]) below an invocation, in call order."""
        inv = self.get(fid)
        kids = [c for c in self.order if c.caller == inv.idx]
        return (fid, [self.tree(k.fid) for k in kids])

    def steps(self, fid):
        """The FLT steps of an invocation as (line, text, changes, callee fids, loop, ev)."""
        inv = self.get(fid)
        flt = self.flts[inv.idx]
        texts = self.stmts[inv.cid]
        out = []
        for line, changes, callees, loop, ev in flt["steps"]:
            out.append((line, texts.get(line), [tuple(c) for c in changes],
                        [self.fid(c) for c in callees], [tuple(x) for x in loop], ev))
        return out

    def lines(self, fid):
        return [s[0] for s in self.steps(fid)]

    def end(self, fid):
        return self.flts[self.get(fid).idx]["end"]


def connect_control(path, proc, wait=30):
    """A client of a probe's control socket at `path` (watch.py), as a file of lines, once the
    server listens; raises if it does not within `wait` seconds or `proc` ended first."""
    import socket
    import time
    deadline = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(wait)
        try:
            s.connect(path)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
            if time.monotonic() > deadline or proc.poll() is not None:
                raise
            time.sleep(0.01)
    f = s.makefile("rwb")
    s.close()  # (the file keeps the connection)
    return f
