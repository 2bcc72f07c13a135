"""Run a Python program the way ``python [-m module | script] args`` would, in this process.

The benchmark's wrappers (recorder.py, peer_standin.py) import this, install their hooks, and
call ``run(argv)``. Standard library only.
"""

import os
import runpy
import sys


def run(argv):
    """Run ``argv`` (``["-m", module, *args]`` or ``[script, *args]``); return the exit code."""
    if not argv:
        raise SystemExit("usage: ... -- (-m MODULE | SCRIPT) [ARGS...]")
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1]] + argv[2:]
            sys.path[0] = os.getcwd()
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            path = os.path.abspath(argv[0])
            sys.argv = [argv[0]] + argv[1:]
            sys.path[0] = os.path.dirname(path)
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = e.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    return 0


def split_args(args):
    """Split ``[options..., "--", target...]`` into the two lists."""
    if "--" not in args:
        raise SystemExit("usage: ... [OPTIONS] -- (-m MODULE | SCRIPT) [ARGS...]")
    i = args.index("--")
    return args[:i], args[i + 1:]
