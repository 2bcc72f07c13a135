"""fib(22), timed inside the program (the best of 10), for the live-mode benchmark's idle-recorder
figure (bench/live.go): prints "fib-seconds S". With an argument, the probe's directory, it first
starts the probe's watch recorder with no watch (idle, as adi live's launcher does), without a
debugger (its profile engine, as under pydevd on Python 3.8-3.11)."""
import atexit
import os
import shutil
import sys
import tempfile
import time


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


if len(sys.argv) > 1:
    os.environ["ADI_PROBE_ENGINE"] = "profile"
    sys.path.insert(0, sys.argv[1])
    from adi_probe import watch

    tmp = tempfile.mkdtemp(prefix="adi-bench-fib-")
    atexit.register(shutil.rmtree, tmp, True)  # registered first: runs after the recorder's close
    answer = watch.start({"out": os.path.join(tmp, "out"), "socket": os.path.join(tmp, "w.sock"),
                          "root": os.getcwd(), "include": [], "exclude": [], "watches": []})
    if '"ok"' not in answer:
        sys.exit("watch.start: " + answer)

best = None
for _ in range(10):
    t = time.perf_counter()
    fib(22)
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print("fib-seconds %.6f" % best, flush=True)
