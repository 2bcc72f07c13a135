"""What watching costs a live process (adi_probe/watch.py), in-process time of fib(N):

    python3 probe/python/bench/bench_watch.py [--n 22] [--rounds 5] [--engine auto|trace|profile|monitoring]

Rows (each in a fresh process; best of --rounds):
- plain: no probe;
- dormant: watch.start with no watch (every call of user code goes through the scoped hooks,
  which return at once);
- unrelated watch: one watch on a function that is never called (the same cost: an unwatched
  code object's decision is cached);
- cond on fib, false: a watch on fib whose condition never holds (every fib call outside a
  root evaluates it: the price of a condition on a hot function);
- caught: a watch on fib with max 1 (the first fib(N) is a root: all its calls recorded, with
  FLTs; reported once, not best of).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROBE_DIR = os.path.dirname(HERE)
FIB = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
MODES = [("plain", None), ("dormant", []), ("unrelated watch", [{"func": "never_called"}]),
         ("cond on fib, false", [{"func": "fib", "cond": "n < 0"}]), ("caught (fib max 1)", [{"func": "fib", "max": 1}])]


def child(mode, n, rounds):
    tmp = tempfile.mkdtemp(prefix="adi-bench-watch-")
    try:
        with open(os.path.join(tmp, "benchfib.py"), "w") as f:
            f.write(FIB)
        sys.path.insert(0, tmp)
        import benchfib
        watches = dict(MODES)[mode]
        if watches is not None:
            sys.path.append(PROBE_DIR)
            from adi_probe import watch
            ans = json.loads(watch.start({"out": os.path.join(tmp, "out"), "socket": os.path.join(tmp, "s"),
                                          "root": tmp, "watches": watches}))
            assert "error" not in ans, ans
        best = None
        for _ in range(rounds if not mode.startswith("caught") else 1):
            t0 = time.perf_counter()
            benchfib.fib(n)
            dt = time.perf_counter() - t0
            best = dt if best is None else min(best, dt)
        engine = ans["engine"] if watches is not None else "-"
        print(json.dumps({"ms": best * 1000, "engine": engine}))
        sys.stdout.flush()
        shutil.rmtree(tmp, ignore_errors=True)  # (os._exit skips finally)
        os._exit(0)  # (skip the atexit write of what was recorded)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=22)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--engine", default="auto")
    ap.add_argument("--child")
    a = ap.parse_args()
    if a.child:
        return child(a.child, a.n, a.rounds)
    env = dict(os.environ, ADI_PROBE_ENGINE=a.engine)
    calls = 0
    f = [0, 0]
    for _ in range(a.n):
        pass
    import functools

    @functools.lru_cache(None)
    def count(k):
        return 1 if k < 2 else 1 + count(k - 1) + count(k - 2)
    calls = count(a.n)
    print("Python %s, fib(%d): %d calls, engine %s" % (sys.version.split()[0], a.n, calls, a.engine))
    plain = None
    for mode, _ in MODES:
        out = subprocess.run([sys.executable, __file__, "--child", mode, "--n", str(a.n), "--rounds", str(a.rounds)],
                             env=env, stdout=subprocess.PIPE, check=True).stdout
        r = json.loads(out)
        plain = plain or r["ms"]
        print("  %-22s %9.1f ms  x%6.1f  %7.3f us/call more than plain  (%s)"
              % (mode, r["ms"], r["ms"] / plain, (r["ms"] - plain) * 1000 / calls, r["engine"]))


if __name__ == "__main__":
    main()
