"""Functions the bridge calls inside the debuggee through DAP (PROTOCOL.md, "Functions for
the debugger").

- ``hit(stop_id)``: a line-breakpoint condition. True exactly when the innermost user frame
  of the current thread is invocation ``stops[stop_id].func#index`` and this is its
  ``visit``-th arrival at ``line``; that frame is then remembered as the stopped frame
  (``stopped_frame()``). Arrivals are counted the way the FLT counts steps: the recorder
  steps every invocation a stop names, and a debugger evaluates the condition at every line
  event of the line (a multi-line statement, a comprehension on 3.12+ or a loop on one line
  give several per step), so ``hit`` counts the stepper's steps at that line, not the calls.
- ``pydevd_debugger()``: pydevd's debugger when the process runs under it (debugpy), else None.
"""

import sys
import threading

from .recorder import E_FRAME, E_INFO, E_N, E_STEP

_run = None          # the active runner.Run (set by runner.Run.start)
_stopped = None      # (stop id, frame) of the last stop that hit


def set_run(run):
    """Make `run` the run the debugger functions look at (and arm its in-process exec stops)."""
    global _run
    _run = run
    if run is not None and any(s.exec is not None for s in run.cfg.stops.values()):
        from . import execute  # (execute imports this module)
        execute.arm(run)


def current_run():
    """The active runner.Run (None outside a recording)."""
    return _run


def hit(stop_id):
    """True when this arrival at the stop's line is the one the stop asks for."""
    global _stopped
    run = _run
    if run is None:
        return False
    stop = run.cfg.stops.get(stop_id)
    if stop is None:
        return False
    ts = run.rec.threads.get(threading.get_ident())
    if ts is None or not ts.stack:
        return False
    e = ts.stack[-1]
    frame = e[E_FRAME]
    if e[E_INFO].func != stop.func or e[E_N] != stop.index:
        return False
    st = e[E_STEP]
    if st is not None and not st.failed:
        count = st.visits_at(frame, stop.line)
        if count is None or count == stop.arrivals:
            return False  # not this line, or another line event of a step already counted
        stop.arrivals = count
    else:  # not stepped (it diverged): count the line events
        if frame.f_lineno != stop.line:
            return False
        stop.arrivals += 1
    if stop.arrivals != stop.visit:
        return False
    _stopped = (stop_id, frame)
    return True


def stopped_frame():
    """The frame of the last stop that hit (None before any)."""
    return _stopped[1] if _stopped is not None else None


def pydevd_debugger():
    """pydevd's debugger when the process runs under it (debugpy's), else None."""
    mod = sys.modules.get("pydevd")
    try:
        return mod.get_global_debugger() if mod is not None else None
    except Exception:
        return None
