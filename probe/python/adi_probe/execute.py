"""``run(stmt)``: the bridge's ``execute`` command, evaluated through debugpy in the frame a
stop (``adi_probe.hit``) paused.

The statement runs in that frame, with its globals and its locals: an assignment changes the
frame (so ``exec --then-continue`` can test a fix hypothesis in this re-run; the recorded
session is not affected). Locals are written back through ``PyFrame_LocalsToFast`` before
3.13 and through the write-through ``f_locals`` proxy from 3.13 on. What the statement prints
(stdout and stderr) is captured; an expression's value is reported as a bounded repr. The
result goes to ``exec.json`` in the run's output directory: ``{"output": str, "value": str or
null, "exception": {"type", "message", "line"} or null}`` (``line`` counts within the
statement). Calls the statement makes are not recorded: it runs inside the debugger's trace
function, where the interpreter reports no events.
"""

import io
import os
import sys
import traceback

from . import debugger
from .output import write_json
from .stepper import exc_message, exc_type_name

RESULT_FILE = "exec.json"


def run(stmt):
    """Run `stmt` in the stopped frame and write exec.json; returns "ok"."""
    active = debugger.current_run()
    if active is None:
        raise RuntimeError("adi: the probe is not recording this process")
    frame = debugger.stopped_frame() or sys._getframe(1)
    result = _execute(stmt, frame, active.values)
    write_json(os.path.join(active.cfg.out, RESULT_FILE), result)
    return "ok"


def _execute(stmt, frame, values):
    """Run `stmt` with the frame's globals and locals; never raises."""
    scope = frame.f_locals  # the frame's locals dict (a write-through proxy on 3.13+)
    buf = io.StringIO()
    saved = sys.stdout, sys.stderr
    value = exception = None
    sys.stdout = sys.stderr = buf
    try:
        try:
            code = compile(stmt, "<adi exec>", "eval")
        except SyntaxError:
            code = compile(stmt, "<adi exec>", "exec")
            exec(code, frame.f_globals, scope)
        else:
            value = values.render(eval(code, frame.f_globals, scope))
    except BaseException as exc:  # the statement's own error (also SystemExit): report it
        exception = {"type": exc_type_name(type(exc)), "message": exc_message(exc, values.limit),
                     "line": _line_in_statement(exc)}
    finally:
        sys.stdout, sys.stderr = saved
        _write_back(frame)
    return {"output": buf.getvalue(), "value": value, "exception": exception}


def _write_back(frame):
    """Copy the frame's locals dict back into its fast locals (not needed from 3.13 on)."""
    if sys.version_info >= (3, 13):
        return
    try:
        import ctypes
        ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))
    except Exception:  # no ctypes: the debugger's trace trampoline syncs the dict back itself
        pass


def _line_in_statement(exc):
    """The line of the statement where `exc` was raised (0 when not inside it)."""
    if isinstance(exc, SyntaxError) and exc.filename == "<adi exec>":
        return exc.lineno or 0
    for entry in reversed(traceback.extract_tb(exc.__traceback__)):
        if entry.filename == "<adi exec>":
            return entry.lineno
    return 0
