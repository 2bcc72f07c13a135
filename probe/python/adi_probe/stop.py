"""Stopping a run when the bridge asks: SIGTERM, sent when the run's time is up.

The bridge sends SIGTERM to the probe's process (not its group) when a run reaches its
wall-clock limit, waits a short grace, then SIGKILLs the process group. The probe's handler
ends the run as an exit would, but at once: it stops recording, writes the queued records,
closes the FLTs still being recorded as "unfinished", writes result.json with
``"stopped": "timeout"`` and exits with status 143 (128 + SIGTERM, what a SIGTERM death
reports), without running the target's ``finally`` blocks or atexit handlers, as SIGTERM's
default action would not either. What the target printed so far is flushed first.

The handler is installed so that the target cannot tell (PROTOCOL.md, "Stopping a run"):
- only when SIGTERM has its default disposition (an inherited SIG_IGN is left alone);
- ``signal.getsignal(SIGTERM)`` reports ``SIG_DFL`` while it is installed, and
  ``signal.signal(SIGTERM, ...)`` returns ``SIG_DFL`` for it;
- a handler the target installs replaces it (the probe does not fight it; the bridge's SIGKILL
  then ends the run if the target's handler does not), and the target restoring ``SIG_DFL``
  puts the probe's back;
- a forked child gets SIGTERM's default disposition back (``os.register_at_fork``); exec
  resets it anyway.

The handler runs in the main thread between two bytecodes. When that thread was interrupted
outside the probe's own code it ends the run right there: the main thread then holds none of
the probe's locks and makes no more calls, so what is written is exactly what ran. When it was
inside the probe (a hook, which may hold a lock the end needs), a new thread ends the run while
the handler waits for it (``HOLD``), so the main thread still makes no more calls; only if the
end needs a lock the main thread holds does the wait time out, the main thread goes on and
releases it, and the new thread ends the run a moment later; the main thread's hooks are
removed first (a hook is per thread, so the new thread's engine.stop() cannot), so the calls it
makes meanwhile are not recorded, and T is exact up to the stop.

A SIGTERM that arrives just before the main thread blocks (a sleep, a read) is noted by python
and acted on only when that call returns: the hooks' own work makes the window between a
signal's arrival and the next bytecode wide enough to matter. So the bridge sends SIGTERM again
every 200 ms of its grace (a later one interrupts the blocked call), and the handler ignores the
repeats once the run is stopping.
"""

import _thread
import os
import signal
import sys

from . import compat
from .usercode import PROBE_DIR, RUN_SCRIPT

STOPPED_TIMEOUT = "timeout"
STOP_EXIT = 128 + signal.SIGTERM
HOLD = 1.0  # seconds the main thread, stopped inside the probe, waits for the end

_real_exit = os._exit  # before runner patches it
_real_signal = signal.signal
_real_getsignal = signal.getsignal


class Stopper:
    """The SIGTERM handler of one run (see the module docstring)."""

    def __init__(self, run):
        self.run = run
        self.pid = os.getpid()
        self.installed = False
        self.stopping = False
        self._handler = self._handle  # one bound method, so that `is` recognises it

    def install(self):
        """Install the handler if SIGTERM has its default disposition; patch signal to hide it."""
        try:
            if _real_getsignal(signal.SIGTERM) is not signal.SIG_DFL:
                return
            _real_signal(signal.SIGTERM, self._handler)
        except (ValueError, OSError, RuntimeError):  # not the main thread, or no such signal
            return
        self.installed = True
        signal.signal = self._signal
        signal.getsignal = self._getsignal
        compat.register_at_fork(after_in_child=self._forked)

    # -- what the target sees ----------------------------------------------------------------

    def _signal(self, signalnum, handler):
        if signalnum != signal.SIGTERM or os.getpid() != self.pid:
            return _real_signal(signalnum, handler)
        if handler is signal.SIG_DFL:
            handler = self._handler  # the default, as far as the target can tell
        old = _real_signal(signalnum, handler)
        return signal.SIG_DFL if old is self._handler else old

    def _getsignal(self, signalnum):
        h = _real_getsignal(signalnum)
        return signal.SIG_DFL if h is self._handler else h

    _signal.__doc__ = _real_signal.__doc__
    _getsignal.__doc__ = _real_getsignal.__doc__

    def _forked(self):
        """In a forked child: SIGTERM's default disposition, as python would have left it."""
        try:
            if _real_getsignal(signal.SIGTERM) is self._handler:
                _real_signal(signal.SIGTERM, signal.SIG_DFL)
        except (ValueError, OSError, RuntimeError):
            pass

    # -- stopping ----------------------------------------------------------------------------

    def _handle(self, signum, frame):
        if os.getpid() != self.pid:
            # a forked child that could not restore the default: die as SIGTERM would kill it
            _real_exit(STOP_EXIT)
        if self.stopping:
            return
        self.stopping = True
        if not _in_probe(frame):
            self._stop()
            return
        done = _thread.allocate_lock()
        done.acquire()
        try:
            _thread.start_new_thread(self._stop, (done,))
        except RuntimeError:  # no new thread at interpreter shutdown: the run is ending anyway
            return
        # the main thread makes no calls while it waits here; if it holds a lock the end needs,
        # it goes on after the wait (and releases it) while the new thread ends the run, and
        # records none of the calls it makes meanwhile (the recording stays exact up to here)
        if not done.acquire(timeout=HOLD):
            self.run.silence()

    def _stop(self, done=None):
        """End the run as stopped and exit; a run already ending on its own is left to end."""
        mine = True
        try:
            mine = self.run.finalize(stopped=STOPPED_TIMEOUT)
        finally:
            if mine:
                for stream in (sys.stdout, sys.stderr):
                    try:
                        stream.flush()
                    except Exception:
                        pass
                _real_exit(STOP_EXIT)
            if done is not None:
                done.release()


def _in_probe(frame):
    """Whether the main thread was interrupted inside the probe's own code.

    The probe's frames at the bottom of the stack (the entry script, the runner, the frame that
    runs the target) do not count; a probe frame above a frame of the target's does (a hook),
    and so does a stack of probe frames only (before the target starts or as the run ends).
    """
    if frame is None:
        return True
    probe = []
    while frame is not None:
        fname = frame.f_code.co_filename
        probe.append(fname == RUN_SCRIPT or fname.startswith(PROBE_DIR + os.sep))
        frame = frame.f_back
    while probe and probe[-1]:
        probe.pop()
    return not probe or any(probe)
