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

The statement runs in that frame by the rules of the one evaluator, evaluate.py, which live
interact uses too: REPL-like parsing (a final expression's value, None not shown), the frame's
namespace with write-back (module globals by the debugger console's rule), bounded value and
output, an exception with its line and traceback, the names it changed. The result goes to
``exec.json`` in the run's output directory: ``{"output": str, "value": str or null,
"exception": {"type", "message", "line"} or null, "traceback": [str], "changed": [[name,
repr]]}``.
"""

import _thread
import os
import sys
import threading
import time

from . import debugger, evaluate
from . import stepper as stepper_mod
from .output import write_json
from .recorder import E_FRAME, E_INFO, E_N, E_STEP
from .usercode import PROBE_DIR, RUN_SCRIPT

RESULT_FILE = "exec.json"
STARTED_FILE = "exec.started"


def run(stmt):
    """Run `stmt` in the stopped frame and write exec.json; returns "ok"."""
    active = debugger.current_run()
    if active is None:
        raise RuntimeError("adi: the probe is not recording this process")
    frame = debugger.stopped_frame() or sys._getframe(1)
    result = _execute(stmt, frame)
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
        result = _execute(stop.exec, frame)
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
        result = {"output": "", "value": None, "exception": None, "traceback": [], "changed": [],
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


def _execute(stmt, frame):
    """Run `stmt` in `frame` with the one evaluator (evaluate.py); exec.json's fields."""
    result = evaluate.evaluate(stmt, frame)
    del result["timed_out"]  # exec's time limit is the watchdog's (or the bridge's under debugpy)
    return result
