"""The ``execute`` command: run a statement inside a frame of a re-run, two ways, one evaluator.

- ``run(stmt)``: evaluated through debugpy in the frame a stop (``adi_probe.hit``) paused; the
  bridge uses it for ``exec --then-continue``, where the program then goes on.
- ``arm(run)``: a `stops` entry with an ``exec`` statement is handled by the probe alone (no
  debugger): when the stepper of invocation ``func#index`` starts its ``visit``-th step at
  ``line`` (the count ``hit`` uses), the statement runs right there, exec.json is written, the
  result is marked ``"stopped": "exec"`` and the process ends at once (``os._exit(0)``, which
  writes result.json first): exec is read-only, so the rest of the program need not run. Just
  before the statement runs, ``exec.started`` is created in the output directory (the bridge's
  statement clock starts then). A stop with a ``timeout`` (seconds) ends a statement that runs
  longer the same way: exec.json then has ``"timeout": {"seconds", "file", "line", "func"}``,
  where the thread running the statement was (its innermost frame outside the probe; the
  statement itself is the file ``<adi exec>``).

The statement runs in that frame, with its globals and its locals: an assignment changes the
frame (so ``exec --then-continue`` can test a fix hypothesis in this re-run; the recorded
session is not affected). Locals are written back through ``PyFrame_LocalsToFast`` before
3.13 and through the write-through ``f_locals`` proxy from 3.13 on. What the statement prints
(stdout and stderr) is captured; an expression's value is reported as a bounded repr. The
result goes to ``exec.json`` in the run's output directory: ``{"output": str, "value": str or
null, "exception": {"type", "message", "line"} or null}`` (``line`` counts within the
statement). Calls the statement makes are not recorded: it runs inside the debugger's trace
function, or the probe's own event handler, where the interpreter reports no events.

A statement with a nested scope (a comprehension, generator expression, lambda or ``def``)
runs with one namespace, the frame's globals updated with its locals, as pdb and debugpy do:
run with separate globals and locals, a nested scope would not see the frame's locals
(``[qty * i for i in range(3)]`` would raise NameError). The names the statement binds or
rebinds are then written to the frame's locals, those it deletes are deleted there.
"""

import _thread
import io
import os
import sys
import threading
import time
import traceback
import types

from . import debugger
from . import stepper as stepper_mod
from .output import write_json
from .recorder import E_FRAME, E_INFO, E_N, E_STEP
from .stepper import exc_message, exc_type_name
from .usercode import PROBE_DIR, RUN_SCRIPT

RESULT_FILE = "exec.json"
STARTED_FILE = "exec.started"
STATEMENT = "<adi exec>"  # the file name the statement's code runs as


def run(stmt):
    """Run `stmt` in the stopped frame and write exec.json; returns "ok"."""
    active = debugger.current_run()
    if active is None:
        raise RuntimeError("adi: the probe is not recording this process")
    frame = debugger.stopped_frame() or sys._getframe(1)
    result = _execute(stmt, frame, active.values)
    write_json(os.path.join(active.cfg.out, RESULT_FILE), result)
    return "ok"


def arm(run):
    """Make the run's steppers stop at its `stops` entries that carry an ``exec`` statement."""
    by_line = {}
    for stop in run.cfg.stops.values():
        if stop.exec is not None:
            by_line.setdefault(stop.line, []).append(stop)
    if not by_line:
        return
    once = threading.Lock()

    def at_step(st, key):
        """A step starts at statement `key` (called by the stepper); never raises."""
        stops = by_line.get(key)
        if stops is None:
            return
        try:
            count = st.visits.get(key, 0)
            for stop in stops:
                if stop.visit != count:
                    continue
                e = _entry_of(run.rec, st)
                if e is not None and e[E_INFO].func == stop.func and e[E_N] == stop.index:
                    once.acquire()  # another thread stopping too waits here for the end
                    _stop_here(run, stop, e[E_FRAME])
        except Exception as exc:
            run.rec.internal_error("running the exec statement", exc)

    stepper_mod.stop_hook = at_step


def _entry_of(rec, st):
    """The recorder's stack entry (this thread's, or a suspended generator's) stepped by `st`."""
    ts = rec.threads.get(threading.get_ident())
    if ts is not None:
        for e in reversed(ts.stack):
            if e[E_STEP] is st:
                return e
    for e in list(rec.live_gens.values()):
        if e[E_STEP] is st:
            return e
    return None


