"""Helpers the DAP proxy evaluates in a thread an editor (VS Code) paused, through debugpy.

- ``stop()``: the invocation (idx in T, as in calls.bin) of the innermost user frame of the
  current thread, or -1 when it runs no user code; the records written so far are flushed
  first, so that T already holds that invocation when the proxy re-reads it.
- ``flush()``: write every record queued so far; returns the bytes written in all.

Both return ints (the proxy reads the evaluate result as one) and never raise.

The first ``stop()`` of a run also starts a flusher thread that flushes every ``FLUSH_EVERY``
seconds, so readers see T grow while the editor lets the program run. Under pydevd it is started
the way pydevd starts its own threads (never traced, listed or suspended by the debugger); it
runs no user code, so it records nothing.
"""

import sys
import threading
import time

from . import debugger
from .recorder import E_IDX

FLUSH_EVERY = 0.5  # seconds between the flusher's flushes
_flusher = None


def stop():
    """idx of the invocation the current thread is paused in (-1: none); flushes first."""
    run = debugger.current_run()
    if run is None:
        return -1
    flush()
    _start_flusher(run)
    ts = run.rec.threads.get(threading.get_ident())
    if ts is None or not ts.stack:
        return -1
    return ts.stack[-1][E_IDX]


def flush():
    """Write the queued records; returns the number of bytes written so far."""
    run = debugger.current_run()
    if run is None:
        return 0
    run.rec.flush()
    return run.out.bytes


def _start_flusher(run):
    """Start the flusher thread, once per process."""
    global _flusher
    if _flusher is not None:
        return
    try:
        py_db = debugger.pydevd_debugger()
        if py_db is not None:
            from _pydevd_bundle.pydevd_daemon_thread import run_as_pydevd_daemon_thread
            _flusher = run_as_pydevd_daemon_thread(py_db, _flush_loop, run)
        else:
            _flusher = threading.Thread(target=_flush_loop, args=(run,), name="adi-probe-flush", daemon=True)
            _flusher.start()
    except Exception:
        pass


def _flush_loop(run):
    me = threading.current_thread()
    while not run.finished and not run.out.closed and not getattr(me, "_kill_received", False):
        time.sleep(FLUSH_EVERY)
        try:
            run.rec.flush()
        except Exception:
            pass
