"""Engines: how interpreter events reach the recorder's hooks.

- ``TraceEngine`` (default on 3.8-3.11 when no debugger traces the process): the global
  ``sys.settrace`` function records calls and returns a local trace function for user frames
  (``f_trace_lines = False`` unless the frame is being stepped), which receives the frame's
  'return', 'exception' and, for stepped frames, 'line' events. Non-user frames cost one call
  per frame and C calls cost nothing. If the target later installs its own trace function
  (``sys.settrace``), the probe does not fight it: that thread switches to the profile hook
  and the target's function is installed as asked (``sys.settrace(None)`` installs a no-op
  global function instead, which frame-level tracers need). ``sys.gettrace`` does not show
  the probe's own functions, so the target sees what it would see under plain python.
- ``ProfileEngine`` (default on 3.8-3.11 under a debugger such as pydevd, which owns
  ``sys.settrace``): calls and returns come from ``sys.setprofile``; exceptions and line
  events from a local trace function set on each user frame, wrapping the debugger's one
  when it traces the frame (``recorder.Chain``), so its breakpoints still work. Frame-level
  trace functions need a global trace function: the debugger's, or (when this engine is forced
  without a debugger) a no-op one installed here, also when the target calls
  ``sys.settrace(None)``; ``sys.gettrace`` then hides it. Under a debugger, ``sys.settrace``
  is left alone.
- ``MonitoringEngine`` (default on 3.12+): ``sys.monitoring`` events PY_START, PY_RESUME,
  PY_RETURN, PY_YIELD, PY_UNWIND, PY_THROW (non-user code objects are DISABLEd after their
  first event), plus LINE/JUMP on the code objects being stepped and RAISE while any frame is
  being stepped, and CALL as a local event of every user code object: a call of a user
  generator or coroutine function numbers that invocation at its creation (``hooks.made``;
  its first PY_START claims the number), and any other call site returns DISABLE after its
  first call, so an ordinary call costs nothing more. It never touches ``sys.settrace``, so
  it coexists with any debugger.

All engines produce the same records; ``ADI_PROBE_ENGINE`` (auto, trace, profile, monitoring)
forces one, e.g. to compare them in tests.
"""

import os
import sys
import threading

from .output import RAW_TYPES
from .recorder import (_GEN_FLAGS, BARE, BARE_FP, E_ARGS, E_CALLER, E_FP, E_FRAME, E_IDX, E_INFO, E_LINE, E_STATE,
                       E_STEP, MONITOR, PROFILE, TRACE, _NO_ARG, arg_key)


class EngineError(Exception):
    """The requested engine cannot run here (message: one line for the user)."""


_id = id


def _noop_trace(frame, event, arg):
    """A global trace function that traces nothing (lets frame-level tracers run)."""
    return None


