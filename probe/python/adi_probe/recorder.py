"""T, the call recorder: every invocation of user code, its caller, arguments and outcome.

The ``Recorder`` owns the run's call state: code objects seen (``CodeInfo``), invocation
counters (one global ``idx`` counter, one ``n`` counter per func), the live stack of user
frames of each thread, live generators (one fid for a generator's whole life), the trace
selectors, conditions and replay expectations, and the steppers (FLTs) it starts.

Engines (``engines.py``) turn interpreter events into calls of the per-thread hook closures
built by ``Recorder.thread_hooks``: ``call`` (a frame starts or resumes), ``local`` (a frame's
own events: return, exception, line), ``profile`` and ``leave``. Only what is needed is kept in
memory: the live stacks, per-code facts and the current output batch.

A stack entry is a list ``[frame, idx, info, stepper, exc, n, exc_at]`` (the E_* indexes):
the frame, its invocation idx, its CodeInfo, its Stepper (or None), the last exception
raised in or propagated into it, its per-func index n, and, for generators, the offset of
an exception that has not been caught yet (-1 when none).

Settrace/setprofile report a frame's exit as a 'return' event whose argument is None for an
exception as well as for ``return None``; the opcode at ``f_lasti`` tells them apart
(RETURN_VALUE/RETURN_CONST for a return, YIELD_VALUE for a suspension). A generator unwinding
because of an exception thrown in at its ``yield`` still sits on the yield instruction, so an
exception seen at that very offset and not followed by a line event (which a handler would
produce) marks the exit as an exception.
"""

import dis
import itertools
import sys
import threading
import weakref
from functools import partial

from . import usercode
from .output import encode, esc
from .stepper import CodeFacts, Stepper, exc_message, exc_type_name
from .values import EXACT_SHORT

E_FRAME, E_IDX, E_INFO, E_STEP, E_EXC, E_N, E_EXC_AT = range(7)
TRACE, PROFILE, MONITOR = "trace", "profile", "monitor"  # how a thread's hooks receive events

_GEN_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_FLUSH_MASK = 2047
_id = id
_YIELD_REPORTS_NEXT = sys.version_info >= (3, 13)


class CodeInfo:
    """What the recorder knows about one user code object."""

    __slots__ = ("cid", "func", "next_n", "argnames", "argkeys", "nargs", "arg0", "key0",
                 "is_gen", "plain", "first_lasti", "ret_offsets", "yield_offsets", "watch", "code",
                 "facts", "stmts_sent")

    def __init__(self, cid, func, next_n, code, watch):
        self.cid = cid
        self.func = func
        self.next_n = next_n
        self.code = code
        keys = usercode.argnames(code)
        self.argkeys = tuple(keys)
        self.argnames = tuple(k.lstrip("*") for k in keys)
        self.nargs = len(keys)
        self.arg0 = self.argnames[0] if keys else None
        self.key0 = esc(keys[0]) if keys else None  # the first parameter as a JSON string
        self.is_gen = bool(code.co_flags & _GEN_FLAGS)
        self.watch = watch
        self.plain = not self.is_gen and watch is None  # returns need no bookkeeping
        self.facts = None
        self.stmts_sent = False
        rets, yields, first = set(), set(), -1
        for ins in dis.get_instructions(code):
            op = ins.opname
            if op in ("RETURN_VALUE", "RETURN_CONST"):
                rets.add(ins.offset)
            elif op == "YIELD_VALUE":
                yields.add(ins.offset)
                if _YIELD_REPORTS_NEXT:
                    yields.add(ins.offset + 2)  # 3.13+: f_lasti is on the RESUME after it
            elif op == "YIELD_FROM":  # 3.8-3.10 suspend with f_lasti on the instruction before
                yields.add(ins.offset - 2)
            elif op == "RESUME" and first < 0:
                first = ins.offset
        self.ret_offsets = frozenset(rets)
        self.yield_offsets = frozenset(yields)
        self.first_lasti = first


class Watch:
    """The selectors, conditions and expectations that name one func."""

    __slots__ = ("sel_entry", "sel_exit", "cond_entry", "cond_exit", "expects", "stops")

    def __init__(self):
        self.sel_entry = []
        self.sel_exit = []
        self.cond_entry = []
        self.cond_exit = []
        self.expects = {}
        self.stops = set()  # invocation indexes n that a `stops` entry names


