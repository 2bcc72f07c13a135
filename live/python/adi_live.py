"""adi live mode's helper inside the debuggee: interact(code, limit) runs an agent's statements in
the frame debugpy is paused in, and hide_launcher_frames keeps adi's launcher out of tracebacks.

interact is called by one DAP evaluate request. pydevd evaluates it with one dict holding the
paused frame's globals and locals (the caller's globals here) and, after a call that did not
raise, writes every name whose value changed back into the frame's locals (PyFrame_LocalsToFast),
so an assignment persists and changes what runs after continue; a name that is a global of the
paused function's module (not one of its locals) is written to the module too (pydevd alone would
only shadow it in the frame's locals). The statements run with stdout and stderr captured; the
value of a final expression is shown as the REPL would. An exception inside is reported, never
raised: the program stays paused where it was. In the main thread a timer (SIGALRM) interrupts
statements that run longer than the limit; in another thread nothing can (a thread started while
pydevd holds the others suspended does not run), and adi ends the run when the evaluation does
not return. The answer is base64 of a JSON object {"output", "value", "exception", "traceback",
"timed_out", "changed"}, so that pydevd's repr of it is plain. Standard library only.
"""

import ast
import base64
import io
import json
import linecache
import os
import signal
import sys
import threading
import time
import traceback
import types

_OUTPUT_LIMIT = 16000
_VALUE_LIMIT = 4000
_FILENAME = "<interact>"
_MISSING = object()


class _TimedOut(BaseException):
    """Raised into statements that ran longer than the limit."""


def _short(text, limit):
    if len(text) <= limit:
        return text
    return text[: limit // 2] + "\n[... %d characters cut ...]\n" % (len(text) - limit) + text[-limit // 2:]


def _compile(code):
    """Compile code as the REPL would: statements, then the value of a final expression."""
    tree = ast.parse(code, _FILENAME, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, _FILENAME, "exec") if tree.body else None
    value = compile(last, _FILENAME, "eval") if last is not None else None
    return body, value


def _traceback(exc):
    """The traceback of exc from the first frame of the agent's code on."""
    entries = traceback.extract_tb(exc.__traceback__)
    for i, e in enumerate(entries):
        if e.filename == _FILENAME:
            entries = entries[i:]
            break
    else:
        entries = []
    lines = []
    for e in entries:
        where = "interact line %d" % e.lineno if e.filename == _FILENAME else "%s:%d in %s" % (e.filename, e.lineno, e.name)
        lines.append(where + (": " + e.line.strip() if e.line else ""))
    return lines


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


def _write_globals(ns, before, frame):
    """Assignments to the module's globals from inside a function reach the module.

    pydevd writes every changed name into the frame's locals only; a name that is a global of the
    function's module (and not one of its locals) is written to the module too.
    """
    if frame is None or frame.f_globals is frame.f_locals:
        return
    code = frame.f_code
    local = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
    g = frame.f_globals
    for k, v in ns.items():
        if k in g and k not in local and v is not before.get(k, _MISSING):
            g[k] = v


def _changed(ns, before):
    """The names the code bound or rebound, with a short repr of their values."""
    out = []
    for k, v in ns.items():
        if v is not before.get(k, _MISSING) and not k.startswith("__"):
            try:
                r = repr(v)
            except Exception:
                r = "<repr failed>"
            out.append([k, _short(r, 200)])
    return out


def interact(code, limit=0.0):
    ns = sys._getframe(1).f_globals
    frame = _paused_frame(ns)
    before = dict(ns)
    out = io.StringIO()
    result = {"output": "", "value": None, "exception": None, "traceback": [], "timed_out": False, "changed": []}
    timer = limit > 0 and threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    saved = sys.stdout, sys.stderr
    old_handler = old_timer = None
    linecache.cache[_FILENAME] = (len(code), None, code.splitlines(True), _FILENAME)  # tracebacks show the code
    try:
        body, value = _compile(code)
    except SyntaxError as exc:
        result["exception"] = {"type": "SyntaxError", "message": "%s (interact line %s)" % (exc.msg, exc.lineno)}
        return _answer(result)
    except ValueError as exc:  # e.g. a null byte in the code
        result["exception"] = {"type": "ValueError", "message": str(exc)}
        return _answer(result)
    sys.stdout = sys.stderr = out
    try:
        if timer:
            def expire(signum, frame):
                raise _TimedOut()
            old_handler = signal.signal(signal.SIGALRM, expire)
            old_timer = signal.setitimer(signal.ITIMER_REAL, limit), time.monotonic()
        try:
            if body is not None:
                exec(body, ns)
            if value is not None:
                v = eval(value, ns)
                if v is not None:
                    result["value"] = _short(repr(v), _VALUE_LIMIT)
        finally:
            if timer:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, old_handler)
                (delay, interval), since = old_timer
                if delay > 0:  # the program's own alarm goes on, less the time spent here
                    signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - since), 0.001), interval)
    except _TimedOut:
        result["timed_out"] = True
    except BaseException as exc:  # the agent's error, also SystemExit and KeyboardInterrupt: report it
        try:
            message = str(exc)
        except Exception:
            message = "<str() failed>"
        result["exception"] = {"type": type(exc).__name__, "message": _short(message, _VALUE_LIMIT)}
        result["traceback"] = _traceback(exc)
    finally:
        sys.stdout, sys.stderr = saved
        _write_globals(ns, before, frame)
        result["changed"] = _changed(ns, before)
    result["output"] = _short(out.getvalue(), _OUTPUT_LIMIT)
    return _answer(result)


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
