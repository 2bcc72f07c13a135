"""The one evaluator of code run in a paused frame: ``adi exec`` (execute.py, with the probe alone
or under debugpy) and ``adi live interact`` (live's adi_live.py, under debugpy) both call
``evaluate``, so both answer the same statement the same way (docs/semantics.md, "Running code in
a paused frame").

``evaluate(code, frame, limit=0.0)`` returns ``{"output", "value", "exception", "traceback",
"timed_out", "changed"}``; it never raises. The rules:

- Parsing is the REPL's: the code is statements, and when the last one is an expression its
  value is the answer (``x = 1; x`` gives 1). A value of None is not shown (``value`` null), as
  the REPL does not print it; statements without a final expression have no value either.
- Values are ``repr(value)`` as Python prints it (``_repr_text``: the program's own ``__repr__``
  is called, for a container's items too), at most VALUE_LIMIT characters; what the code prints to stdout and stderr is captured, at
  most OUTPUT_LIMIT characters (past that its start and end, with how much was cut between).
- An exception (also SystemExit and KeyboardInterrupt) is reported, never raised: ``exception``
  is ``{"type", "message", "line"}`` (``line`` counts within the code, 0 when it was raised
  outside it) and ``traceback`` lists the frames from the code's own line on, as
  ``statement line N: TEXT`` and ``FILE:LINE in FUNC: TEXT``; a syntax error has the one line
  ``statement line N: TEXT``. What ran before the exception is kept.
- Namespace: the frame's own globals and locals. A statement with a nested scope (a
  comprehension, generator expression, lambda or ``def``) runs in one namespace, the globals
  updated with the locals, as pdb and debugpy do (with separate globals and locals a nested
  scope would not see the frame's locals). What the code binds is written to the frame:
  a name goes to the frame's locals when it is a local of the function (or a new name), and to
  the module's globals when it is a global of the module and not a local of the function (the
  debugger console's rule: ``TAX = 0`` in a function that reads the module's TAX changes the
  module); ``global x`` in the code writes the module too. At module level the two are one.
  Locals are written back through ``PyFrame_LocalsToFast`` before 3.13 and through the
  write-through ``f_locals`` proxy from 3.13 on; names the code deletes are deleted there.
- ``changed`` lists the names (not dunder) the code bound or rebound, in the frame or in the
  module, with a bounded repr (CHANGED_LIMIT characters) of their new values.
- Time limit: with ``limit`` > 0 in the main thread, a timer signal (SIGALRM) interrupts code
  that runs longer, ``timed_out`` is then true and the program stays where it was (live). A
  program's own timer goes on afterwards, less the time spent here. Elsewhere the caller
  bounds the time (exec with the probe alone: execute.py's watchdog ends the process).

Calls the code makes are not recorded: it runs inside the debugger's trace function or the
probe's own event handler, where the interpreter reports no events. Standard library only.
"""

import ast
import io
import linecache
import re
import signal
import sys
import threading
import time
import traceback
import types

from .stepper import exc_type_name
from .values import Values, exc_message

FILENAME = "<adi exec>"  # the file name the code runs as (bridge/execute.go: stmtFile)
VALUE_LIMIT = 4000  # characters of a value's repr, and of an exception's message
CHANGED_LIMIT = 200  # characters of a changed name's repr
OUTPUT_LIMIT = 1000000  # characters of captured output kept in the result (answers' text shows 16000)
_values = Values(repr_limit=VALUE_LIMIT)
_changed_values = Values(repr_limit=CHANGED_LIMIT)
_MISSING = object()


class _TimedOut(BaseException):
    """Raised into code that ran longer than the limit."""


