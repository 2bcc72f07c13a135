"""Benchmarks of the probe, printed as tables (well under a minute without --sympy).

    python3 probe/python/bench/bench_probe.py [--engine trace|profile|monitoring] [--rounds N]
                                              [--sympy]

Every row is measured once per round, rows interleaved (the machine's speed drifts), and the
best of the rounds (--rounds, default 5) is kept; ratios are to plain Python in the same run.

1. Recording T for fib(25) (~243k calls; arguments and return values recorded, output
   written): in-process time of plain fib(25), naive recorders that append (code, event)
   tuples (``sys.setprofile``; on 3.12+ also ``sys.monitoring``), cProfile, and the probe with
   each engine this interpreter has (or the one given). The profile engine is what the probe
   uses under a debugger on 3.8-3.11 (pydevd owns ``sys.settrace``); on 3.12+ it uses
   sys.monitoring with or without one.
2. Recording T for 100k method calls ``obj.get(i)``: an argument that is an object (``self``)
   takes the probe's general path (its repr and fingerprint), unlike fib's one int.
3. FLT capture of one frame that executes 100k statements (``for i in range(50000): s += i``):
   microseconds per statement, ΔS and output included (default engine).
4. Eager FLTs (config ``trace_all``, the bridge's first run): T alone vs T plus the FLT of
   every invocation until 20000 steps are recorded, on the demo (examples/orders.py), on
   fib(25) (the budget stops it early) and on the 100k-statement loop (the frame running when
   the budget runs out is finished: up to its own max_steps).
5. --sympy (needs sympy for this Python; skipped without it): wall time of a whole process,
   ``python -m pytest`` on a small test file that calls sympy.simplify, factor and expand:
   plain, under the probe with sympy as library code, and with sympy as user code (an include
   glob), which records every sympy call with its arguments and return value.
"""

import argparse
import cProfile
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_DIR = os.path.dirname(HERE)
sys.path.insert(0, PROBE_DIR)

from adi_probe import config, runner  # noqa: E402
from adi_probe.engines import select  # noqa: E402

DEMO = os.path.join(os.path.dirname(os.path.dirname(PROBE_DIR)), "examples", "orders.py")
EAGER_STEPS = 20000


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def loop(n):
    s = 0
    for i in range(n):
        s += i
    return s


class Box:
    def __init__(self, v):
        self.v = v

    def get(self, k):
        return self.v + k


def methods(n=100000):
    box = Box(1)
    get = box.get
    for i in range(n):
        get(i)


def plain_fib():
    fib(25)


def naive_fib():
    events = []

    def hook(frame, event, arg):
        events.append((frame.f_code, event))
    sys.setprofile(hook)
    try:
        fib(25)
    finally:
        sys.setprofile(None)


def naive_monitoring_fib():
    mon = sys.monitoring
    ev = mon.events
    events = []
    add = events.append
    tool = 5

    def start(code, offset):
        add((code, 0))

    def ret(code, offset, value):
        add((code, value))
    mon.use_tool_id(tool, "bench")
    mon.register_callback(tool, ev.PY_START, start)
    mon.register_callback(tool, ev.PY_RETURN, ret)
    mon.set_events(tool, ev.PY_START | ev.PY_RETURN)
    try:
        fib(25)
    finally:
        mon.set_events(tool, 0)
        mon.register_callback(tool, ev.PY_START, None)
        mon.register_callback(tool, ev.PY_RETURN, None)
        mon.free_tool_id(tool)


def cprofile_fib():
    prof = cProfile.Profile()
    prof.enable()
    try:
        fib(25)
    finally:
        prof.disable()


def probe(fn, trace=(), root=HERE, trace_all=None, limits=None):
    """Run `fn` under the probe in this process: hooks on, call, hooks off, files written.

    Returns (seconds, output bytes, engine name, FLT steps recorded).
    """
    out = tempfile.mkdtemp(prefix="adi-bench-")
    try:
        data = {"version": 1, "out": out, "root": root, "target": {"mode": "code", "code": "pass"},
                "trace": list(trace), "limits": limits or {"max_steps": 10 ** 7}}
        if trace_all:
            data["trace_all"] = {"max_steps": trace_all}
        cfg = config.Config(data)
        run = runner.Run(cfg)
        run.rec.announce(run.rec.thread_state())
        engine = select(run.rec)
        t0 = time.perf_counter()
        engine.start()
        try:
            fn()
        finally:
            engine.stop()
        run.rec.finish_unfinished()
        run.out.close()
        elapsed = time.perf_counter() - t0
        steps = _steps(os.path.join(out, "flt.bin"))
        return elapsed, run.out.bytes, engine.name, steps
    finally:
        shutil.rmtree(out, ignore_errors=True)