def _stop_here(run, stop, frame):
    """Run the stop's statement in `frame`, write exec.json and end the process.

    With a timeout, a watchdog thread ends the run instead when the statement runs longer;
    `gate` makes exactly one of the two write exec.json.
    """
    gate = _thread.allocate_lock()
    try:
        try:
            open(os.path.join(run.cfg.out, STARTED_FILE), "w").close()
        except OSError:
            pass
        if stop.timeout > 0:
            _thread.start_new_thread(_watch, (run, stop, gate, threading.get_ident()))
        result = _execute(stop.exec, frame, run.values)
        if not gate.acquire(False):
            while True:  # the watchdog is ending the run; this thread makes no more calls
                time.sleep(1.0)
        write_json(os.path.join(run.cfg.out, RESULT_FILE), result)
        _flush()
    finally:
        run.stopped = "exec"
        os._exit(0)  # the probe's os._exit: stops recording and writes result.json first


def _watch(run, stop, gate, ident):
    """Wait stop.timeout seconds; if the statement still runs then, write where and end the run."""
    time.sleep(stop.timeout)
    if not gate.acquire(False):
        return  # the statement finished; its thread is ending the run
    try:
        result = {"output": "", "value": None, "exception": None,
                  "timeout": dict(_where(ident), seconds=stop.timeout)}
        write_json(os.path.join(run.cfg.out, RESULT_FILE), result)
        _flush()
    except Exception as exc:
        run.rec.internal_error("stopping the exec statement at its time limit", exc)
    finally:
        run.stopped = "exec"
        os._exit(0)


def _flush():
    """Flush the target's streams: what it printed so far stays in the run's output."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def _where(ident):
    """Where thread `ident` is: its innermost frame outside the probe, as file, line and func."""
    frame = sys._current_frames().get(ident)
    while frame is not None:
        fname = frame.f_code.co_filename
        if fname != RUN_SCRIPT and not fname.startswith(PROBE_DIR + os.sep):
            return {"file": fname, "line": frame.f_lineno or 0, "func": frame.f_code.co_name}
        frame = frame.f_back
    return {"file": "", "line": 0, "func": ""}


def _execute(stmt, frame, values):
    """Run `stmt` with the frame's globals and locals; never raises."""
    scope = frame.f_locals  # the frame's locals dict (a write-through proxy on 3.13+)
    buf = io.StringIO()
    saved = sys.stdout, sys.stderr
    value = exception = None
    sys.stdout = sys.stderr = buf
    try:
        try:
            code = compile(stmt, STATEMENT, "eval")
        except SyntaxError:
            code = compile(stmt, STATEMENT, "exec")
            _run(exec, code, frame.f_globals, scope)
        else:
            value = values.render_repr(_run(eval, code, frame.f_globals, scope))
    except BaseException as exc:  # the statement's own error (also SystemExit): report it
        exception = {"type": exc_type_name(type(exc)), "message": exc_message(exc, values.limit),
                     "line": _line_in_statement(exc)}
    finally:
        sys.stdout, sys.stderr = saved
        _write_back(frame)
    return {"output": buf.getvalue(), "value": value, "exception": exception}


def _run(how, code, globs, scope):
    """``how(code, globs, scope)`` (eval or exec); a code with a nested scope runs with one
    namespace merged from both, and what it binds goes back to `scope` (see the module
    docstring)."""
    if scope is globs or not any(type(c) is types.CodeType for c in code.co_consts):
        return how(code, globs, scope)
    ns = dict(globs)
    ns.update(scope)
    before = dict(ns)
    try:
        return how(code, ns)
    finally:
        for name, v in ns.items():
            if before.get(name, _UNBOUND) is not v:
                scope[name] = v
        for name in before:
            if name not in ns and name in scope:
                try:
                    del scope[name]
                except Exception:
                    pass


_UNBOUND = object()


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
    if isinstance(exc, SyntaxError) and exc.filename == STATEMENT:
        return exc.lineno or 0
    for entry in reversed(traceback.extract_tb(exc.__traceback__)):
        if entry.filename == STATEMENT:
            return entry.lineno
    return 0
