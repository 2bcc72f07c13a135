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


def _read_batches(path):
    records = []
    raw = b""
    if os.path.exists(path):
        with open(path, "rb") as f:
            raw = f.read()
        for line in raw.splitlines():
            records.extend(json.loads(line))
    return records, raw


class Invocation:
    """One `call` record plus how it ended."""

    def __init__(self, rec, fields):
        _, self.idx, self.cid, self.n, self.caller, self.tid, self.call_line, args, self.fp = fields
        self.func = rec.codes[self.cid][0]
        self.fid = "%s#%d" % (self.func, self.n)
        self.args = [tuple(a) for a in args]
        self.outcome = None   # ("ret", repr) or ("exc", type, message, line)
        self.events = []      # ("yield", repr, line) / ("resume",)


class Recording:
    """What one probe run wrote (see PROTOCOL.md)."""

    def __init__(self, out, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout.decode("utf-8", "replace")
        self.stderr = proc.stderr.decode("utf-8", "replace")
        self.calls_records, self.calls_raw = _read_batches(os.path.join(out, "calls.jsonl"))
        self.flt_records, self.flt_raw = _read_batches(os.path.join(out, "flt.jsonl"))
        self.result = self.exec_result = None
        for attr, name in (("result", "result.json"), ("exec_result", "exec.json")):
            path = os.path.join(out, name)
            if os.path.exists(path):
                with open(path) as f:
                    setattr(self, attr, json.load(f))
        self.codes = {}
        self.threads = {}
        self.invocations = {}
        self.order = []
        self.trunc = None
        for r in self.calls_records:
            tag = r[0]
            if tag == "code":
                self.codes[r[1]] = (r[2], r[3], r[4], r[5])
            elif tag == "thread":
                self.threads[r[1]] = r[2]
            elif tag == "call":
                inv = Invocation(self, r)
                self.invocations[inv.idx] = inv
                self.order.append(inv)
            elif tag == "ret":
                self.invocations[r[1]].outcome = ("ret", r[2])
            elif tag == "exc":
                self.invocations[r[1]].outcome = ("exc", r[2], r[3], r[4])
            elif tag == "yield":
                self.invocations[r[1]].events.append(("yield", r[2], r[3]))
            elif tag == "resume":
                self.invocations[r[1]].events.append(("resume",))
            elif tag == "trunc":
                self.trunc = r[1]
        self.stmts = {}
        self.flts = {}
        for r in self.flt_records:
            if r[0] == "stmts":
                self.stmts[r[1]] = r[2]
            elif r[0] == "begin":
                self.flts[r[1]] = {"steps": [], "end": None}
            elif r[0] == "step":
                self.flts[r[1]]["steps"].append(r[2:])
            elif r[0] == "end":
                self.flts[r[1]]["end"] = r[2:]

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
            out.append((line, texts.get(str(line)), [tuple(c) for c in changes],
                        [self.fid(c) for c in callees], [tuple(x) for x in loop], ev))
        return out

    def lines(self, fid):
        return [s[0] for s in self.steps(fid)]

    def end(self, fid):
        return self.flts[self.get(fid).idx]["end"]