def _steps(path):
    """How many step records an flt.bin holds."""
    import marshal
    with open(path, "rb") as f:
        raw = f.read()
    pos = raw.index(b"\n") + 1
    n = 0
    while pos + 4 <= len(raw):
        size = int.from_bytes(raw[pos:pos + 4], "little")
        n += sum(1 for r in marshal.loads(raw[pos + 4:pos + 4 + size]) if r[0] == "step")
        pos += 4 + size
    return n


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("trace", "profile", "monitoring"))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--sympy", action="store_true", help="also time a sympy pytest run (slow)")
    args = parser.parse_args()
    if args.engine:
        engines = [args.engine]
    else:
        engines = (["monitoring"] if hasattr(sys, "monitoring") else []) + ["trace", "profile"]
    default = engines[0]
    print("Python %s (%s)" % (sys.version.split()[0], sys.executable))
    section_t(args, engines)
    section_methods(args, default)
    section_flt(args, default)
    section_eager(args, default)
    if args.sympy:
        section_sympy(args)


def _best(rows, rounds):
    """Run every row once per round, interleaved; keep the best of each. Rows: (name, run)."""
    times = {name: float("inf") for name, _ in rows}
    extra = {}
    for _ in range(rounds):
        for name, run in rows:
            elapsed, more = run()
            if elapsed < times[name]:
                times[name] = elapsed
                extra[name] = more
    return times, extra


def section_t(args, engines):
    rows = [("plain fib(25)", _plain_run(plain_fib)),
            ("naive setprofile recorder", _plain_run(naive_fib))]
    if hasattr(sys, "monitoring"):
        rows.append(("naive sys.monitoring recorder", _plain_run(naive_monitoring_fib)))
    rows.append(("cProfile", _plain_run(cprofile_fib)))
    for e in engines:
        label = "adi probe, %s engine" % e
        if e == "profile" and not hasattr(sys, "monitoring"):
            label += " (under a debugger)"
        rows.append((label, _probe_run(e, plain_fib)))
    times, extra = _best(rows, args.rounds)
    plain = times["plain fib(25)"]
    print("\n1. fib(25), %d calls, args and returns recorded, in-process time (best of %d rounds)"
          % (_calls(25), args.rounds))
    print("   %-46s %10s %8s" % ("", "ms", "x plain"))
    for name, _ in rows:
        print("   %-46s %10.1f %8.1f" % (name, times[name] * 1000, times[name] / plain))
    size = max(v[0] for v in extra.values() if v)
    print("   (probe output: %.1f MB, %.0f bytes per call)" % (size / 1e6, size / _calls(25)))


def section_methods(args, engine):
    rows = [("plain", _plain_run(methods)), ("adi probe, %s engine" % engine, _probe_run(engine, methods))]
    times, _ = _best(rows, args.rounds)
    plain = times["plain"]
    probe_t = times["adi probe, %s engine" % engine]
    print("\n2. 100k method calls box.get(i) (self is an object), in-process time")
    print("   plain %.1f ms, probe %.1f ms: %.1fx plain, %.2f us per call"
          % (plain * 1000, probe_t * 1000, probe_t / plain, (probe_t - plain) / 100001 * 1e6))


def section_flt(args, engine):
    n = 50000
    rows = [("plain", _plain_run(lambda: loop(n))),
            ("traced", _probe_run(engine, lambda: loop(n), trace=[{"func": "bench_probe:loop", "index": 1}]))]
    times, extra = _best(rows, args.rounds)
    steps = 2 * n + 2
    base, traced = times["plain"], times["traced"]
    print("\n3. FLT of one frame with %d statements (for i in range(%d): s += i), %s engine"
          % (steps, n, engine))
    print("   plain %.1f ms, traced %.1f ms -> %.2f us per statement (output %.1f MB)"
          % (base * 1000, traced * 1000, (traced - base) / steps * 1e6, extra["traced"][0] / 1e6))


def section_eager(args, engine):
    demo_dir = tempfile.mkdtemp(prefix="adi-bench-demo-")
    try:
        demo = os.path.join(demo_dir, "orders.py")
        shutil.copy(DEMO, demo)
        with open(demo) as f:
            code = compile(f.read(), demo, "exec")

        def run_demo():
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, {"__name__": "__main__"})

        limits = {}  # the default per-frame max_steps
        workloads = [("demo (examples/orders.py)", run_demo, demo_dir),
                     ("fib(25)", plain_fib, HERE),
                     ("loop(50000), 100k statements", lambda: loop(50000), HERE)]
        rows = []
        for name, fn, root in workloads:
            rows.append((name + " plain", _plain_run(fn)))
            rows.append((name + " T", _probe_run(engine, fn, root=root, limits=limits)))
            rows.append((name + " T+eager", _probe_run(engine, fn, root=root, limits=limits,
                                                       trace_all=EAGER_STEPS)))
        times, extra = _best(rows, args.rounds)
        print("\n4. Eager FLTs (trace_all max_steps=%d), %s engine, in-process time (ms)" % (EAGER_STEPS, engine))
        print("   %-32s %9s %9s %11s %9s %8s %9s" % ("", "plain", "T", "T + eager", "eager", "steps",
                                                   "us/step"))
        for name, _, _ in workloads:
            p, t, e = times[name + " plain"], times[name + " T"], times[name + " T+eager"]
            steps = extra[name + " T+eager"][1]
            print("   %-32s %9.2f %9.2f %11.2f %9.2f %8d %9.2f" % (
                name, p * 1000, t * 1000, e * 1000, (e - t) * 1000, steps, (e - t) / max(steps, 1) * 1e6))
    finally:
        shutil.rmtree(demo_dir, ignore_errors=True)


