"""Entry script of adi's probe: ``python adi_probe_run.py CONFIG.json``.

``python adi_probe_run.py --standby FIFO`` is a run started ahead of need (a run kept ready for
the next re-run or exec, or under debugpy for adi's exec --then-continue): it imports the probe's
modules, then waits until adi writes a config path and a newline into the FIFO, and runs as
``adi_probe_run.py CONFIG.json`` would. End of file without a path ends it (exit 0). Nothing of
the target runs before the config comes, so such a run is the same as a cold one.

It takes its own directory off the front of ``sys.path`` (the target must see the path
``python <target>`` would give it), appends it at the end so ``import adi_probe`` works (also
for debugger conditions and evaluate), and runs ``adi_probe.main``. The probe's modules are
compiled into its own ``__pycache__`` whatever ``PYTHONDONTWRITEBYTECODE`` says (the target's
setting is left as it was).
"""

import os
import sys

# The Python versions adi supports (README's Requirements). This file parses on Python 2.7 too, so
# that an interpreter outside them is told so in one line before anything runs.
SUPPORTED = ((3, 6), (3, 13))


def _unsupported():
    """The line saying this interpreter's version is outside SUPPORTED, or None."""
    if SUPPORTED[0] <= tuple(sys.version_info[:2]) <= SUPPORTED[1]:
        return None
    (a, b), (c, d) = SUPPORTED
    return "python %s (%s) is not supported: adi runs Python %d.%d to %d.%d; choose another " \
        "interpreter" % (sys.version.split()[0], sys.executable, a, b, c, d)


def _refuse(message):
    """Say `message` on stderr and in the run's result.json (the config's out directory)."""
    sys.stderr.write("adi: %s\n" % message)
    sys.stderr.flush()
    try:
        import json
        with open(sys.argv[1]) as f:
            out = json.load(f)["out"]
        if not os.path.isdir(out):
            os.makedirs(out)
        with open(os.path.join(out, "result.json"), "w") as f:
            json.dump({"version": 1, "complete": True, "exit": {"kind": "exit", "code": 2, "exception": None},
                       "calls": 0, "unrecorded_calls": 0, "bytes": 0, "limit": None, "conditions": [],
                       "divergence": None, "duration_ms": 0.0, "engine": None, "error": message}, f)
    except Exception:
        pass
    return 2


def _main():
    refused = _unsupported()
    if refused is not None:
        if len(sys.argv) == 3 and sys.argv[1] == "--standby":
            return 2  # (a run kept ready: the run started for its config says why)
        return _refuse(refused)
    here = os.path.dirname(os.path.realpath(__file__))
    if sys.path and sys.path[0] and os.path.realpath(sys.path[0]) == here:
        del sys.path[0]
    if here not in sys.path:
        sys.path.append(here)
    standby = len(sys.argv) == 3 and sys.argv[1] == "--standby"
    if len(sys.argv) != 2 and not standby:
        sys.stderr.write("adi: usage: %s CONFIG.json | --standby FIFO\n" % os.path.basename(sys.argv[0]))
        return 2
    # The probe's own modules are compiled to bytecode in its directory even when the environment
    # says not to write bytecode (PYTHONDONTWRITEBYTECODE): compiling them costs 20 ms at every
    # run otherwise. The target sees the setting its environment gives.
    # Every module is compiled at the first run of this directory by this python (a marker file
    # says so): the modules a run imports later (runner, engines, ...) would be compiled again
    # and again otherwise.
    dont_write = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        import adi_probe
        _compile_all(os.path.join(here, "adi_probe"))
        if standby:
            import adi_probe.runner  # noqa: F401 - what main imports, before the config comes
    finally:
        sys.dont_write_bytecode = dont_write
    if standby:
        with open(sys.argv[2], "r", encoding="utf-8") as fifo:  # blocks until adi opens it
            config = fifo.readline().rstrip("\n")
        if not config:
            return 0
        del sys.argv[1:]
        sys.argv.append(config)
    return adi_probe.main(sys.argv[1])


def _compile_all(pkg):
    marker = os.path.join(pkg, "__pycache__", ".all-" + sys.implementation.cache_tag)
    if os.path.exists(marker):
        return
    try:
        import compileall
        if compileall.compile_dir(pkg, maxlevels=0, quiet=2):
            with open(marker, "w"):
                pass
    except Exception:  # a read-only directory: the modules compile in memory as before
        pass


if __name__ == "__main__":
    sys.exit(_main())