class TraceEngine:
    """See the module docstring."""

    name = "trace"

    def __init__(self, rec):
        self.rec = rec
        self._real_settrace = sys.settrace
        self._real_thread_settrace = threading.settrace
        self._foreign_thread_trace = None
        self._boot = self._boot  # one bound method, so that `is` recognises it

    def start(self):
        hooks = self.rec.thread_hooks(self.rec.thread_state(), TRACE)
        self._real_gettrace = sys.gettrace
        self._real_thread_settrace(self._boot)
        sys.settrace = self._settrace
        sys.gettrace = self._gettrace
        threading.settrace = self._thread_settrace
        if self.rec.guard is not None:  # (depth.py: put back after a RecursionError it raised)
            self.rec.guard.rearm_trace = self._rearm
        if hasattr(threading, "gettrace"):  # 3.10+
            self._real_thread_gettrace = threading.gettrace
            threading.gettrace = self._thread_gettrace
        self._real_settrace(hooks.call)

    def _rearm(self, hooks):
        if hooks.mode[0] is TRACE:
            self._real_settrace(hooks.call)

    def _boot(self, frame, event, arg):
        """First event of a new thread: give it its own hooks."""
        hooks = self.rec.thread_hooks(self.rec.thread_state(fresh=True), TRACE)
        foreign = self._foreign_thread_trace
        if foreign is None:
            self._real_settrace(hooks.call)
            return hooks.call(frame, event, arg)
        hooks.set_mode(PROFILE)
        sys.setprofile(hooks.profile)
        self._real_settrace(foreign)
        result = foreign(frame, event, arg)
        if result is not None:
            frame.f_trace = result
        hooks.profile(frame, event, arg)  # wraps the frame's tracer
        return frame.f_trace

    def _settrace(self, func):
        """sys.settrace as the target sees it: switch this thread to the profile hook first."""
        ts = self.rec.threads.get(threading.get_ident())
        hooks = ts.hooks if ts is not None else None
        if hooks is not None and func is not hooks.call and func is not self._boot:
            if hooks.mode[0] is TRACE:
                hooks.set_mode(PROFILE)
                sys.setprofile(hooks.profile)
            if func is None:
                func = _noop_trace
        self._real_settrace(func)

    def _gettrace(self):
        """sys.gettrace as the target sees it: None where only the probe traces."""
        func = self._real_gettrace()
        if func is _noop_trace or func is self._boot:
            return None
        ts = self.rec.threads.get(threading.get_ident())
        if ts is not None and ts.hooks is not None and func is ts.hooks.call:
            return None
        return func

    def _thread_settrace(self, func):
        """threading.settrace as the target sees it: new threads get `func` and our profile hook."""
        self._foreign_thread_trace = func

    def _thread_gettrace(self):
        return self._foreign_thread_trace

    def stop(self):
        sys.settrace = self._real_settrace
        sys.gettrace = self._real_gettrace
        threading.settrace = self._real_thread_settrace
        if hasattr(threading, "gettrace"):
            threading.gettrace = self._real_thread_gettrace
        self._real_settrace(None)
        sys.setprofile(None)
        self._real_thread_settrace(None)

    def silence(self):
        """Stop this thread's hooks (stop() from another thread cannot: hooks are per thread)."""
        sys.setprofile(None)
        ts = self.rec.threads.get(threading.get_ident())
        hooks = ts.hooks if ts is not None else None
        func = self._real_gettrace()
        if func is _noop_trace or func is self._boot or (hooks is not None and func is hooks.call):
            self._real_settrace(None)


class ProfileEngine:
    """See the module docstring."""

    name = "profile"

    def __init__(self, rec):
        self.rec = rec
        self._own_trace = False

    def start(self):
        hooks = self.rec.thread_hooks(self.rec.thread_state(), PROFILE)
        self._real_settrace = sys.settrace
        self._real_gettrace = sys.gettrace
        if sys.gettrace() is None:
            # frame-level tracers only run while some global trace function is set
            self._own_trace = True
            threading.settrace(_noop_trace)
            sys.settrace(_noop_trace)
            sys.settrace = self._settrace
            sys.gettrace = self._gettrace
        threading.setprofile(self._boot)
        sys.setprofile(hooks.profile)

    def _settrace(self, func):
        """sys.settrace as the target sees it; None keeps a no-op global trace function."""
        self._real_settrace(_noop_trace if func is None else func)

    def _gettrace(self):
        func = self._real_gettrace()
        return None if func is _noop_trace else func

    def _boot(self, frame, event, arg):
        hooks = self.rec.thread_hooks(self.rec.thread_state(fresh=True), PROFILE)
        sys.setprofile(hooks.profile)
        hooks.profile(frame, event, arg)

    def stop(self):
        sys.setprofile(None)
        threading.setprofile(None)
        if self._own_trace:
            sys.settrace = self._real_settrace
            sys.gettrace = self._real_gettrace
            if sys.gettrace() is _noop_trace:
                sys.settrace(None)
            threading.settrace(None)

    def silence(self):
        """Stop this thread's hooks (stop() from another thread cannot: hooks are per thread)."""
        sys.setprofile(None)
        if self._own_trace and self._real_gettrace() is _noop_trace:
            self._real_settrace(None)


