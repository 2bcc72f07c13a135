"""Run a program under a naive ``sys.setprofile`` call recorder (the benchmark's reference).

    python recorder.py -- (-m MODULE | SCRIPT) [ARGS...]

The hook appends ``(code, event)`` for every profile event of every thread: the least a
per-call Python hook can do, so its cost is the floor of any recorder built on one.
"""

import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyrun  # noqa: E402

del sys.path[0]


def main():
    _, target = pyrun.split_args(sys.argv[1:])
    events = []

    def hook(frame, event, arg):
        events.append((frame.f_code, event))

    threading.setprofile(hook)
    sys.setprofile(hook)
    try:
        code = pyrun.run(target)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    sys.exit(code)


if __name__ == "__main__":
    main()