class ThreadState:
    """One thread's recording state (its stack of live user frames)."""

    __slots__ = ("ident", "tid", "name", "stack", "hooks")

    def __init__(self, ident, name):
        self.ident = ident
        self.tid = -1
        self.name = name
        self.stack = []
        self.hooks = None


class Hooks:
    """The hook closures of one thread (see ``Recorder.thread_hooks``)."""

    __slots__ = ("call", "local", "profile", "leave", "set_mode", "mode", "ts")


class Recorder:
    """The call recorder and FLT dispatcher of one run."""

    def __init__(self, cfg, out, values, users):
        self.cfg = cfg
        self.out = out
        self.values = values
        self.users = users
        self.codes = {}      # id(code) -> CodeInfo, or False for code that is not user code
        self._code_refs = {}  # id(code) -> weakref dropping the entry when the code object dies
        self.threads = {}
        self.live_gens = {}
        self.limit = [cfg.max_calls]  # first idx that is not recorded
        self.truncated = None
        self.trunc_at = 0
        self.unrecorded_calls = 0
        self.divergence = None
        self.stepper_started = None  # engine callbacks (sys.monitoring enables LINE events)
        self.stepper_ended = None
        self.internal_errors = []
        self._next_idx = itertools.count()
        self._next_cid = itertools.count()
        self._next_tid = itertools.count()
        self._counters = {}
        self._lock = threading.RLock()
        self._order = threading.Lock()  # keeps call records in idx order across threads
        self._watches = {}
        for sel in cfg.trace:
            w = self._watch(sel.func)
            (w.sel_exit if sel.at == "exit" else w.sel_entry).append(sel)
        for cond in cfg.conditions:
            w = self._watch(cond.func)
            (w.cond_exit if cond.at == "exit" else w.cond_entry).append(cond)
        for exp in cfg.expect:
            self._watch(exp.func).expects[exp.index] = exp
        for stop in cfg.stops.values():
            self._watch(stop.func).stops.add(stop.index)

    def _watch(self, func):
        w = self._watches.get(func)
        if w is None:
            w = self._watches[func] = Watch()
        return w

    # -- code objects and threads ------------------------------------------------------------

    def classify(self, code, frame):
        """CodeInfo for a user code object, False otherwise (first sight of `code`).

        ``codes`` is keyed by ``id(code)``: hashing a code object hashes its whole contents
        (about 0.2 µs for a small function on 3.12, more for big ones), far too slow for
        every call. A weak reference removes the entry when the code object dies, before its
        id can be reused.
        """
        key = id(code)
        with self._lock:
            info = self.codes.get(key)
            if info is not None:
                return info
            self._code_refs[key] = weakref.ref(code, partial(self._forget_code, key))
            try:
                path = self.users.user_file(code.co_filename) if self.users.is_user(code) else None
                if path is not None:
                    module = self.users.module_name(path, frame.f_globals if frame is not None else None)
                    func = sys.intern(module + ":" + usercode.qualname(code))
            except Exception as exc:
                self.internal_error("classifying %s" % code.co_filename, exc)
                path = None
            if path is None:
                self.codes[key] = False
                return False
            counter = self._counters.get(func)
            if counter is None:
                counter = self._counters[func] = itertools.count(1).__next__
            info = CodeInfo(next(self._next_cid), func, counter, code, self._watches.get(func))
            self.out.calls.append(encode(("code", info.cid, func, path, code.co_firstlineno,
                                          info.argkeys)))
            self.codes[key] = info
            return info

    def _forget_code(self, key, ref):
        self.codes.pop(key, None)
        self._code_refs.pop(key, None)

    def thread_state(self, fresh=False):
        """The state of the current thread; `fresh`: a new thread starts (idents are reused)."""
        ident = threading.get_ident()
        ts = self.threads.get(ident)
        if ts is None or fresh:
            with self._lock:
                ts = self.threads[ident] = ThreadState(ident, _thread_name(ident))
        return ts

    def announce(self, ts):
        """Give a thread its tid and write its record (on its first user call)."""
        with self._lock:
            if ts.tid < 0:
                ts.tid = next(self._next_tid)
                self.out.calls.append(encode(("thread", ts.tid, ts.name)))
        return ts.tid

    # -- the per-thread hooks -----------------------------------------------------------------

    def thread_hooks(self, ts, mode):
        """Build the hook closures of one thread; `mode` is TRACE, PROFILE or MONITOR.

        ``call(frame, event, arg)``: a frame starts or resumes. It is the global
        ``sys.settrace`` function in TRACE mode (it returns ``local`` for user frames).
        ``local(frame, event, arg)``: a user frame's local trace function: 'exception' records
        the exception, 'line' feeds the frame's stepper and, in TRACE mode, 'return' ends it.
        ``profile(frame, event, arg)``: the ``sys.setprofile`` function (PROFILE mode).
        ``leave(kind, value)``: the top frame suspends ("yield") or exits ("return",
        "exception"; `value` is the returned value or the exception).

        These run for every call of the target, so they are written for speed: closures over
        local bindings, records formatted as JSON text right away (no per-record work at flush
        time and nothing for the garbage collector to track), and a fast path for the common
        case of scalar arguments and return values, whose repr needs no escaping.
        """
        rec = self
        out = self.out
        calls_append = out.calls.append
        codes_get = self.codes.get
        classify = self.classify
        next_idx = self._next_idx.__next__
        live_gens = self.live_gens
        live_gens_get = live_gens.get
        render = self.values.render
        args_of = self.values.args
        big = self.values.big
        nbig = -big
        plain = EXACT_SHORT
        limit = self.limit
        stack = ts.stack
        push = stack.append
        pop = stack.pop
        msg_limit = self.values.limit
        acquire = self._order.acquire
        release = self._order.release
        current = [mode]
        tid = ts.tid

        def call(frame, event, arg):
            nonlocal tid
            code = frame.f_code
            info = codes_get(_id(code))
            if info is None:
                info = classify(code, frame)
            if info is False:
                return None
            if info.is_gen:
                e = live_gens_get(frame)
                if e is not None:
                    push(e)
                    e[E_EXC_AT] = -1
                    calls_append(f'["resume",{e[E_IDX]}]')
                    st = e[E_STEP]
                    if st is not None:
                        st.resume(frame)
                    return attach(frame, e)
                if frame.f_lasti != info.first_lasti:
                    return None  # resumption of a generator that is not recorded
            if rec.truncated is not None:
                rec.unrecorded(next_idx())
                return None
            if stack:
                ce = stack[-1]
                caller = ce[E_IDX]
                line = ce[E_FRAME].f_lineno
                st = ce[E_STEP]
            else:
                caller = -1
                line = 0
                st = None
                if tid < 0:
                    tid = rec.announce(ts)
            # the arguments are rendered first: that may run user code (__repr__), which
            # must not happen while holding the lock below
            nargs = info.nargs
            r = pairs = None
            if nargs == 1:
                v = frame.f_locals[info.arg0]
                t = type(v)
                if (t is int and nbig < v < big) or t in plain:
                    r = repr(v)
                    fp = "=" + r
                else:
                    reprs, fp = args_of((v,))
                    pairs = ((info.argkeys[0], reprs[0]),)
            elif nargs == 0:
                fp = "="
            else:
                loc = frame.f_locals
                reprs, fp = args_of([loc[a] if a in loc else _UNBOUND for a in info.argnames])
                pairs = tuple(zip(info.argkeys, reprs))
            # idx, n and the record's place in the file are taken together, so call records
            # stay in idx order when several threads run user code
            acquire()
            try:
                idx = next_idx()
                if idx >= limit[0]:
                    n = -1
                else:
                    n = info.next_n()
                    if r is not None:
                        calls_append(f'["call",{idx},{info.cid},{n},{caller},{tid},{line},[[{info.key0},"{r}"]],"={r}"]')
                    elif pairs is None:
                        calls_append(f'["call",{idx},{info.cid},{n},{caller},{tid},{line},[],"="]')
                    else:
                        calls_append(encode(("call", idx, info.cid, n, caller, tid, line, pairs, fp)))
            finally:
                release()
            if n < 0:
                rec.unrecorded(idx)
                return None
            if st is not None:
                st.add_callee(idx)
                if current[0] is PROFILE and ce[E_FRAME].f_trace is not st.wrapper:
                    rec.attach_local(ce[E_FRAME], ce, local)  # a debugger replaced our tracer
            e = [frame, idx, info, None, None, n, -1]
            push(e)
            if info.is_gen:
                live_gens[frame] = e
            if info.watch is not None:
                rec.watch_enter(ts, e, fp)
            if idx & _FLUSH_MASK == _FLUSH_MASK:
                rec.flush()
            if current[0] is TRACE:
                if e[E_STEP] is None:
                    frame.f_trace_lines = False
                return local
            return attach(frame, e)

        def attach(frame, e):
            """TRACE: return the local tracer. PROFILE: install it on the frame. MONITOR: nothing."""
            m = current[0]
            if m is TRACE:
                if e[E_STEP] is None:
                    frame.f_trace_lines = False
                return local
            if m is PROFILE:
                rec.attach_local(frame, e, local)
            return None

        def local(frame, event, arg):
            if event == "return":
                if current[0] is TRACE and stack:
                    e = stack[-1]
                    if e[E_FRAME] is frame:
                        if arg is not None and e[E_STEP] is None and e[E_INFO].plain:
                            # fast path: a value returned by a frame with nothing else to do
                            pop()
                            t = type(arg)
                            if (t is int and nbig < arg < big) or t in plain:
                                calls_append(f'["ret",{e[E_IDX]},"{repr(arg)}"]')
                            else:
                                calls_append(f'["ret",{e[E_IDX]},{esc(render(arg))}]')
                        else:
                            exit_event(frame, arg)
            elif event == "line":
                e = stack[-1] if stack and stack[-1][E_FRAME] is frame else rec.find(frame)
                if e is not None:
                    if e[E_EXC_AT] >= 0:
                        caught(frame, e)
                    if e[E_STEP] is not None:
                        e[E_STEP].line(frame)
            elif event == "exception":
                e = stack[-1] if stack and stack[-1][E_FRAME] is frame else rec.find(frame)
                if e is not None:
                    exc = arg[1] if arg[1] is not None else arg[0]
                    e[E_EXC] = exc
                    if e[E_STEP] is not None:
                        e[E_STEP].exception(exc)
                    if e[E_INFO].is_gen:
                        e[E_EXC_AT] = frame.f_lasti
                        frame.f_trace_lines = True  # a handler's first line clears the mark
            return local

        def caught(frame, e):
            """A line after an exception in a generator: it was caught."""
            e[E_EXC_AT] = -1
            if e[E_STEP] is None and frame.f_trace is local:
                frame.f_trace_lines = False

        def exit_event(frame, arg):
            """A settrace/setprofile 'return' event of the top frame: return, yield or unwinding."""
            e = stack[-1]
            info = e[E_INFO]
            lasti = frame.f_lasti
            if info.is_gen and lasti in info.yield_offsets and not (arg is None and e[E_EXC_AT] == lasti):
                leave("yield", arg)
            elif arg is not None or lasti in info.ret_offsets:
                leave("return", arg)
            else:
                leave("exception", e[E_EXC])

        def leave(kind, value):
            e = pop()
            idx = e[E_IDX]
            info = e[E_INFO]
            st = e[E_STEP]
            if kind == "return":
                t = type(value)
                if (t is int and nbig < value < big) or t in plain:
                    calls_append(f'["ret",{idx},"{repr(value)}"]')
                else:
                    calls_append(f'["ret",{idx},{esc(render(value))}]')
            elif kind == "yield":
                r = render(value)
                frame = e[E_FRAME]
                calls_append(encode(("yield", idx, r, frame.f_lineno)))
                if st is not None:
                    st.suspend(frame, r)
                if len(out.calls) > _FLUSH_MASK:
                    rec.flush()
                return
            elif value is None:
                calls_append(encode(("exc", idx, "<unknown>", "exception not observed",
                                     e[E_FRAME].f_lineno)))
            else:
                t = value if isinstance(value, type) else type(value)
                msg = "" if value is t else exc_message(value, msg_limit)
                calls_append(encode(("exc", idx, exc_type_name(t), msg, e[E_FRAME].f_lineno)))
            if info.is_gen:
                live_gens.pop(e[E_FRAME], None)
            if st is not None:
                st.finish(e[E_FRAME], kind)
                if rec.stepper_ended is not None:
                    rec.stepper_ended(e)
            if info.watch is not None:
                rec.watch_exit(e, kind, value)

        def profile(frame, event, arg):
            if event == "call":
                call(frame, event, arg)
            elif event == "return":
                if stack and stack[-1][E_FRAME] is frame:
                    exit_event(frame, arg)
                    if stack:
                        e = stack[-1]
                        st = e[E_STEP]
                        if st is not None and e[E_FRAME].f_trace is not st.wrapper:
                            rec.attach_local(e[E_FRAME], e, local)  # a debugger replaced our tracer

        def set_mode(m):
            current[0] = m

        hooks = Hooks()
        hooks.call = call
        hooks.local = local
        hooks.profile = profile
        hooks.leave = leave
        hooks.set_mode = set_mode
        hooks.mode = current
        hooks.ts = ts
        ts.hooks = hooks
        return hooks

    # -- slow paths ------------------------------------------------------------------------------

    def find(self, frame):
        """The live entry of `frame` in any thread (None if it is not recorded)."""
        for ts in list(self.threads.values()):
            for e in reversed(ts.stack):
                if e[E_FRAME] is frame:
                    return e
        return None

    def attach_local(self, frame, e, local):
        """Profile mode: make the frame's local tracer ours, wrapping a foreign one.

        A stepped frame always gets a ``Chain`` (remembered as ``stepper.wrapper``), so a
        debugger that later assigns its own ``f_trace`` to the frame (pydevd does when it
        stops or steps) is noticed at the frame's next call or callee return and wrapped too.
        """
        ft = frame.f_trace
        st = e[E_STEP]
        if st is None:
            if ft is None:
                frame.f_trace = local
                frame.f_trace_lines = False
            elif ft is not local and not isinstance(ft, Chain):
                frame.f_trace = Chain(local, ft)
            return
        if isinstance(ft, Chain) and ft.ours is local:
            st.wrapper = ft
            return
        chain = Chain(local, None if ft is local else ft)
        frame.f_trace = chain
        frame.f_trace_lines = True
        st.wrapper = chain

    def unrecorded(self, idx):
        """A call that is not recorded (past max_calls, or after max_bytes was reached)."""
        with self._lock:
            if self.truncated is None:
                self.truncated = "max_bytes" if self.out.over_limit else "max_calls"
                self.trunc_at = idx
                self.out.calls.append('["trunc",%d]' % idx)
            self.unrecorded_calls += 1

    def calls_recorded(self):
        """How many call records were written (at the end of the run)."""
        return self.trunc_at if self.truncated else next(self._next_idx)

    def flush(self):
        """Write the queued records; once max_bytes is reached, stop recording calls."""
        try:
            self.out.flush()
        except OSError as exc:
            self.internal_error("writing %s" % self.out.dir, exc)
            self.out.closed = True
            self.out.over_limit = True
        if self.out.over_limit:
            self.limit[0] = 0

    # -- selectors, conditions, expectations -----------------------------------------------------------

    def internal_error(self, where, exc):
        """A bug in the probe: report it (stderr once, result.json) instead of raising into the target."""
        if not self.internal_errors:
            sys.stderr.write("adi: internal error in the probe while %s: %s: %s (the recording may be "
                             "incomplete)\n" % (where, type(exc).__name__, exc))
        if len(self.internal_errors) < 5:
            self.internal_errors.append("%s: %s: %s" % (where, type(exc).__name__, exc))

    def watch_enter(self, ts, e, fp):
        """Entry of a watched func: check expectations, evaluate conditions, maybe start an FLT."""
        try:
            self._watch_enter(ts, e, fp)
        except Exception as exc:
            self.internal_error("checking %s#%d at entry" % (e[E_INFO].func, e[E_N]), exc)

    def _watch_enter(self, ts, e, fp):
        info = e[E_INFO]
        w = info.watch
        n = e[E_N]
        frame = e[E_FRAME]
        diverged = False
        exp = w.expects.get(n)
        if exp is not None:
            exp.seen = True
            chain = ["%s#%d" % (x[E_INFO].func, x[E_N]) for x in ts.stack[:-1]]
            if chain != exp.chain or fp != exp.args_fp:
                diverged = True
                if self.divergence is None:
                    self.divergence = {"fid": "%s#%d" % (info.func, n),
                                       "expected": _describe_call(exp.chain, exp.args_fp),
                                       "actual": _describe_call(chain, fp)}
        for cond in w.cond_entry:
            self._evaluate(cond, frame, n, None)
        if diverged or self.out.over_limit:
            return
        # a stop's invocation is stepped: hit() counts visits to a line as the FLT counts steps
        traced = n in w.stops
        buffered = False
        for sel in w.sel_entry:
            if sel.index is not None:
                if sel.index == n:
                    traced = True
            elif sel.max is None or sel.taken < sel.max:
                if self._test(sel.code, frame, None):
                    sel.taken += 1
                    traced = True
        if not traced:
            for sel in w.sel_exit:
                if sel.max is None or sel.taken < sel.max:
                    buffered = True
        if traced or buffered:
            self._start_stepper(e, buffered)

    def _start_stepper(self, e, buffered):
        info = e[E_INFO]
        if info.facts is None:
            info.facts = CodeFacts(info.code)
        if buffered:
            sink = []
        else:
            self._send_stmts(info)
            sink = self.out.flt
        e[E_STEP] = Stepper(e[E_IDX], info.facts, e[E_FRAME], sink, self.values,
                            self.cfg.max_steps, buffered, self.flush, self.internal_error)
        if self.stepper_started is not None:
            self.stepper_started(e)

    def _send_stmts(self, info):
        if not info.stmts_sent:
            info.stmts_sent = True
            self.out.flt.append(("stmts", info.cid, info.facts.statements()))

    def watch_exit(self, e, kind, value):
        """Exit of a watched func: exit conditions and exit selectors (keep or drop a buffered FLT)."""
        try:
            self._watch_exit(e, kind, value)
        except Exception as exc:
            self.internal_error("checking %s#%d at exit" % (e[E_INFO].func, e[E_N]), exc)

    def _watch_exit(self, e, kind, value):
        w = e[E_INFO].watch
        n = e[E_N]
        frame = e[E_FRAME]
        extra = None
        if w.cond_exit or w.sel_exit:
            ret = value if kind == "return" else None
            exc = value if kind == "exception" else None
            extra = {"_return": ret, "_exception": exc}
        for cond in w.cond_exit:
            self._evaluate(cond, frame, n, extra)
        st = e[E_STEP]
        if st is None or not st.buffered:
            return
        keep = False
        for sel in w.sel_exit:
            if (sel.max is None or sel.taken < sel.max) and self._test(sel.code, frame, extra):
                sel.taken += 1
                keep = True
                break
        if keep:
            self._send_stmts(e[E_INFO])
            self.out.flt.extend(st.sink)
        st.sink = None

    def _locals(self, frame, extra):
        loc = dict(frame.f_locals)
        if extra:
            loc.update(extra)
        return loc

    def _test(self, code, frame, extra):
        try:
            return bool(eval(code, frame.f_globals, self._locals(frame, extra)))
        except Exception:
            return False

    def _evaluate(self, cond, frame, n, extra):
        cond.evaluated += 1
        try:
            ok = bool(eval(cond.code, frame.f_globals, self._locals(frame, extra)))
        except Exception as exc:
            if len(cond.errors) < 5:
                cond.errors.append([n, "%s: %s" % (exc_type_name(type(exc)), exc_message(exc, 200))])
            return
        if ok:
            cond.hits.append(n)

    # -- end of run -------------------------------------------------------------------------------

    def finish_unfinished(self):
        """Close the FLTs of frames still live when the run ends (kind "unfinished")."""
        seen = set()
        entries = []
        for ts in list(self.threads.values()):
            entries.extend(ts.stack)
        entries.extend(self.live_gens.values())
        for e in entries:
            st = e[E_STEP]
            if st is None or id(st) in seen:
                continue
            seen.add(id(st))
            st.finish(None, "unfinished")
            if st.buffered:
                st.sink = None  # an exit condition cannot be decided: drop it

    def missing_expectations(self):
        """Record a divergence for an expected invocation that never happened."""
        if self.divergence is not None:
            return
        for exp in self.cfg.expect:
            if not exp.seen:
                self.divergence = {"fid": "%s#%d" % (exp.func, exp.index),
                                   "expected": _describe_call(exp.chain, exp.args_fp),
                                   "actual": "no such call"}
                return


class Chain:
    """A frame's local trace function that calls ours and then the one it replaced.

    Used when a debugger (pydevd) already traces the frame: its tracer keeps receiving every
    event, and what it returns (or assigns to ``frame.f_trace``) becomes the next inner tracer,
    so its breakpoints and stepping in that frame keep working.
    """

    __slots__ = ("ours", "inner")

    def __init__(self, ours, inner):
        self.ours = ours
        self.inner = inner

    def __call__(self, frame, event, arg):
        self.ours(frame, event, arg)
        inner = self.inner
        if inner is not None:
            result = inner(frame, event, arg)
            current = frame.f_trace
            if current is not self and current is not None:
                inner = current
            if result is not None:
                inner = result
            self.inner = inner
        return self


def _describe_call(chain, fp):
    """How a divergence shows one side: the callers (outermost first) and the args fingerprint."""
    return "callers %s, args %s" % (" > ".join(chain) if chain else "(none)", fp)


class _Unbound:
    def __repr__(self):
        return "<unbound>"


_UNBOUND = _Unbound()


def _thread_name(ident):
    for t in threading.enumerate():
        if t.ident == ident:
            return t.name
    return "Thread-%d" % ident
