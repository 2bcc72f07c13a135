"""The recursion limit as the target sees it (issue 13).

Under plain python a program's first frame is at depth 1 (``python -m``: 3, under runpy's two
frames); under the probe, the probe's own frames sit below it, and the recorder's hooks run on
top of the frame they record. So that the program reaches the same depth and gets the same
``RecursionError`` as under plain python, and the hooks never fail at the limit (a trace or
profile function that raises is removed by CPython, which ended the recording):

- the real limit is the target's limit plus ``base`` (the probe's frames below the program)
  plus ``HEADROOM`` (for the hooks); ``sys.getrecursionlimit``/``sys.setrecursionlimit`` are
  patched so that the program sees and sets its own limit;
- a call hook whose thread's stack of recorded frames is deeper than ``zone`` (half the limit;
  ``Recorder.depth_zone``: one comparison per call below it) measures the new frame's depth
  (``check``: a walk to the nearest recorded frame whose depth is known) and raises
  ``RecursionError("maximum recursion depth exceeded")`` for a frame plain python would not
  have started;
- the hook that raised is removed by CPython on 3.8-3.11 (settrace and setprofile): it is put
  back at the next event of the thread (``_rearm``): a one-shot ``sys.setprofile`` watchdog
  (trace mode), or the caller's local trace function (profile mode). ``sys.monitoring`` keeps
  its callbacks.

A recursion whose frames are mostly not the user's (a library wrapper between every two user
frames) may pass the zone unmeasured: it then goes up to HEADROOM frames deeper than under
plain python, and the hook that fails there is removed as before.
"""

import sys
import threading

HEADROOM = 60
E_FRAME = 0
E_DEPTH = 12  # appended to a stack entry whose depth was measured


def _depth(frame):
    d = 0
    while frame is not None:
        d += 1
        frame = frame.f_back
    return d


# the first frame python refuses is at depth limit + 1 (the main module's frame is at depth 1), the
# same on 3.8-3.13 (measured); a measurement at start-up would run under a debugger's tracer,
# which the interpreter removes when it fails at the low limit
FIRST_REFUSED = 1


class RecursionGuard:
    """See the module docstring."""

    def __init__(self, rec):
        self.rec = rec
        self.base = 0
        self.main = None
        self.limit = sys.getrecursionlimit()
        self.off = FIRST_REFUSED
        self.fail = self.limit + self.off
        self._real_get = self._real_set = None
        self.rearm_trace = None  # TraceEngine: (hooks) -> None, reinstalls the global trace function

    def install(self, base):
        """Before the target runs: `base` is how many more frames the probe put below it."""
        self.base = base
        self.main = threading.get_ident()
        self._real_get = sys.getrecursionlimit
        self._real_set = sys.setrecursionlimit
        self.limit = self._real_get()
        sys.getrecursionlimit = self.getrecursionlimit
        sys.setrecursionlimit = self.setrecursionlimit
        self._apply()

    def uninstall(self):
        if self._real_set is not None:
            sys.getrecursionlimit = self._real_get
            sys.setrecursionlimit = self._real_set
            try:
                self._real_set(self.limit)
            except Exception:
                pass
            self._real_set = None

    def _apply(self):
        self._real_set(self.limit + self.base + HEADROOM)
        self.fail = self.limit + self.off
        self.rec.depth_zone[0] = self.fail // 2

    def getrecursionlimit(self):
        """sys.getrecursionlimit as the target sees it."""
        return self.limit

    def setrecursionlimit(self, limit):
        """sys.setrecursionlimit as the target sees it (errors as python's own)."""
        if type(limit) is not int or limit < 1:
            self._real_set(limit)  # raises TypeError / ValueError as python would
        old = self.limit
        self.limit = limit
        try:
            self._apply()
        except RecursionError:
            self.limit = old
            raise RecursionError("cannot set the recursion limit to %d at the recursion depth %d: "
                                 "the limit is too low" % (limit, _depth(sys._getframe(1)) - self.base)) from None

    def check(self, frame, hooks):
        """A call hook near the limit: the exception to raise for `frame`, or None."""
        stack = hooks.ts.stack
        last = hooks.last
        if last is not None and stack:
            top = stack[-1]
            if top[E_FRAME] is last[0] and len(top) == E_DEPTH:
                top.append(last[1])
        anchor = None
        for e in reversed(stack[-8:]):
            if len(e) > E_DEPTH:
                anchor = e
                break
        target = anchor[E_FRAME] if anchor is not None else None
        f = frame
        k = 0
        while f is not None and f is not target:
            k += 1
            f = f.f_back
        d = k + anchor[E_DEPTH] if f is not None else k
        hooks.last = (frame, d)
        if threading.get_ident() == self.main:
            d -= self.base
        if d < self.fail:
            return None
        exc = RecursionError("maximum recursion depth exceeded")
        self.rec.check_frames = True
        self._rearm(hooks, exc)
        return exc

    def _rearm(self, hooks, exc):
        """Put back the hook CPython removes when it raises (3.8-3.11; see the module docstring)."""
        mode = hooks.mode[0]
        stack = hooks.ts.stack
        if mode == "trace" and self.rearm_trace is not None:
            old = sys.getprofile()
            rearm_trace = self.rearm_trace

            def watchdog(frame, event, arg):
                sys.setprofile(old)
                rearm_trace(hooks)
                if event == "return":
                    if stack and stack[-1][E_FRAME] is frame:
                        stack[-1][4] = exc  # E_EXC: its 'exception' event was not seen
                        hooks.local(frame, "return", arg)
                elif event == "call":
                    result = hooks.call(frame, event, arg)
                    if result is not None:
                        frame.f_trace = result
                if old is not None:
                    old(frame, event, arg)

            sys.setprofile(watchdog)
        elif mode == "profile" and stack:
            caller = stack[-1][E_FRAME]
            ours = caller.f_trace
            if ours is None:
                return

            def rearm_local(frame, event, arg):
                frame.f_trace = ours
                if sys.getprofile() is None:
                    sys.setprofile(hooks.profile)
                return ours(frame, event, arg)

            caller.f_trace = rearm_local