def evaluate(code, frame, limit=0.0, ns=None):
    """Run `code` in `frame` by the module's rules; returns the answer dict. Without a frame it
    runs in the one namespace `ns` (whoever passed it writes it back)."""
    result = {"output": "", "value": None, "exception": None, "traceback": [], "timed_out": False,
              "changed": []}
    linecache.cache[FILENAME] = (len(code), None, code.splitlines(True), FILENAME)  # tracebacks show the code
    try:
        body, last = _compile(code)
    except (SyntaxError, ValueError, OverflowError) as exc:  # ValueError: a null byte in the code
        result["exception"] = _exception(exc)
        if isinstance(exc, SyntaxError) and exc.lineno:
            result["traceback"] = [_statement_line(exc.lineno)]
        return result
    space = _Space(frame, ns, body, last)
    out = io.StringIO()
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = out
    try:
        alarm = _Alarm(limit)
        try:
            if body is not None:
                space.run(exec, body)
            if last is not None:
                v = space.run(eval, last)
                if v is not None:
                    result["value"] = _repr_text(v, _values, VALUE_LIMIT)
        finally:
            alarm.cancel()
    except _TimedOut:
        result["timed_out"] = True
    except BaseException as exc:  # the code's own error, also SystemExit and KeyboardInterrupt
        result["exception"] = _exception(exc)
        result["traceback"] = _traceback(exc)
    finally:
        sys.stdout, sys.stderr = saved
        try:
            result["changed"] = space.finish()
        except Exception as exc:  # never raise: say what could not be written back
            result["changed"] = [["<write-back failed>", exc_type_name(type(exc))]]
    result["output"] = _short(out.getvalue(), OUTPUT_LIMIT)
    return result


def _compile(code):
    """Compile code as the REPL would: statements, then the value of a final expression."""
    tree = ast.parse(code, FILENAME, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, FILENAME, "exec") if tree.body else None
    value = compile(last, FILENAME, "eval") if last is not None else None
    return body, value


def _nested(code):
    return code is not None and any(type(c) is types.CodeType for c in code.co_consts)


class _Space:
    """Where the code runs and where what it binds goes (see the module docstring)."""

    def __init__(self, frame, ns, body, last):
        self.frame = frame
        if frame is None:  # one namespace, written back by the caller
            self.globs = self.ns = ns
            self.locs = None
        else:
            self.globs = frame.f_globals
            locs = frame.f_locals  # a dict, or the write-through proxy of a function on 3.13+
            if locs is self.globs:
                self.ns, self.locs = self.globs, None
            else:
                self.locs = dict(locs)
                if _nested(body) or _nested(last):
                    self.ns = dict(self.globs)
                    self.ns.update(self.locs)
                else:
                    self.ns = None  # separate globals and (a copy of the) locals
        self.before_g = dict(self.globs)
        self.before_l = dict(self.locs) if self.locs is not None else None
        self.before_ns = dict(self.ns) if self.ns is not None and self.ns is not self.globs else None

    def run(self, how, code):
        if self.ns is not None:
            return how(code, self.ns)
        return how(code, self.globs, self.locs)

    def finish(self):
        """Write what the code bound to the frame; returns the changed names with their reprs."""
        if self.locs is None:  # module level (or one namespace): the code wrote it itself
            return _diff(self.globs, self.before_g, [])
        if self.ns is not None:  # the merged namespace: each change goes to the frame or module
            after, before = self.ns, self.before_ns
        else:
            after, before = self.locs, self.before_l
        code = self.frame.f_code
        optimized = code.co_flags & 0x1  # CO_OPTIMIZED: a function (a class body keeps a dict)
        local = set(code.co_varnames) | set(code.co_cellvars) | set(code.co_freevars)
        to_locals, gone = {}, []
        changed = []
        for name, v in after.items():
            if v is before.get(name, _MISSING):
                continue
            if not optimized or name in local or name not in self.before_g:
                to_locals[name] = v
            else:
                self.globs[name] = v
            changed.append(name)
        for name in before:
            if name not in after:
                if not optimized or name in local or name not in self.before_g:
                    gone.append(name)
                else:
                    self.globs.pop(name, None)
        if to_locals or gone:
            locs = self.frame.f_locals  # read once: before 3.13 each read refreshes it from the frame
            for name, v in to_locals.items():
                locs[name] = v
            for name in gone:
                try:
                    del locs[name]
                except Exception:  # a local of a 3.13 frame cannot be deleted through the proxy
                    pass
            _write_back(self.frame)
        return _diff(self.globs, self.before_g, changed, after)