SYMPY_TEST = '''\
from sympy import cos, expand, factor, simplify, sin, symbols

x, y = symbols("x y")


def test_trig():
    assert simplify(sin(x) ** 2 + cos(x) ** 2) == 1


def test_rational():
    assert simplify((x ** 3 + x ** 2 - x - 1) / (x ** 2 + 2 * x + 1)) == x - 1


def test_factor():
    assert factor(expand((x + y) ** 4)) == (x + y) ** 4
'''


def section_sympy(args):
    try:
        import sympy
    except ImportError:
        print("\n5. sympy: skipped (sympy is not installed for %s)" % sys.executable)
        return
    tmp = tempfile.mkdtemp(prefix="adi-bench-sympy-")
    try:
        with open(os.path.join(tmp, "test_simplify.py"), "w") as f:
            f.write(SYMPY_TEST)
        pytest_args = ["-q", "-p", "no:cacheprovider", "test_simplify.py"]
        sympy_glob = os.path.join(os.path.dirname(os.path.realpath(sympy.__file__)), "*")

        def probe_cmd(name, include):
            out = os.path.join(tmp, name)
            cfg = {"version": 1, "out": out, "root": tmp, "include": include,
                   "target": {"mode": "module", "module": "pytest", "argv": pytest_args, "stdin": None}}
            path = os.path.join(tmp, name + ".json")
            with open(path, "w") as f:
                json.dump(cfg, f)
            return [sys.executable, os.path.join(PROBE_DIR, "adi_probe_run.py"), path], out

        lib_cmd, lib_out = probe_cmd("library", [])
        user_cmd, user_out = probe_cmd("user", [sympy_glob])
        rows = [("plain", [sys.executable, "-m", "pytest"] + pytest_args, None),
                ("probe, sympy as library code", lib_cmd, lib_out),
                ("probe, sympy as user code", user_cmd, user_out)]
        env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
        env.pop("ADI_PROBE_ENGINE", None)

        def wall(cmd, out):
            def run():
                t0 = time.perf_counter()
                proc = subprocess.run(cmd, cwd=tmp, env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                elapsed = time.perf_counter() - t0
                if proc.returncode != 0:
                    raise SystemExit("sympy benchmark run failed:\n" + proc.stdout.decode()[-2000:])
                result = None
                if out is not None:
                    with open(os.path.join(out, "result.json")) as f:
                        result = json.load(f)
                return elapsed, result
            return run

        rounds = max(1, min(args.rounds, 3))
        times, extra = _best([(name, wall(cmd, out)) for name, cmd, out in rows], rounds)
        plain = times["plain"]
        print("\n5. sympy %s: python -m pytest on 3 tests calling simplify/factor/expand, process wall time"
              " (best of %d)" % (sympy.__version__, rounds))
        print("   %-32s %9s %8s %10s %9s" % ("", "s", "x plain", "calls", "MB"))
        for name, _, _ in rows:
            r = extra[name]
            calls = "%d" % r["calls"] if r else ""
            size = "%.1f" % (r["bytes"] / 1e6) if r else ""
            print("   %-32s %9.2f %8.1f %10s %9s" % (name, times[name], times[name] / plain, calls, size))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _plain_run(fn):
    """A callable timing `fn` without the probe; returns (seconds, None)."""
    return lambda: (_timed(fn), None)


def _probe_run(engine, fn, **kw):
    """A callable running `fn` under the probe with `engine`; returns (seconds, (bytes, steps))."""
    def run():
        old = os.environ.get("ADI_PROBE_ENGINE")
        os.environ["ADI_PROBE_ENGINE"] = engine
        try:
            elapsed, size, _, steps = probe(fn, **kw)
        finally:
            if old is None:
                del os.environ["ADI_PROBE_ENGINE"]
            else:
                os.environ["ADI_PROBE_ENGINE"] = old
        return elapsed, (size, steps)
    return run


def _calls(n):
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b


if __name__ == "__main__":
    main()
