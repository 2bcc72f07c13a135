"""fib(22), timed inside the program (the best of 10), for the live-mode benchmark's idle-recorder
figure (bench/live.go): prints "fib-seconds S"."""
import time


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


best = None
for _ in range(10):
    t = time.perf_counter()
    fib(22)
    d = time.perf_counter() - t
    best = d if best is None else min(best, d)
print("fib-seconds %.6f" % best, flush=True)