def _diff(globs, before_g, names, after=None):
    """[name, repr] for `names` (their values in `after`) and the module globals that changed."""
    out, seen = [], set()
    for name in names:
        seen.add(name)
        if not name.startswith("__"):
            out.append([name, _repr_text(after[name], _changed_values, CHANGED_LIMIT)])
    for name, v in list(globs.items()):
        if name not in seen and not name.startswith("__") and v is not before_g.get(name, _MISSING):
            out.append([name, _repr_text(v, _changed_values, CHANGED_LIMIT)])
    return out


_PLAIN = (str, bytes, bytearray, int, float, complex, bool, type(None))
_SIZED = (list, tuple, dict, set, frozenset)
_ADDR = re.compile(r" at 0x[0-9A-Fa-f]+")


def _repr_text(v, values, limit):
    """``repr(v)`` as Python prints it, at most `limit` characters: the program's own
    ``__repr__`` runs, for the items of a list, tuple, dict or set too (``[x, x]``, not the
    attributes of two Symbols). A string, bytes or number is ``values``' bounded repr (its length
    said when cut, as a list's, tuple's, dict's or set's is); an object's address reads ``0x…`` as everywhere in adi; a repr that raised
    reads ``<repr failed: TYPE>``."""
    if type(v) in _PLAIN:
        return values.render_repr(v)
    try:
        r = repr(v)
    except Exception as exc:
        return "<repr failed: %s>" % exc_type_name(type(exc))
    if type(r) is not str:
        return "<repr failed: TypeError>"
    if " at 0x" in r:
        r = _ADDR.sub(" at 0x\u2026", r[: limit * 4 + 64])
    if len(r) <= limit:
        return r
    if type(v) in _SIZED:
        return r[:limit] + "... (len=%d)" % len(v)
    return r[:limit] + "..."


def _write_back(frame):
    """Copy the frame's locals dict back into its fast locals (not needed from 3.13 on)."""
    if sys.version_info >= (3, 13):
        return
    try:
        import ctypes
        ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))
    except Exception:  # no ctypes: a debugger's trace trampoline syncs the dict back itself
        pass


class _Alarm:
    """A SIGALRM timer that raises _TimedOut into the code after `limit` seconds (main thread)."""

    def __init__(self, limit):
        self.on = (limit > 0 and hasattr(signal, "setitimer")
                   and threading.current_thread() is threading.main_thread())
        if not self.on:
            return

        def expire(signum, frame):
            raise _TimedOut()
        self.handler = signal.signal(signal.SIGALRM, expire)
        self.timer = signal.setitimer(signal.ITIMER_REAL, limit)
        self.since = time.monotonic()

    def cancel(self):
        if not self.on:
            return
        self.on = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.handler)
        delay, interval = self.timer
        if delay > 0:  # the program's own alarm goes on, less the time spent here
            signal.setitimer(signal.ITIMER_REAL, max(delay - (time.monotonic() - self.since), 0.001), interval)


def _exception(exc):
    """{"type", "message", "line"} of an exception the code raised."""
    if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
        message = exc.msg or ""
    else:
        message = exc_message(exc, VALUE_LIMIT)
    return {"type": exc_type_name(type(exc)), "message": message, "line": _line_in_code(exc)}


def _line_in_code(exc):
    """The line of the code where `exc` was raised (0 when not inside it)."""
    if isinstance(exc, SyntaxError) and exc.filename == FILENAME:
        return exc.lineno or 0
    for entry in reversed(traceback.extract_tb(exc.__traceback__)):
        if entry.filename == FILENAME:
            return entry.lineno
    return 0


def _statement_line(lineno):
    text = linecache.getline(FILENAME, lineno).strip()
    return "statement line %d" % lineno + (": " + text if text else "")


def _traceback(exc):
    """The traceback of exc from the first frame of the code on."""
    entries = traceback.extract_tb(exc.__traceback__)
    for i, e in enumerate(entries):
        if e.filename == FILENAME:
            entries = entries[i:]
            break
    else:
        return []
    lines = []
    for e in entries:
        if e.filename == FILENAME:
            lines.append(_statement_line(e.lineno))
        else:
            lines.append("%s:%d in %s" % (e.filename, e.lineno, e.name) + (": " + e.line.strip() if e.line else ""))
    return lines


def _short(text, limit):
    if len(text) <= limit:
        return text
    return text[: limit // 2] + "\n[... %d characters cut ...]\n" % (len(text) - limit) + text[-limit // 2:]
