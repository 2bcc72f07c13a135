"""Runs a fixture as adi's live launcher does with a "watch" key: ``adi_probe.watch.start``
in the main thread, then the script as __main__. argv: CONFIG_JSON (or "-": no watch) SCRIPT.
The start's answer goes to stderr as one line "watch-start: JSON". With WATCH_FOREIGN_TRACE
set in the environment, a foreign global trace function (as pydevd's) is installed first."""

import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    cfg, script = sys.argv[1], sys.argv[2]
    if os.environ.get("WATCH_FOREIGN_TRACE"):
        # a debugger's global trace function (pydevd has one on every thread) that traces every
        # frame's lines
        def foreign(frame, event, arg):
            return foreign
        import threading
        threading.settrace(foreign)
        sys.settrace(foreign)
    if cfg != "-":
        sys.path.append(os.path.dirname(HERE))
        from adi_probe import watch
        del sys.path[-1]
        sys.stderr.write("watch-start: %s\n" % watch.start(cfg))
        sys.stderr.flush()
    sys.argv = [script]
    sys.path[0] = os.path.dirname(script)
    runpy.run_path(script, run_name="__main__")


main()
