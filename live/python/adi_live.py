"""adi live mode's helper inside the debuggee: interact(code, limit) runs an agent's statements in
the frame debugpy is paused in, and hide_launcher_frames keeps adi's launcher out of tracebacks.

interact is called by one DAP evaluate request and runs the code with the probe's evaluator
(adi_probe/evaluate.py, the one ``adi exec`` uses; the launcher imports this module while the
probe's directory is on sys.path, so the import below finds it), in the paused frame: pydevd
evaluates the call with one dict merged from the frame's globals and locals, whose ``globals``
entry (a lambda over the frame) gives the frame itself. The evaluator writes what the code binds
to the frame and the module; pydevd's merged dict stays unchanged, so pydevd writes nothing back.
In the main thread a timer (SIGALRM) interrupts code that runs longer than the limit; in another
thread nothing can (a thread started while pydevd holds the others suspended does not run), and
adi ends the run when the evaluation does not return. The answer is base64 of the evaluator's
JSON object {"output", "value", "exception", "traceback", "timed_out", "changed"}, so that
pydevd's repr of it is plain. Standard library only.
"""

import base64
import json
import os
import sys
import types

from adi_probe import evaluate as _evaluate


def interact(code, limit=0.0):
    ns = sys._getframe(1).f_globals
    frame = _paused_frame(ns)
    return _answer(_evaluate.evaluate(code, frame, limit, ns=ns))


def _paused_frame(ns):
    """The frame debugpy is paused in, from the globals() pydevd puts into ns (None if absent)."""
    g = ns.get("globals")
    if getattr(g, "__name__", "") != "<lambda>" or not getattr(g, "__closure__", None):
        return None
    for cell in g.__closure__:
        try:
            f = cell.cell_contents
        except ValueError:
            continue
        if isinstance(f, types.FrameType):
            return f
    return None


def _answer(result):
    return base64.b64encode(json.dumps(result).encode("utf-8")).decode("ascii")


def hide_launcher_frames(*dirs):
    """Make uncaught tracebacks start at the target, as without the launcher: frames of code in
    `dirs` (the launcher's and the probe's), runpy, debugpy and pydevd are left out at the top."""
    hook = sys.excepthook
    skip = tuple(d + os.sep for d in dirs)
    runpy_file = os.path.dirname(os.__file__) + os.sep + "runpy.py"

    def excepthook(etype, value, tb):
        t = tb
        while t is not None and (t.tb_frame.f_code.co_filename.startswith(skip)
                                 or t.tb_frame.f_code.co_filename == runpy_file
                                 or "debugpy" in t.tb_frame.f_code.co_filename
                                 or "pydevd" in t.tb_frame.f_code.co_filename):
            t = t.tb_next
        if t is not None and t is not tb:
            tb = t
            try:
                value.__traceback__ = tb  # the default hook prints the exception's own traceback
            except Exception:
                pass
        hook(etype, value, tb)

    sys.excepthook = excepthook
