"""Benchmarks of the probe, printed as a small table (runs in well under a minute).

    python3 probe/python/bench/bench_probe.py [--engine trace|profile|monitoring]

1. Recording T for fib(25) (~243k calls; arguments and return values recorded, output
   written): in-process time of plain fib(25), a naive ``sys.setprofile`` recorder that
   appends (code, event) tuples, cProfile, and the probe with each engine this interpreter
   has (or the one given), as ratios to plain, all measured in this run: every row once per
   round, interleaved (the machine's speed drifts), best of 3 rounds (--rounds).
2. FLT capture of one frame that executes 100k statements (``for i in range(50000): s += i``):
   microseconds per statement, ΔS and output included (default engine).
"""

import argparse
import cProfile
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from adi_probe import config, runner  # noqa: E402
from adi_probe.engines import select  # noqa: E402


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def loop(n):
    s = 0
    for i in range(n):
        s += i
    return s


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


def cprofile_fib():
    prof = cProfile.Profile()
    prof.enable()
    try:
        fib(25)
    finally:
        prof.disable()


def probe(fn, trace=()):
    """Run `fn` under the probe in this process: hooks on, call, hooks off, files written."""
    out = tempfile.mkdtemp(prefix="adi-bench-")
    try:
        cfg = config.Config({"version": 1, "out": out, "root": HERE,
                             "target": {"mode": "code", "code": "pass"},
                             "trace": list(trace), "limits": {"max_steps": 10 ** 7}})
        run = runner.Run(cfg)
        run.rec.announce(run.rec.thread_state())
        engine = select(run.rec)
        t0 = time.perf_counter()
        engine.start()
        try:
            fn()
        finally:
            engine.stop()
        run.out.close()
        elapsed = time.perf_counter() - t0
        size = run.out.bytes
        return elapsed, size, engine.name
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("trace", "profile", "monitoring"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.engine:
        engines = [args.engine]
    else:
        engines = (["monitoring"] if hasattr(sys, "monitoring") else []) + ["trace", "profile"]

    # The machine's speed drifts: measure every row once per round, interleaved, keep the best.
    rows = [("plain fib(25)", _plain_run(plain_fib)), ("naive setprofile recorder", _plain_run(naive_fib)),
            ("cProfile", _plain_run(cprofile_fib))]
    rows += [("adi probe, %s engine" % e, _probe_run(e, plain_fib)) for e in engines]
    times = {name: float("inf") for name, _ in rows}
    size = 0
    for _ in range(args.rounds):
        for name, run in rows:
            elapsed, out_bytes = run()
            times[name] = min(times[name], elapsed)
            size = max(size, out_bytes)
    plain = times["plain fib(25)"]
    print("Python %s (%s)" % (sys.version.split()[0], sys.executable))
    print("\n1. fib(25), %d calls, args and returns recorded, in-process time (best of %d rounds)"
          % (_calls(25), args.rounds))
    print("   %-36s %10s %8s" % ("", "ms", "x plain"))
    for name, _ in rows:
        print("   %-36s %10.1f %8.1f" % (name, times[name] * 1000, times[name] / plain))
    print("   (probe output: %.1f MB of JSON lines)" % (size / 1e6))

    n = 50000
    engine = args.engine or engines[0]
    base = traced = float("inf")
    traced_size = 0
    for _ in range(args.rounds):
        base = min(base, _timed(lambda: loop(n)))
        elapsed, traced_size = _probe_run(engine, lambda: loop(n),
                                          trace=[{"func": "bench_probe:loop", "index": 1}])()
        traced = min(traced, elapsed)
    steps = 2 * n + 2
    print("\n2. FLT of one frame with %d statements (for i in range(%d): s += i), %s engine"
          % (steps, n, engine))
    print("   plain %.1f ms, traced %.1f ms -> %.2f us per statement (output %.1f MB)"
          % (base * 1000, traced * 1000, (traced - base) / steps * 1e6, traced_size / 1e6))


def _timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _plain_run(fn):
    """A callable timing `fn` without the probe; returns (seconds, 0)."""
    return lambda: (_timed(fn), 0)


def _probe_run(engine, fn, trace=()):
    """A callable running `fn` under the probe with `engine`; returns (seconds, output bytes)."""
    def run():
        old = os.environ.get("ADI_PROBE_ENGINE")
        os.environ["ADI_PROBE_ENGINE"] = engine
        try:
            elapsed, size, _ = probe(fn, trace)
        finally:
            if old is None:
                del os.environ["ADI_PROBE_ENGINE"]
            else:
                os.environ["ADI_PROBE_ENGINE"] = old
        return elapsed, size
    return run


def _calls(n):
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b


if __name__ == "__main__":
    main()
