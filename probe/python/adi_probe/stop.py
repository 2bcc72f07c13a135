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
releases it, and the new thread ends the run a moment later (calls made meanwhile may be
missing from T, which the bridge then reads as partial).

The handler alone would lose a SIGTERM that arrives just before the main thread blocks (the
signal is noted, but the blocking call began after it and nothing interrupts it; the hooks make
that window wide): the signal module writes every signal's number to a wakeup pipe, and a
watcher thread that reads it ends the run itself when the main thread has not taken the signal
within ``GRACE``. The target does not see the pipe: ``signal.set_wakeup_fd`` reports -1 for it,
a wakeup fd the target sets replaces it (its own loop is then woken by the signal) and setting
-1 puts it back; a forked child loses it.
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
GRACE = 0.05  # seconds the watcher leaves the main thread to take SIGTERM itself

_real_exit = os._exit  # before runner patches it
_real_signal = signal.signal
_real_getsignal = signal.getsignal
_real_set_wakeup_fd = signal.set_wakeup_fd


class Stopper:
    """The SIGTERM handler of one run (see the module docstring)."""

    def __init__(self, run):
        self.run = run
        self.pid = os.getpid()
        self.installed = False
        self._claim = _thread.allocate_lock()  # held by whoever ends the run
        self._ended = _thread.allocate_lock()  # released when an end that did not exit is over
        self._ended.acquire()
        self._wakeup = None  # (read end, write end) of the watcher's pipe
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
        self._start_watcher()

    def _start_watcher(self):
        try:
            r, w = os.pipe()
        except OSError:
            return
        try:
            os.set_blocking(w, False)
            if _set_wakeup(w) != -1:  # cannot happen before the target runs; leave it be
                _set_wakeup(-1)
                raise OSError
            _thread.start_new_thread(self._watch, (r,))
        except (ValueError, OSError, RuntimeError):
            _set_wakeup(-1)
            os.close(r)
            os.close(w)
            return
        self._wakeup = (r, w)
        signal.set_wakeup_fd = self._set_wakeup_fd

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

    def _set_wakeup_fd(self, fd, **kw):
        mine = self._wakeup[1]
        old = _real_set_wakeup_fd(fd, **kw)
        if fd == -1:
            _set_wakeup(mine)
        return -1 if old == mine else old

    _signal.__doc__ = _real_signal.__doc__
    _getsignal.__doc__ = _real_getsignal.__doc__
    _set_wakeup_fd.__doc__ = _real_set_wakeup_fd.__doc__

    def _forked(self):
        """In a forked child: SIGTERM's default disposition and no wakeup pipe, as python would
        have left them (the watcher thread is not in the child)."""
        try:
            if _real_getsignal(signal.SIGTERM) is self._handler:
                _real_signal(signal.SIGTERM, signal.SIG_DFL)
            if self._wakeup is not None:
                old = _real_set_wakeup_fd(-1)
                if old != self._wakeup[1]:
                    _real_set_wakeup_fd(old)
                signal.set_wakeup_fd = _real_set_wakeup_fd
                for fd in self._wakeup:
                    os.close(fd)
                self._wakeup = None
        except (ValueError, OSError, RuntimeError):
            pass

    # -- stopping ----------------------------------------------------------------------------

    def _handle(self, signum, frame):
        if os.getpid() != self.pid:
            # a forked child that could not restore the default: die as SIGTERM would kill it
            _real_exit(STOP_EXIT)
        if self._claim.acquire(False):
            if not _in_probe(frame):
                self._stop()
                return
            try:
                _thread.start_new_thread(self._stop, ())
            except RuntimeError:  # no new thread at interpreter shutdown: the run is ending anyway
                return
        # another thread ends the run: the main thread makes no calls while it waits here; if
        # it holds a lock the end needs, it goes on after the wait (and releases it)
        self._ended.acquire(timeout=HOLD)

    def _watch(self, r):
        """The watcher thread: end the run on SIGTERM if the main thread does not take it."""
        while True:
            try:
                data = os.read(r, 64)
            except OSError:
                return
            if not data:
                return
            if signal.SIGTERM not in data or _real_getsignal(signal.SIGTERM) is not self._handler:
                continue  # another signal, or SIGTERM to a handler of the target's
            nap = _thread.allocate_lock()
            nap.acquire()
            nap.acquire(timeout=GRACE)
            if self._claim.acquire(False):
                self._stop()
            return

    def _stop(self):
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
            self._ended.release()


def _set_wakeup(fd):
    """Set the wakeup fd without a warning when its pipe is full (the watcher reads SIGTERM
    only; other signals' bytes may fill it while it waits)."""
    try:
        return _real_set_wakeup_fd(fd, warn_on_full_buffer=False)
    except TypeError:  # 3.6
        return _real_set_wakeup_fd(fd)


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