class MonitoringEngine:
    """See the module docstring."""

    name = "monitoring"

    def __init__(self, rec, tool):
        self.rec = rec
        self.tool = tool
        self._stepping = {}   # id(code) -> [code, number of live steppers of that code]
        self._lines = {}      # id(code) -> {offset: line} (codes kept alive by their CodeInfo)
        self._call_codes = []  # user code objects whose CALL events are on
        self._calls = 0

    def start(self):
        mon = sys.monitoring
        ev = mon.events
        rec = self.rec
        DISABLE = mon.DISABLE
        codes_get = rec.codes.get
        classify = rec.classify
        getframe = sys._getframe
        live_gens_get = rec.live_gens.get
        calls_append = rec.out.calls.append
        write_t = not rec.cfg.stops_only  # (config "stops_only": see recorder.thread_hooks)
        big = rec.values.big
        nbig = -big
        raw = RAW_TYPES
        local = threading.local()
        rec.stepper_started = self.stepping_started
        rec.stepper_ended = self.stepping_ended

        set_local = mon.set_local_events
        CALL = ev.CALL
        self._calls = CALL
        call_codes = self._call_codes

        def classify_user(code, frame):
            """classify, and let a user code object's calls report (on_call)."""
            info = classify(code, frame)
            if info:
                call_codes.append(code)
                set_local(tool, code, CALL)
            return info

        MISSING = mon.MISSING
        function = type(_noop_trace)
        method = type(self.start)
        gen_flags = _GEN_FLAGS

        def on_call(code, offset, callee, arg0):
            """A call in user code: a generator or coroutine function's invocation is numbered
            now (``hooks.made``); any other call site is DISABLEd after its first call."""
            t = type(callee)
            if t is function:
                fcode = callee.__code__
            elif t is method and type(callee.__func__) is function:
                fcode = callee.__func__.__code__
                arg0 = callee.__self__
            else:
                return DISABLE
            if not fcode.co_flags & gen_flags:
                return DISABLE
            info = codes_get(_id(fcode))
            if info is None:
                info = classify_user(fcode, _Globals(callee))
            if not info:
                return DISABLE
            try:
                h = local.h
            except AttributeError:
                h = new_thread()
            if arg0 is MISSING:
                key = _NO_ARG
            elif type(arg0) in raw:
                key = (arg0,)  # (not weakly referenceable: arg_key's exception costs a µs)
            else:
                key = arg_key(arg0)
            h.made(getframe(1), info, offset, key)

        def new_thread():
            local.h = h = rec.thread_hooks(rec.thread_state(fresh=True), MONITOR)
            return h

        def on_start(code, offset):
            info = codes_get(_id(code))
            if info is None:
                info = classify_user(code, getframe(1))
            if info is False:
                return DISABLE
            try:
                h = local.h
            except AttributeError:
                h = new_thread()
            h.call(getframe(1), "call", None, info)

        if rec.scope is not None:
            # scoped recording: outside recorded frames, a code object no watch names costs
            # one set lookup (scope.Scope.skip, live)
            skip = rec.scope.skip
            live = rec.scope.live

            def on_start(code, offset):  # (on_start's body, which getframe(1) needs, after one check)
                if _id(code) in skip and not live[0]:
                    return
                info = codes_get(_id(code))
                if info is None:
                    info = classify_user(code, getframe(1))
                if info is False:
                    return DISABLE
                try:
                    h = local.h
                except AttributeError:
                    h = new_thread()
                h.call(getframe(1), "call", None, info)

        def resume(frame):
            if live_gens_get(frame) is not None:
                try:
                    h = local.h
                except AttributeError:
                    h = new_thread()
                h.call(frame, "call", None)

        def on_resume(code, offset):
            info = codes_get(_id(code))
            if info is None:
                info = classify_user(code, getframe(1))
            if info is False:
                return DISABLE
            resume(getframe(1))

        def on_throw(code, offset, exc):
            if codes_get(_id(code)):
                resume(getframe(1))

        def exiting(info):
            """This thread's hooks when the frame now exiting is the top entry, else None."""
            try:
                h = local.h
            except AttributeError:
                return None
            stack = h.ts.stack
            if stack:
                e = stack[-1]
                # before truncation every user frame is on the stack; after it, some are not
                if e[E_INFO] is info and (not rec.check_frames or e[E_FRAME] is getframe(2)):
                    return h
            return None

        def on_return(code, offset, value):
            info = codes_get(_id(code))
            if not info:
                return DISABLE
            try:
                h = local.h
            except AttributeError:
                return
            stack = h.ts.stack
            if not stack:
                return
            e = stack[-1]
            if e[E_INFO] is not info or (rec.check_frames and e[E_FRAME] is not getframe(1)):
                return
            if not e[E_STATE]:
                # fast path: a value returned by a frame with nothing else to do (see
                # recorder.thread_hooks, whose TRACE-mode return is the same)
                stack.pop()
                if write_t:
                    t = type(value)
                    if e[E_FP] is BARE_FP:
                        calls_append(("bare", e[E_IDX], info.cid, e[E_CALLER], h.ts.tid,
                                      value if (t is int and nbig < value < big) or t in raw else BARE))
                    else:
                        calls_append(("callret", e[E_IDX], info.cid, e[E_CALLER], h.ts.tid, e[E_LINE], e[E_ARGS],
                                      e[E_FP], value if (t is int and nbig < value < big) or t in raw
                                      else info.render(value)))
            else:
                h.leave("return", value)

        def on_yield(code, offset, value):
            info = codes_get(_id(code))
            if not info:
                return DISABLE
            h = exiting(info)
            if h is not None:
                h.leave("yield", value)

        def on_unwind(code, offset, exc):
            info = codes_get(_id(code))
            if info:
                h = exiting(info)
                if h is not None:
                    h.leave("exception", exc)

        def stepper_of(frame):
            try:
                stack = local.h.ts.stack
            except AttributeError:
                return None
            if stack and stack[-1][E_FRAME] is frame:
                return stack[-1][E_STEP]
            return None

        def on_raise(code, offset, exc):
            if codes_get(_id(code)):
                frame = getframe(1)
                st = stepper_of(frame)
                if st is not None:
                    st.exception(exc)

        def on_line(code, line):
            frame = getframe(1)
            try:
                stack = local.h.ts.stack
            except AttributeError:
                return
            if stack:
                e = stack[-1]
                if e[E_FRAME] is frame and e[E_STEP] is not None:
                    e[E_STEP].line(frame)

        lines_of = self._line_table

        def on_jump(code, src, dst):
            if dst >= src:
                return DISABLE
            table = lines_of(code)
            line = table.get(dst)
            if line is None or table.get(src) != line:
                return DISABLE
            frame = getframe(1)
            st = stepper_of(frame)
            if st is not None:
                st.jump_line(frame, line, dst)

        tool = self.tool
        mon.use_tool_id(tool, "adi")
        register = mon.register_callback
        register(tool, ev.PY_START, on_start)
        register(tool, ev.PY_RESUME, on_resume)
        register(tool, ev.PY_THROW, on_throw)
        register(tool, ev.PY_RETURN, on_return)
        register(tool, ev.PY_YIELD, on_yield)
        register(tool, ev.PY_UNWIND, on_unwind)
        register(tool, ev.RAISE, on_raise)
        register(tool, ev.LINE, on_line)
        register(tool, ev.JUMP, on_jump)
        register(tool, CALL, on_call)
        self._base = (ev.PY_START | ev.PY_RESUME | ev.PY_THROW | ev.PY_RETURN | ev.PY_YIELD
                      | ev.PY_UNWIND)
        self._raise = ev.RAISE
        self._local = ev.LINE | ev.JUMP
        local.h = rec.thread_hooks(rec.thread_state(), MONITOR)
        mon.set_events(tool, self._base)

    def set_idle(self, idle):
        """Scoped recording (scope.Scope.on_idle): no events at all while nothing can be recorded."""
        sys.monitoring.set_events(self.tool, 0 if idle else self._base | (self._raise if self._stepping else 0))

    def _line_table(self, code):
        """offset -> line of a code object being stepped."""
        table = self._lines.get(id(code))
        if table is None:
            table = {}
            for start, end, line in code.co_lines():
                if line is not None:
                    for off in range(start, end, 2):
                        table[off] = line
            self._lines[id(code)] = table
        return table

    def stepping_started(self, e):
        """A stepper started: LINE/JUMP events on its code, RAISE events globally."""
        code = e[E_INFO].code
        entry = self._stepping.get(id(code))
        if entry is not None:
            entry[1] += 1
            return
        self._stepping[id(code)] = [code, 1]
        sys.monitoring.set_local_events(self.tool, code, self._local | self._calls)
        if len(self._stepping) == 1:
            sys.monitoring.set_events(self.tool, self._base | self._raise)

    def stepping_ended(self, e):
        """A stepper ended: turn its code's events off when no stepper of that code is live."""
        code = e[E_INFO].code
        entry = self._stepping.get(id(code))
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] > 0:
            return
        del self._stepping[id(code)]
        sys.monitoring.set_local_events(self.tool, code, self._calls)
        if not self._stepping:
            sys.monitoring.set_events(self.tool, self._base)

    def silence(self):
        """Nothing more than stop(), which holds for every thread."""

    def stop(self):
        mon = sys.monitoring
        mon.set_events(self.tool, 0)
        for code, _ in list(self._stepping.values()):
            mon.set_local_events(self.tool, code, 0)
        for code in self._call_codes:
            mon.set_local_events(self.tool, code, 0)
        self._call_codes = []
        for event in (mon.events.CALL, mon.events.PY_START, mon.events.PY_RESUME, mon.events.PY_THROW,
                      mon.events.PY_RETURN, mon.events.PY_YIELD, mon.events.PY_UNWIND,
                      mon.events.RAISE, mon.events.LINE, mon.events.JUMP):
            mon.register_callback(self.tool, event, None)
        mon.free_tool_id(self.tool)


