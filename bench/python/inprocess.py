"""In-process costs, printed as one JSON object for the benchmark program (adi-bench).

    python inprocess.py --probe-bench DIR [--rounds 3]

DIR is probe/python/bench: its bench_probe module supplies the workloads (``fib``, ``loop``) and
the probe harness (``probe(fn, trace)``, which runs a function under adi's probe in this
process, hooks on to hooks off, files written, and returns the seconds, the bytes written and
the engine first). This script only times them, interleaved round by round (the machine's speed
drifts), keeping the best of each:

- recording T of fib(25): plain, a naive sys.setprofile recorder, cProfile, and the probe with
  every engine this interpreter has;
- the FLT of one frame that runs 100,002 statements: the probe's cost per statement.

Standard library only.
"""

import argparse
import cProfile
import json
import os
import sys
import time


def best(rounds, rows):
    """Time every row once per round, interleaved; return {name: (best seconds, extra)}."""
    out = {name: (float("inf"), None) for name, _ in rows}
    for _ in range(rounds):
        for name, fn in rows:
            t, extra = fn()
            if t < out[name][0]:
                out[name] = (t, extra)
    return out


def calls(n):
    """How many calls fib(n) makes."""
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--probe-bench", required=True, help="probe/python/bench")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    sys.path.insert(0, os.path.abspath(a.probe_bench))
    import bench_probe as bp  # noqa: E402 - found only once the path is known

    def timed(fn):
        def run():
            t0 = time.perf_counter()
            fn()
            return time.perf_counter() - t0, None
        return run

    def probed(engine, fn, trace=()):
        def run():
            old = os.environ.get("ADI_PROBE_ENGINE")
            os.environ["ADI_PROBE_ENGINE"] = engine
            try:
                res = bp.probe(fn, trace)
                elapsed, size, name = res[0], res[1], res[2]
            finally:
                if old is None:
                    os.environ.pop("ADI_PROBE_ENGINE", None)
                else:
                    os.environ["ADI_PROBE_ENGINE"] = old
            return elapsed, {"bytes": size, "engine": name}
        return run

    def plain_fib():
        bp.fib(25)

    def naive_fib():
        events = []

        def hook(frame, event, arg):
            events.append((frame.f_code, event))
        sys.setprofile(hook)
        try:
            bp.fib(25)
        finally:
            sys.setprofile(None)

    def cprofile_fib():
        prof = cProfile.Profile()
        prof.enable()
        try:
            bp.fib(25)
        finally:
            prof.disable()

    engines = (["monitoring"] if hasattr(sys, "monitoring") else []) + ["trace", "profile"]
    rows = [("plain", timed(plain_fib)), ("setprofile recorder", timed(naive_fib)),
            ("cProfile", timed(cprofile_fib))]
    rows += [("adi probe (%s engine)" % e, probed(e, plain_fib)) for e in engines]
    fib = best(a.rounds, rows)

    n = 50000
    steps = 2 * n + 2
    trace = [{"func": "bench_probe:loop", "index": 1}]
    engine = engines[0]
    loop = best(a.rounds, [("plain", timed(lambda: bp.loop(n))),
                           ("traced", probed(engine, lambda: bp.loop(n), trace))])
    print(json.dumps({
        "python": sys.version.split()[0],
        "rounds": a.rounds,
        "fib_calls": calls(25),
        "fib": [{"name": name, "seconds": fib[name][0], "extra": fib[name][1]} for name, _ in rows],
        "flt": {"engine": engine, "steps": steps, "plain_seconds": loop["plain"][0],
                "traced_seconds": loop["traced"][0], "bytes": loop["traced"][1]["bytes"]},
    }))


if __name__ == "__main__":
    main()