class _Globals:
    """What ``Recorder.classify`` reads of a frame (its module's globals), for a function that
    is called but has no frame yet."""

    __slots__ = ("f_globals",)

    def __init__(self, func):
        self.f_globals = func.__globals__


def _free_tool():
    """A free sys.monitoring tool id (3 and 4 are unassigned by convention), or None."""
    mon = sys.monitoring
    for tool in (4, 3, mon.PROFILER_ID):
        if mon.get_tool(tool) is None:
            return tool
    return None


def select(rec):
    """The engine for this run (see the module docstring for the defaults)."""
    want = os.environ.get("ADI_PROBE_ENGINE", "auto")
    has_monitoring = hasattr(sys, "monitoring")
    if want == "monitoring" or (want == "auto" and has_monitoring):
        tool = _free_tool() if has_monitoring else None
        if tool is not None:
            return MonitoringEngine(rec, tool)
        if want == "monitoring":
            raise EngineError("ADI_PROBE_ENGINE=monitoring needs Python 3.12+ with a free "
                              "sys.monitoring tool id")
    if want not in ("auto", "trace", "profile", "monitoring"):
        raise EngineError("ADI_PROBE_ENGINE must be auto, trace, profile or monitoring, not %r" % want)
    if want == "profile" or (want != "trace" and sys.gettrace() is not None):
        return ProfileEngine(rec)
    return TraceEngine(rec)
