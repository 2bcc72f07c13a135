"""T, the call recorder: every invocation of user code, its caller, arguments and outcome.

The ``Recorder`` owns the run's call state: code objects seen (``CodeInfo``), invocation
counters (one global ``idx`` counter, one ``n`` counter per func), the live stack of user
frames of each thread, live generators (one fid for a generator's whole life), the trace
selectors, conditions and replay expectations, and the steppers (FLTs) it starts.

Engines (``engines.py``) turn interpreter events into calls of the per-thread hook closures
built by ``Recorder.thread_hooks``: ``call`` (a frame starts or resumes), ``local`` (a frame's
own events: return, exception, line), ``profile`` and ``leave``. Only what is needed is kept in
memory: the live stacks, per-code facts and the current output batch.

An invocation is written once, when it ends: one ``callret``/``callexc`` record with its call
fields and outcome (PROTOCOL.md). One still running when a batch is written (``flush``) is
written open (``call``, by ``open_live``) and its outcome follows as ``ret``/``exc``;
generators are written open when they start. Records are tuples of raw fields (marshalled at
flush time): an int, bool or None argument or return value is kept as the value itself.
``trace_all`` (eager FLTs) starts a stepper for every new invocation while its step budget
lasts (``eager_enter``), except module bodies (a module's namespace of thousands of names, and
the objects in it, would be compared at every step) and whatever runs while a user module is
being imported (where nobody looks); then ``_end_eager`` gives plain code objects their fast path back
(entries during an import take it all along).

A stack entry is a list ``[frame, idx, info, stepper, exc, n, exc_at, caller, line, args, fp,
state]`` (the E_* indexes): the frame, its invocation idx, its CodeInfo, its Stepper (or None),
the last exception raised in or propagated into it, its per-func index n, for generators the
offset of an exception that has not been caught yet (-1 when none), the caller's idx, the
caller's line, the arguments (a tuple or list of reprs, or of the values themselves for ints,
bools and None: see output.py) and their fingerprint (None: "=" and the reprs; a str; or the
marshalled canonical tokens of ``Values.args_lazy``, whose checksum the reader computes), and
its state: FAST (a plain frame whose call record is not written yet: its exit writes one
``callret`` record), SLOW (same, but entry and exit take the general path) or WRITTEN (the call
record is written; the exit writes ``ret``/``exc``).

idx and n are taken together in one C call (``CodeInfo.next_ids``, a ``zip`` of the global
and the per-func counter), so n follows idx order without a lock; the reader derives n.

Settrace/setprofile report a frame's exit as a 'return' event whose argument is None for an
exception as well as for ``return None``; the opcode at ``f_lasti`` tells them apart
(RETURN_VALUE/RETURN_CONST for a return, YIELD_VALUE for a suspension). A generator unwinding
because of an exception thrown in at its ``yield`` still sits on the yield instruction, so an
exception seen at that very offset and not followed by a line event (which a handler would
produce) marks the exit as an exception.
"""

import dis
import gc
import itertools
import sys
import threading
import weakref
# the eager and test FLTs' budgets count this thread's CPU time, not the wall clock, so that a
# busy machine does not spend them for other processes (0.6 µs a reading, on stepped lines only)
try:
    from time import thread_time as _clock
except ImportError:  # Python 3.6: the process's CPU time
    from time import process_time as _clock
# a frame's f_trace_lines (3.7+); on 3.6 a local tracer gets every line of its frame (and
# ignores those of frames not stepped)
_TRACE_LINES = sys.version_info >= (3, 7)
from bisect import bisect_right
from functools import partial
from operator import itemgetter

from . import usercode
from .output import RAW_ARG_BOUND, RAW_TYPES
from .scope import checked, fits
from .stepper import EAGER_OVERDRAFT, TESTS_OVERDRAFT, CodeFacts, Stepper, exc_message, exc_type_name, spend
from .values import ADDR_LOW, fp_text

E_FRAME, E_IDX, E_INFO, E_STEP, E_EXC, E_N, E_EXC_AT, E_CALLER, E_LINE, E_ARGS, E_FP, E_STATE = range(12)
FAST, SLOW, WRITTEN = 0, 1, 2  # E_STATE values
TRACE, PROFILE, MONITOR = "trace", "profile", "monitor"  # how a thread's hooks receive events

# T's text for an argument or return value of an invocation made while a module of the
# program is being imported (a module body's own run included): most calls of a big library
# happen then, few are looked at, and rendering their values cost more than the rest of the
# recording (sympy: 0.3 s of 1.3 s). Ints, bools and None are still themselves; an FLT renders
# its frame's values in full. Every run follows the same rule, so fingerprints agree.
UNRENDERED = "\x00"  # the reader shows "<not rendered: during an import>" (one byte: no repr holds a NUL)
UNRENDERED_FP = "~import"

# T's text for an argument or return value of a bare call (config "bare_after": a first run's
# call past its first calls, deeper than "bare_depth", whose caller is not stepped): no value, no
# fingerprint, no caller line. Most calls of a big program are such calls and none of them is
# shown until asked for; then a run records their values (config "values_of").
BARE = "\x01"  # the reader shows "<not recorded>"
BARE_FP = "~bare"

_GEN_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_NEWLOCALS = 0x2  # every function's code has it; module and class bodies do not
_FLUSH_MASK = 2047
_id = id
_YIELD_REPORTS_NEXT = sys.version_info >= (3, 13)


class CodeInfo:
    """What the recorder knows about one user code object."""

    __slots__ = ("cid", "func", "next_ids", "argnames", "argkeys", "nargs", "arg0", "getter", "unrendered", "bare", "want",
                 "is_gen", "is_import", "plain", "state0", "first_lasti", "ret_offsets", "yield_offsets",
                 "watch", "code", "facts", "stmts_sent", "lines", "budget", "render", "light", "is_test", "kind", "is_class",
                 "pending", "wgen", "wroot")

    def __init__(self, cid, func, next_ids, code, watch, render, budget, is_import=False):
        self.cid = cid
        self.func = func
        self.next_ids = next_ids  # () -> (idx, n), taken together (see Recorder.classify)
        self.code = code
        keys = usercode.argnames(code)
        self.argkeys = tuple(keys)
        self.argnames = tuple(k.lstrip("*") for k in keys)
        self.nargs = len(keys)
        self.arg0 = self.argnames[0] if keys else None
        # (reprs, fp) of an invocation during an import, whose values are not rendered
        self.unrendered = ((UNRENDERED,) * len(keys), UNRENDERED_FP)
        self.bare = ((BARE,) * len(keys), BARE_FP)  # (reprs, fp) of a bare call
        self.want = None  # the n of the invocations whose values a light run records (config values_of)
        # the arguments' values from f_locals in one C call: a tuple (two or more arguments)
        self.getter = itemgetter(*self.argnames) if len(keys) > 1 else None
        self.is_gen = bool(code.co_flags & _GEN_FLAGS)
        # generators and coroutines numbered at creation and not started yet (3.12+ monitoring
        # engine: Recorder.thread_hooks' ``made``), oldest first; None until the first one
        self.pending = None
        self.kind = _kind(code)  # the code record's kind: "", "generator", "coroutine", "async generator", "class"
        # a class body: it returns its namespace's __class__ cell (or None), which is not a value of
        # the program; its return is written as "class NAME" (leave, below)
        self.is_class = self.kind == "class"
        self.watch = watch
        self.is_import = is_import  # the body of a module being imported (not the main module)
        # nothing to do at entry/exit
        self.plain = not self.is_gen and watch is None and not is_import and not self.is_class
        self.state0 = FAST if self.plain else SLOW  # E_STATE of a new entry
        self.facts = None
        self.stmts_sent = False
        # values of the first `budget` calls are rendered (then ``Values.summary``; see
        # Recorder.thread_hooks): `render` renders this function's returned and yielded values
        self.budget = budget
        self.render = render
        self.light = False  # a light run records no values for this function (Recorder.classify)
        self.is_test = False  # a test function whose FLT is recorded when a runner calls it
        # what is read from the bytecode costs about 40 µs for a big function and most code
        # objects never need it: a caller's lines are found when it calls (``_Lines``), the
        # return offsets at the first exit that returns None (``returns``); a generator's
        # offsets are needed at once (its first event may be a resumption)
        self.ret_offsets = None
        if self.is_gen:
            b = code.co_code
            yields = _offsets(b, _YIELD)
            if _YIELD_REPORTS_NEXT:
                yields += [o + 2 for o in yields]  # 3.13+: f_lasti is on the RESUME after it
            yields += [o - 2 for o in _offsets(b, _YIELD_FROM)]  # 3.8-3.10: on the one before
            resumes = _offsets(b, _RESUME)
            self.yield_offsets = frozenset(yields)
            self.first_lasti = min(resumes) if resumes else -1
        else:
            self.yield_offsets = frozenset()
            self.first_lasti = -1
        self.lines = _Lines(code)
        # scoped recording (watch.py): the watches whose roots this code's invocations may be,
        # decided at watch generation ``wgen`` (None: not a watched function)
        self.wgen = -1
        self.wroot = None

    def returns(self):
        """The offsets of the code's return instructions (found at the first need)."""
        r = self.ret_offsets
        if r is None:
            r = self.ret_offsets = frozenset(_offsets(self.code.co_code, _RETURNS))
        return r


def _kind(code):
    """What a code object's invocations are, for the reader: "" for a plain function or a module."""
    flags = code.co_flags
    if flags & 0x200:
        return "async generator"
    if flags & 0x80:
        return "coroutine"
    if flags & (0x20 | 0x100):
        return "generator"
    if not flags & _NEWLOCALS and code.co_name != "<module>":
        return "class"
    return ""


def _unwrap(value):
    """The value an async generator yielded: 3.8-3.12 hand the trace/monitoring hooks the
    interpreter's ``async_generator_wrapped_value`` around it, which has no Python attribute;
    ``gc.get_referents`` reads its one reference in C (no code of the program runs)."""
    if type(value).__name__ == "async_generator_wrapped_value":
        refs = gc.get_referents(value)
        if len(refs) == 1:
            return refs[0]
    return value


def _opcodes(*names):
    return tuple(dis.opmap[n] for n in names if n in dis.opmap)


_RETURNS = _opcodes("RETURN_VALUE", "RETURN_CONST")
_YIELD = _opcodes("YIELD_VALUE")
_YIELD_FROM = _opcodes("YIELD_FROM")
_RESUME = _opcodes("RESUME")


def _offsets(b, ops):
    """The offsets of the instructions of `ops` in bytecode `b` (wordcode: an opcode at every even
    offset). Finding the few bytes wanted is about 15 times faster than ``dis.get_instructions``,
    which costs 150 µs for a big function: this runs once per user code object."""
    out = []
    for op in ops:
        needle = bytes((op,))
        i = b.find(needle)
        while i >= 0:
            if not i & 1:
                out.append(i)
            i = b.find(needle, i + 1)
    return out


class _Lines(dict):
    """byte offset -> line of the instruction there (0: none), for one code object: a caller's
    line at a call is ``lines[frame.f_lasti]``. ``frame.f_lineno`` computes the same from the
    location table, which costs 0.1 µs in a small function and several µs far into a big one on
    3.11/3.12, on every call; here each call site is looked up once (``__missing__``, a binary
    search) and is then one dict lookup, and a code object that calls nothing costs nothing.

    The spans are kept as three lists of ints, not a tuple a span: a module's body has hundreds
    of them, and tuples would be objects the garbage collector tracks, for good (sympy's import
    made 53,000 of them, and its first run one more full collection than its light run)."""

    __slots__ = ("code", "starts", "ends", "linenos")

    def __init__(self, code):
        dict.__init__(self)
        self.code = code
        self.starts = None  # the start offset of each span, read at the first miss
        self.ends = None  # its end offset
        self.linenos = None  # its line (0: none)

    def __missing__(self, offset):
        starts = self.starts
        if starts is None:
            starts, ends, linenos = [], [], []
            code = self.code
            if hasattr(code, "co_lines"):  # 3.10+ (empty spans and spans without a line are
                for start, end, line in code.co_lines():  # answered 0 at the lookup)
                    starts.append(start)
                    ends.append(end)
                    linenos.append(line or 0)
            else:
                found = [(off, line) for off, line in dis.findlinestarts(code) if line]
                n = len(code.co_code)
                for i, (off, line) in enumerate(found):
                    starts.append(off)
                    ends.append(found[i + 1][0] if i + 1 < len(found) else n)
                    linenos.append(line)
            self.starts, self.ends, self.linenos = starts, ends, linenos
        k = bisect_right(starts, offset) - 1
        line = 0
        if k >= 0 and offset < self.ends[k]:
            line = self.linenos[k]
        self[offset] = line
        return line


class Watch:
    """The selectors, conditions and expectations that name one func."""

    __slots__ = ("sel_entry", "sel_exit", "cond_entry", "cond_exit", "cond_line", "expects", "stops", "live")

    def __init__(self):
        self.live = False  # a LiveWatch's selector is (or was) in sel_entry: flush when its FLT ends
        self.sel_entry = []
        self.sel_exit = []
        self.cond_entry = []
        self.cond_exit = []
        self.cond_line = []  # conditions checked when a statement starts (at "line")
        self.expects = {}
        self.stops = set()  # invocation indexes n that a `stops` entry names


class LiveWatch:
    """A watch added while the run runs (Recorder.add_watch; editwatch.py): an entry selector
    (``sel``, cond at entry, max) put in the Watch of every func its pattern fits, now and in
    code objects classified later, and the fids of the invocations it caught."""

    __slots__ = ("id", "func", "cond", "max", "sel", "fids", "removed")

    def __init__(self, id_, func, cond, code, max_):
        from .config import Selector
        self.id = id_
        self.func = func
        self.cond = cond
        self.max = max_
        self.sel = Selector(func, cond=cond or "True", max_=max_)
        self.sel.code = code if code is not None else compile("True", "<adi watch condition>", "eval")
        self.sel.live = self
        self.sel.errors = []
        self.fids = []  # "func#n" of each caught invocation, in order
        self.removed = False

    def active(self):
        return not self.removed and (self.max is None or self.sel.taken < self.max)

    def describe(self):
        return {"watch": self.id, "func": self.func, "cond": self.cond, "max": self.max,
                "caught": self.sel.taken, "fids": list(self.fids), "active": self.active(),
                "removed": self.removed, "cond_errors": list(self.sel.errors)}


class ThreadState:
    """One thread's recording state (its stack of live user frames)."""

    __slots__ = ("ident", "tid", "name", "stack", "hooks", "bare_lim", "anchors", "gap_now")

    def __init__(self, ident, name):
        self.ident = ident
        self.tid = -1
        self.name = name
        self.stack = []
        self.hooks = None
        # [n]: a call when the stack holds more than n entries may be bare (config bare_after):
        # bare_depth below the innermost stepped test or watched frame, or below the root;
        # `anchors` holds the stepped entries with the limit each replaced
        self.bare_lim = [0]
        self.anchors = []
        self.gap_now = False  # config "only": the call being entered was made through a function not recorded


class Hooks:
    """The hook closures of one thread (see ``Recorder.thread_hooks``)."""

    __slots__ = ("call", "local", "profile", "leave", "made", "set_mode", "mode", "ts", "last")


class Recorder:
    """The call recorder and FLT dispatcher of one run."""

    def __init__(self, cfg, out, values, users):
        self.cfg = cfg
        self.out = out
        self.values = values
        self.users = users
        self.codes = {}      # id(code) -> CodeInfo, or False for code that is not user code
        self._code_refs = {}  # id(code) -> weakref dropping the entry when the code object dies
        # config "only": the ids of the user code objects whose invocations are not recorded (in
        # ``codes`` as False, like code that is not the user's)
        self.unlisted = {}  # id(code) -> its func name
        self.gapped = set()  # the idx of the invocations written with a "gap" record
        self.only = cfg.only  # None under the sys.monitoring engine (runner), which does not take it
        self.threads = {}
        self.live_gens = {}
        self.limit = [cfg.max_calls]  # first idx that is not recorded
        self.stopped = [False]  # True once a limit stopped the recording of calls
        self.truncated = None
        # len(stack) above which a call hook measures the new frame's depth (depth.RecursionGuard)
        self.depth_zone = [1 << 62]
        self.guard = None
        # the monitoring engine's exit hooks check that the exiting frame is the top entry's
        # (once calls are truncated, or once the guard refused a frame whose unwinding follows)
        self.check_frames = False
        self.trunc_at = 0
        self.unrecorded_calls = 0
        self.divergence = None
        self.main_code = None  # the code object of the main module (runner sets it)
        self.importing = values.importing  # [count] of user modules being imported (values.py)
        # eager FLTs (config trace_all): [steps left] while every new invocation is traced, else
        # None; with max_ms, [steps left, seconds of stepping left] (stepper.py counts both down)
        self.eager = None
        if cfg.trace_all:
            self.eager = [cfg.trace_all] if cfg.trace_all_ms is None else [cfg.trace_all, cfg.trace_all_ms / 1000.0]
        # [True] while eager FLTs may start: every entry outside imports goes through enter_slow
        # (which starts them) until _end_eager; an entry during an import does not (no eager FLT
        # starts there: sympy's script makes 197,000 calls while importing, before its first)
        self.eager_live = [self.eager is not None and self.eager[0] > 0]
        # [True] once bare calls may be recorded (config bare_after; see flush_at)
        self.bare_on = [False]
        # the idx of the running invocations whose values a light run records (config values_of):
        # their returned value is rendered when they return
        self.wanted_live = set()
        # trace_tests: [steps, seconds] of stepping the tests' FLTs may still take (the steps
        # are not bounded; spend() zeroes them when the time is spent)
        self.tests_budget = [1 << 62, cfg.trace_tests_ms / 1000.0]
        self.stepper_started = None  # engine callbacks (sys.monitoring enables LINE events)
        self.stepper_ended = None
        self.internal_errors = []
        self.made_chains = {}  # idx -> callers chain of a watched generator numbered at creation
        self._next_idx = itertools.count()
        self._next_cid = itertools.count()
        self._next_tid = itertools.count()
        self._counters = {}
        self._lock = threading.RLock()
        self._watches = {}
        self.live_watches = {}  # id -> LiveWatch (add_watch), in order of addition
        self._live_list = ()  # the LiveWatches not removed (classify fits each new func to them)
        self._next_live = itertools.count(1)
        # scoped recording (config "scope", watch.py): the watch.Scope deciding which
        # invocations start a recorded tree; only those and what they call are recorded
        self.scope = None
        if getattr(cfg, "scope", False):
            from .scope import Scope
            self.scope = Scope(self.live_gens)
        for sel in cfg.trace:
            w = self._watch(sel.func)
            (w.sel_exit if sel.at == "exit" else w.sel_entry).append(sel)
        for cond in cfg.conditions:
            w = self._watch(cond.func)
            {"exit": w.cond_exit, "line": w.cond_line}.get(cond.at, w.cond_entry).append(cond)
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
                    if not code.co_flags & _NEWLOCALS and code.co_name != "<module>":
                        self.users.note_class(code)  # a class body: before its methods are named
                    func = sys.intern(module + ":" + self.users.qualname(code))
            except Exception as exc:
                self.internal_error("classifying %s" % code.co_filename, exc)
                path = None
            if path is None:
                self.codes[key] = False
                return False
            only = self.only
            if only is not None and func not in only and code.co_name != "<module>":
                self.codes[key] = False
                self.unlisted[key] = func
                return False
            counter = self._counters.get(func)
            if counter is None:
                counter = self._counters[func] = itertools.count(1)
            # zip takes the next idx and the next n in one C call, so no other thread can take
            # an idx in between: n follows idx order within a func without a lock
            ids = zip(self._next_idx, counter).__next__
            for lw in self._live_list:  # watches added while the run runs (add_watch)
                if fits(lw.func, func):
                    self._arm(func, lw)
            info = CodeInfo(next(self._next_cid), func, ids, code, self._watches.get(func),
                            self.values.render if self.cfg.render_calls else self.values.summary,
                            self.cfg.render_calls, code.co_name == "<module>" and code is not self.main_code)
            if self.cfg.trace_tests and code.co_name.startswith("test"):
                info.is_test = True
                info.plain = False
                info.state0 = SLOW
            if self.scope is not None:
                info.state0 = SLOW  # every recorded frame is stepped (enter_slow)
            info.want = self.cfg.values_of.get(func)
            if self.cfg.light and info.watch is None:
                info.light = True
                info.render = _no_value
            self.out.calls.append(("code", info.cid, func, path, code.co_firstlineno, info.argkeys, info.kind))
            self.codes[key] = info
            return info

    # -- watches added while the run runs (editwatch.py) ------------------------------------------

    def add_watch(self, func, cond=None, max_=None):
        """Record the FLT of every following invocation of the functions `func` names (as
        scope.fits reads it) whose `cond` holds at entry, at most `max_` of them; returns the
        LiveWatch. Safe from any thread: the CodeInfos of those functions get the watch's
        selector and leave their fast path (``plain``, ``state0``); an invocation running
        already is not caught. ValueError for a bad func, cond or max."""
        func, cond, code = checked(func, cond, max_)
        with self._lock:
            lw = LiveWatch(next(self._next_live), func, cond, code, max_)
            self.live_watches[lw.id] = lw
            self._live_list = self._live_list + (lw,)
            armed = set()
            for info in list(self.codes.values()):
                if info and fits(func, info.func):
                    if info.func not in armed:
                        armed.add(info.func)
                        self._arm(info.func, lw)
                    w = self._watches[info.func]
                    info.watch = w  # (before the state: a SLOW entry finds its Watch)
                    info.plain = False
                    info.state0 = SLOW
        return lw

    def _arm(self, func, lw):
        """(under the lock) Put lw's selector in func's Watch (a new list: hooks may be iterating
        the old one in another thread)."""
        w = self._watch(func)
        if lw.sel not in w.sel_entry:
            w.sel_entry = w.sel_entry + [lw.sel]
        w.live = True

    def remove_watch(self, wid=None):
        """Remove LiveWatch `wid` (None: all); returns the removed ids. What it caught stays
        (``live_watches`` lists it on, ``removed``); its functions keep the slow entry path (they have a Watch) until the run ends."""
        with self._lock:
            ids = [i for i, lw in self.live_watches.items() if not lw.removed and (wid is None or i == wid)]
            gone = set()
            for i in ids:
                lw = self.live_watches[i]  # (listed on, with what it caught)
                lw.removed = True
                lw.sel.max = 0  # (a hook holding the old list takes no more)
                gone.add(id(lw.sel))
            if gone:
                self._live_list = tuple(lw for lw in self._live_list if not lw.removed)
                for w in self._watches.values():
                    if any(id(s) in gone for s in w.sel_entry):
                        w.sel_entry = [s for s in w.sel_entry if id(s) not in gone]
        return ids

    def _forget_code(self, key, ref):
        self.codes.pop(key, None)
        self._code_refs.pop(key, None)
        self.unlisted.pop(key, None)
        if self.scope is not None:
            self.scope.skip.discard(key)

    def release(self):
        """Drop the tables kept per code object, once the run is finalized (nothing is recorded
        after that). Left in place they cost the interpreter's teardown: each code object's weak
        reference calls back as its module is torn down, and each CodeInfo keeps its code object
        and line table alive until then (60-70 ms of sympy's exit)."""
        with self._lock:
            self._code_refs.clear()
            self.codes.clear()
            self.unlisted.clear()

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
                self.out.calls.append(("thread", ts.tid, ts.name))
        return ts.tid

    # -- the per-thread hooks -----------------------------------------------------------------

    def thread_hooks(self, ts, mode):
        """Build the hook closures of one thread; `mode` is TRACE, PROFILE or MONITOR.

        ``call(frame, event, arg)``: a frame starts or resumes. It is the global
        ``sys.settrace`` function in TRACE mode (it returns ``local`` for user frames); a light
        run's takes the common case itself (``call_light``) and the others to ``call_rec``.
        ``local(frame, event, arg)``: a user frame's local trace function: 'exception' records
        the exception, 'line' feeds the frame's stepper and, in TRACE mode, 'return' ends it.
        ``profile(frame, event, arg)``: the ``sys.setprofile`` function (PROFILE mode).
        ``leave(kind, value)``: the top frame suspends ("yield") or exits ("return",
        "exception"; `value` is the returned value or the exception).

        These run for every call of the target, so they are written for speed: closures over
        local bindings, no lock (``CodeInfo.next_ids`` hands out idx and n together), one
        record per invocation written when it ends (``callret``/``callexc``; see
        ``Recorder.open_live`` for invocations still active at a flush) as a tuple of raw
        fields that is marshalled at flush time (no formatting on the hot path), the caller's
        line from a per-code table (``CodeInfo.lines``), and a fast path for the common case
        of one int/bool/None argument and a plain return.
        """
        rec = self
        out = self.out
        calls_append = out.calls.append
        codes_get = self.codes.get
        classify = self.classify
        live_gens = self.live_gens
        live_gens_get = live_gens.get
        args_of = self.values.args_lazy
        full_render = self.values.render
        args_summary = self.values.args_summary
        summary = self.values.summary
        slow = self.values.slow
        objs_get = self.values.summary_objs.get
        big = self.values.big
        nbig = -big
        small = min(big, RAW_ARG_BOUND)
        nsmall = -small
        addr_low = min(small, ADDR_LOW)  # bigger ints may be addresses: args() fingerprints them
        raw = RAW_TYPES
        limit = self.limit
        stack = ts.stack
        push = stack.append
        pop = stack.pop
        msg_limit = self.values.limit
        importing = self.importing
        eager_live = self.eager_live
        stopped = self.stopped
        light_run = self.cfg.light  # its T is only compared with the recording: no call lines
        write_t = not self.cfg.stops_only  # (config "stops_only": T is not written, so not built)
        current = [mode]
        tid = ts.tid
        zone = self.depth_zone
        bare_on = self.bare_on
        bare_depth = self.cfg.bare_depth
        bare_lim = ts.bare_lim  # (ThreadState: the hooks of a thread may be built again)
        if not ts.anchors:
            bare_lim[0] = bare_depth
        anchors = ts.anchors
        want = bool(self.cfg.values_of)  # a light run records the values of some invocations
        wanted_live = self.wanted_live
        flush_at = self.flush_at

        def args(info, values):
            """The arguments' (reprs, fp): rendered for the first `render_calls` calls of a
            function, then summarised (a function called thousands of times, or whose values
            are expensive to render, costs little per call; its FLT renders them in full). A
            call that renders an object from its state (``Values.slow``) counts twice: such a
            function's first `render_calls` / 2 calls are rendered."""
            if info.budget:
                s0 = slow[0]
                out = args_of(values)
                info.budget -= 1 if slow[0] == s0 else 2
                if info.budget <= 0:
                    info.budget = 0
                    info.render = summary
                return out
            return args_summary(values)

        def call_rec(frame, event, arg, info=None, unmade=False):
            nonlocal tid
            if len(stack) > zone[0]:  # near the recursion limit (depth.py)
                exc = rec.guard.check(frame, hooks)
                if exc is not None:
                    raise exc
            if info is None:  # (sys.monitoring passes the CodeInfo it already looked up)
                code = frame.f_code
                info = codes_get(_id(code))
                if info is None:
                    info = classify(code, frame)
                if info is False:
                    return None
            if info.is_gen and not unmade:
                e = live_gens_get(frame)
                if e is not None:
                    if stack and stack[-1][E_STEP] is not None:
                        stack[-1][E_STEP].ran = True  # its code runs during the caller's step
                    push(e)
                    e[E_EXC_AT] = -1
                    calls_append(("resume", e[E_IDX]))
                    st = e[E_STEP]
                    if st is not None:
                        st.resume(frame)
                    return attach(frame, e)
                if frame.f_lasti != info.first_lasti:
                    return None  # resumption of a generator that is not recorded
                if info.pending:  # numbered when it was created (``made``)
                    return start_made(frame, info)
            if stopped[0]:  # past a limit: only counted (no args rendered)
                rec.unrecorded(info.next_ids()[0])
                return None
            if stack:
                ce = stack[-1]
                caller = ce[E_IDX]
                st = ce[E_STEP]
                if bare_on[0] and st is None and info.plain and len(stack) > bare_lim[0]:
                    return push_bare(frame, info, ce)
                line = 0 if light_run else ce[E_INFO].lines[ce[E_FRAME].f_lasti]
            else:
                ce = None
                caller = -1
                line = 0
                st = None
                if tid < 0:
                    tid = rec.announce(ts)
            # the arguments are rendered first: that may run user code (__repr__)
            nargs = 0 if info.light else info.nargs  # a light run: no values (config "light")
            if nargs == 1:
                a = frame.f_locals[info.arg0]
                t = type(a)
                if (t is int and nsmall < a < addr_low) or t in raw:
                    a = (a,)  # the value itself (see E_ARGS); fp is "=" + its repr
                    fp = None
                elif importing[0]:
                    a, fp = info.unrendered  # during an import (see UNRENDERED)
                else:
                    a, fp = args(info, (a,)) if info.budget else args_summary((a,))
            elif nargs == 0:
                a = ()
                fp = None
            elif importing[0]:
                a, fp = info.unrendered
            else:
                loc = frame.f_locals
                try:
                    values = info.getter(loc)  # one C call (operator.itemgetter)
                except KeyError:
                    values = [loc[k] if k in loc else _UNBOUND for k in info.argnames]
                a, fp = args(info, values) if info.budget else args_summary(values)
            idx, n = info.next_ids()  # one C call: atomic across threads
            if idx >= limit[0]:
                rec.unrecorded(idx)
                return None
            if st is not None:
                st.add_callee(idx, info.code)
                if current[0] is PROFILE and ce[E_FRAME].f_trace is not st.wrapper:
                    rec.attach_local(ce[E_FRAME], ce, local)  # a debugger replaced our tracer
            e = [frame, idx, info, None, None, n, -1, caller, line, a, fp, info.state0]
            push(e)
            if e[E_STATE] or (eager_live[0] and not importing[0]):
                enter_slow(frame, e, info)
            if want and info.want is not None and n in info.want:
                wanted(frame, e, ce)
            if idx & _FLUSH_MASK == _FLUSH_MASK:
                flush_at(idx)
            m = current[0]
            if m is TRACE:
                if e[E_STEP] is None:
                    if _TRACE_LINES:
                        frame.f_trace_lines = False
                return local
            if m is PROFILE:
                ft = frame.f_trace
                if ft is None and e[E_STEP] is None:  # attach_local's common case, inline
                    frame.f_trace = local
                    if _TRACE_LINES:
                        frame.f_trace_lines = False
                else:
                    rec.attach_local(frame, e, local)
            return None

        def call_light(frame, event, arg):
            """TRACE mode in a light run (config "light"), which records no values and no call
            lines: the common call, a plain function called by a recorded frame that is not
            stepped, without ``call_rec``'s other cases (sympy's light run takes 0.89x the time
            it takes with ``call_rec`` alone); anything else goes to ``call_rec``, which writes
            the same records."""
            info = codes_get(_id(frame.f_code))
            if info is False:
                return None
            if info is None or not info.plain or not stack or stopped[0] or len(stack) > zone[0] \
                    or current[0] is not TRACE:
                return call_rec(frame, event, arg)
            ce = stack[-1]
            if ce[E_STEP] is not None:
                return call_rec(frame, event, arg)
            idx, n = info.next_ids()
            if idx >= limit[0]:
                rec.unrecorded(idx)
                return None
            e = [frame, idx, info, None, None, n, -1, ce[E_IDX], 0, (), None, FAST]
            push(e)
            if want and info.want is not None and n in info.want:
                wanted(frame, e, ce)
            if idx & _FLUSH_MASK == _FLUSH_MASK:
                flush_at(idx)
            if _TRACE_LINES:
                frame.f_trace_lines = False
            return local

        def call_bare(frame, event, arg):
            """TRACE mode in a run that records bare calls (config bare_after): once they have
            started, the common call, a plain function called deeper than bare_depth by a frame
            that is not stepped, is pushed bare at once; anything else goes to ``call_rec``."""
            info = codes_get(_id(frame.f_code))
            if info is False:
                return None
            if not bare_on[0] or info is None or not info.plain or len(stack) <= bare_lim[0] or stopped[0] \
                    or len(stack) > zone[0] or current[0] is not TRACE:
                return call_rec(frame, event, arg)
            ce = stack[-1]
            if ce[E_STEP] is not None:
                return call_rec(frame, event, arg)
            # push_bare's work, inline: one call less on a big program's common call (sympy's
            # probe run takes 0.96x the time it takes calling push_bare)
            idx, n = info.next_ids()
            if idx >= limit[0]:
                rec.unrecorded(idx)
                return None
            push([frame, idx, info, None, None, n, -1, ce[E_IDX], 0, info.bare[0], BARE_FP, FAST])
            if idx & _FLUSH_MASK == _FLUSH_MASK:
                flush_at(idx)
            if _TRACE_LINES:
                frame.f_trace_lines = False
            return local_bare

        def push_bare(frame, info, ce):
            """Record a bare call of `info` by the frame of entry `ce` (config bare_after): no
            values, no fingerprint, no caller line (BARE); it exits by the fast path."""
            idx, n = info.next_ids()
            if idx >= limit[0]:
                rec.unrecorded(idx)
                return None
            a, fp = info.bare
            e = [frame, idx, info, None, None, n, -1, ce[E_IDX], 0, a, fp, FAST]
            push(e)
            if idx & _FLUSH_MASK == _FLUSH_MASK:
                flush_at(idx)
            if current[0] is TRACE:  # (attach's common case, inline: call_bare's path)
                if _TRACE_LINES:
                    frame.f_trace_lines = False
                return local_bare
            return attach(frame, e)

        def wanted(frame, e, ce):
            """A light run records the values of invocation `e` (config values_of): its
            arguments and caller line now, its returned value when it returns (``wanted_live``:
            it exits by ``leave_rec``)."""
            info = e[E_INFO]
            if info.is_gen:
                return  # (bare calls, whose values are asked for, are plain)
            if info.nargs:
                loc = frame.f_locals
                e[E_ARGS], e[E_FP] = args_of([loc[k] if k in loc else _UNBOUND for k in info.argnames])
            if ce is not None:
                e[E_LINE] = ce[E_INFO].lines[ce[E_FRAME].f_lasti]
            wanted_live.add(e[E_IDX])
            if e[E_STATE] == FAST:
                e[E_STATE] = SLOW

        def made(frame, info, offset, key):
            """MONITOR: user code `frame` calls generator or coroutine function `info` at
            `offset`: the invocation is numbered now, in call order, and written as ``made``;
            its first start claims the number (``start_made``). `key`: what identifies its
            arguments (``Recorder.claim``)."""
            nonlocal tid
            if not stack or stack[-1][E_FRAME] is not frame:
                return  # the creator is not recorded: numbered when it starts
            if stopped[0]:
                return
            ce = stack[-1]
            line = 0 if light_run else ce[E_INFO].lines[offset]
            idx, n = info.next_ids()
            if idx >= limit[0]:
                rec.unrecorded(idx)
                return
            st = ce[E_STEP]
            if st is not None:
                st.add_callee(idx)
            if tid < 0:
                tid = rec.announce(ts)
            calls_append(("made", idx, info.cid, ce[E_IDX], tid, line))
            if info.watch is not None and info.watch.expects:
                rec.made_chains[idx] = ["%s#%d" % (x[E_INFO].func, x[E_N]) for x in stack]
            p = info.pending
            if p is None:
                p = info.pending = []
            p.append((idx, n, ce[E_IDX], line, key))
            if idx & _FLUSH_MASK == _FLUSH_MASK:
                flush_at(idx)

        def start_made(frame, info):
            """The first start of a generator: the number its creation took, if ``made`` saw it."""
            nonlocal tid
            p = rec.claim(info, frame)
            if p is None:  # created where no CALL event was seen (by code that is not the user's)
                return call_rec(frame, "call", None, info, True)
            idx, n, caller, line = p[0], p[1], p[2], p[3]
            if not stack and tid < 0:
                tid = rec.announce(ts)
            nargs = 0 if info.light else info.nargs
            if nargs == 0:
                a = ()
                fp = None
            elif importing[0]:
                a, fp = info.unrendered
            else:
                loc = frame.f_locals
                a, fp = args(info, [loc[k] if k in loc else _UNBOUND for k in info.argnames])
            e = [frame, idx, info, None, None, n, -1, caller, line, a, fp, info.state0]
            push(e)
            enter_slow(frame, e, info)
            return attach(frame, e)

        def enter_slow_rec(frame, e, info):
            """Entry of a frame that is not plain: a generator, an import, a watched func."""
            if info.is_gen:
                # a generator's call is written at once: it outlives batches (yield/resume)
                e[E_STATE] = WRITTEN
                calls_append(("call", e[E_IDX], info.cid, e[E_CALLER], tid, e[E_LINE], e[E_ARGS], e[E_FP]))
                live_gens[frame] = e
            if info.is_import:
                importing[0] += 1
            if info.watch is not None:
                rec.watch_enter(ts, e)
            if eager_live[0] and e[E_STEP] is None and not importing[0] and info.code.co_name != "<module>":
                rec.eager_enter(e)  # (or ends eager FLTs when their budget is spent)
            if info.is_test and e[E_CALLER] < 0:
                rec.test_enter(e)
            if info.plain and e[E_STEP] is None:
                e[E_STATE] = FAST  # slow only for the eager check: its exit takes the fast path
            elif e[E_STEP] is not None and (info.is_test or info.watch is not None):
                # the calls a test or an FLT asked for makes, and theirs to bare_depth, keep their
                # values (config bare_after; one started before bare calls did counts too; an
                # eager FLT does not: it may be abandoned, and a script's main() would move the
                # depth for the whole run)
                anchors.append((e, bare_lim[0]))
                bare_lim[0] = len(stack) - 1 + bare_depth

        def attach(frame, e):
            """TRACE: return the local tracer. PROFILE: install it on the frame. MONITOR: nothing."""
            m = current[0]
            if m is TRACE:
                if e[E_STEP] is None:
                    if _TRACE_LINES:
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
                        if not e[E_STATE] and (arg is not None or frame.f_lasti in e[E_INFO].returns()):
                            # fast path: a value returned by a frame with nothing else to do (None:
                            # a return instruction, not an exception leaving it)
                            pop()
                            if not write_t:
                                return local
                            t = type(arg)
                            info = e[E_INFO]
                            if (t is int and nbig < arg < big) or t in raw:
                                r = arg
                            elif e[E_FP] is BARE_FP:
                                r = BARE
                            elif importing[0]:
                                r = UNRENDERED
                            else:
                                r = objs_get(t) if info.render is summary else None  # summary(), inline
                                if r is None:
                                    r = info.render(arg)
                            if e[E_FP] is BARE_FP:  # (write_ret, inline: the common return of T)
                                calls_append(("bare", e[E_IDX], info.cid, e[E_CALLER], tid, r))
                            else:
                                calls_append(("callret", e[E_IDX], info.cid, e[E_CALLER], tid, e[E_LINE],
                                              e[E_ARGS], e[E_FP], r))
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
                    exc = arg[1] if arg[1] is not None else _normalized(arg[0], arg[2])
                    e[E_EXC] = exc
                    if e[E_STEP] is not None:
                        e[E_STEP].exception(exc)
                    if e[E_INFO].is_gen:
                        e[E_EXC_AT] = frame.f_lasti
                        if _TRACE_LINES:
                            frame.f_trace_lines = True  # a handler's first line clears the mark
            return local

        def write_ret(e, info, r):
            """Write the record of invocation `e`, which returned `r` (a value field): ``bare``
            for a bare call, else ``callret``. (``local``'s fast path does the same inline, and a
            bare call's common return is written by ``local_bare``.)"""
            if e[E_FP] is BARE_FP:
                calls_append(("bare", e[E_IDX], info.cid, e[E_CALLER], tid, r))
            else:
                calls_append(("callret", e[E_IDX], info.cid, e[E_CALLER], tid, e[E_LINE], e[E_ARGS], e[E_FP], r))

        def local_bare(frame, event, arg):
            """TRACE: the local trace function of a bare call (``call_bare``, ``push_bare``): its
            common exit, a value returned, writes the short ``bare`` record here; anything else
            is ``local``'s (which takes over the frame)."""
            if event == "return" and stack:
                e = stack[-1]
                if e[E_FRAME] is frame and not e[E_STATE] and current[0] is TRACE and (
                        arg is not None or frame.f_lasti in e[E_INFO].returns()):
                    pop()
                    if write_t:
                        t = type(arg)
                        calls_append(("bare", e[E_IDX], e[E_INFO].cid, e[E_CALLER], tid,
                                      arg if (t is int and nbig < arg < big) or t in raw else BARE))
                    return local_bare
            return local(frame, event, arg)

        def caught(frame, e):
            """A line after an exception in a generator: it was caught."""
            e[E_EXC_AT] = -1
            if e[E_STEP] is None and frame.f_trace is local:
                if _TRACE_LINES:
                    frame.f_trace_lines = False

        def exit_event(frame, arg):
            """A settrace/setprofile 'return' event of the top frame: return, yield or unwinding."""
            e = stack[-1]
            info = e[E_INFO]
            lasti = frame.f_lasti
            if info.is_gen and lasti in info.yield_offsets and not (arg is None and e[E_EXC_AT] == lasti):
                leave("yield", arg)
            elif arg is not None or lasti in info.returns():
                leave("return", arg)
            else:
                leave("exception", e[E_EXC])

        def leave_rec(kind, value):
            e = pop()
            idx = e[E_IDX]
            info = e[E_INFO]
            st = e[E_STEP]
            if kind == "return":
                t = type(value)
                if info.is_class:
                    r = "class " + info.code.co_name  # not the __class__ cell (CodeInfo.is_class)
                elif (t is int and nbig < value < big) or t in raw:
                    r = value
                elif want and idx in wanted_live:
                    r = full_render(value)
                elif e[E_FP] is BARE_FP:
                    r = BARE
                else:
                    r = UNRENDERED if importing[0] else info.render(value)
                if e[E_STATE] == WRITTEN:
                    calls_append(("ret", idx, r))
                else:
                    write_ret(e, info, r)
            elif kind == "yield":
                frame = e[E_FRAME]
                # once bare calls have started, what a generator yields is rendered only for its
                # FLT: T keeps how often it suspended (sympy's script yields 2,000 values)
                r = None
                if st is not None or not bare_on[0]:
                    if info.kind == "async generator":
                        value = _unwrap(value)
                    r = info.render(value)
                if st is not None:
                    st.suspend(frame, r)
                calls_append(("yield", idx, r, frame.f_lineno))
                if len(out.calls) > _FLUSH_MASK:
                    rec.flush()
                return
            else:
                line = e[E_FRAME].f_lineno
                if value is None:
                    name, msg = "<unknown>", "exception not observed"
                else:
                    t = value if isinstance(value, type) else type(value)
                    name = exc_type_name(t)
                    msg = "" if value is t else exc_message(value, msg_limit)
                    if value is not t:
                        line = _raise_line(value, e[E_FRAME], line)
                if e[E_STATE] == WRITTEN:
                    calls_append(("exc", idx, name, msg, line))
                else:
                    calls_append(("callexc", idx, info.cid, e[E_CALLER], tid, e[E_LINE], e[E_ARGS], e[E_FP],
                                  name, msg, line))
            if info.is_gen:
                live_gens.pop(e[E_FRAME], None)
            if info.is_import:
                importing[0] -= 1
            if anchors and anchors[-1][0] is e:
                bare_lim[0] = anchors.pop()[1]
            if want:
                wanted_live.discard(idx)
            if st is not None:
                if kind == "return":
                    st.returned = r if info.is_class else value if (type(value) is int and nbig < value < big) \
                        or type(value) in raw else full_render(value)
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
                    e = stack[-1]
                    if not e[E_STATE] and (arg is not None or frame.f_lasti in e[E_INFO].returns()):
                        # fast path, as in local()
                        pop()
                        if write_t:
                            t = type(arg)
                            info = e[E_INFO]
                            if (t is int and nbig < arg < big) or t in raw:
                                r = arg
                            elif e[E_FP] is BARE_FP:
                                r = BARE
                            elif importing[0]:
                                r = UNRENDERED
                            else:
                                r = objs_get(t) if info.render is summary else None
                                if r is None:
                                    r = info.render(arg)
                            write_ret(e, info, r)
                    else:
                        exit_event(frame, arg)
                    if stack:
                        e = stack[-1]
                        st = e[E_STEP]
                        if st is not None and e[E_FRAME].f_trace is not st.wrapper:
                            rec.attach_local(e[E_FRAME], e, local)  # a debugger replaced our tracer

        def set_mode(m):
            current[0] = m

        scope = self.scope
        if scope is None:
            # (eager FLTs step frames call_light does not look at; a light run has none)
            if mode is TRACE and light_run and not eager_live[0]:
                call = call_light
            elif mode is TRACE and rec.cfg.bare_after:
                call = call_bare
            else:
                call = call_rec
            enter_slow = enter_slow_rec
            leave = leave_rec
            if rec.only is not None:
                call = self._only_hook(call, ts, calls_append)
        else:
            call, profile, enter_slow, leave = self._scoped_hooks(
                ts, stack, call_rec, profile, enter_slow_rec, leave_rec, live_gens_get)

        hooks = Hooks()
        hooks.call = call
        hooks.local = local
        hooks.profile = profile
        hooks.leave = leave
        hooks.made = made
        hooks.set_mode = set_mode
        hooks.mode = current
        hooks.ts = ts
        hooks.last = None
        ts.hooks = hooks
        return hooks

    def _only_hook(self, inner, ts, calls_append):
        """The call hook of a run that records some functions only (config "only"; TRACE and
        PROFILE modes): a call of any other function costs one lookup and returns, except one
        that the frame being stepped makes itself, which is written as a ``stray`` record (the
        FLT would not show it); the others go to `inner`. A recorded invocation whose nearest
        user caller is a function not recorded gets a ``gap`` record: its recorded caller is not
        its direct one."""
        codes_get = self.codes.get
        classify = self.classify
        unlisted = self.unlisted
        gapped = self.gapped
        strayed = set()
        stack = ts.stack

        def user_caller(frame):
            """The nearest frame above `frame` that runs user code, and whether the run does not
            record its function; (None, False) for none."""
            f = frame.f_back
            while f is not None:
                k = _id(f.f_code)
                if codes_get(k):
                    return f, False
                if k in unlisted:
                    return f, True
                f = f.f_back
            return None, False

        def call_only(frame, event, arg):
            code = frame.f_code
            info = codes_get(_id(code))
            if info is None:
                info = classify(code, frame)
            if info is False:
                if stack and stack[-1][E_STEP] is not None and _id(code) in unlisted:
                    e = stack[-1]
                    if e[E_IDX] not in strayed and user_caller(frame)[0] is e[E_FRAME]:
                        strayed.add(e[E_IDX])  # (its first such call says it)
                        calls_append(("stray", e[E_IDX], unlisted[_id(code)]))
                return None
            gap = (not info.is_gen or frame.f_lasti == info.first_lasti) and user_caller(frame)[1]
            if not gap:
                return inner(frame, event, arg)
            ts.gap_now = True  # (its expectation, checked at entry, sees it: _watch_enter)
            try:
                result = inner(frame, event, arg)
            finally:
                ts.gap_now = False
            if stack and stack[-1][E_FRAME] is frame:
                gapped.add(stack[-1][E_IDX])
                calls_append(("gap", stack[-1][E_IDX]))
            return result
        return call_only

    def _scoped_hooks(self, ts, stack, call_rec, profile_rec, enter_slow_rec, leave_rec, live_gens_get):
        """The hooks of scoped recording (config "scope", watch.py): outside a recorded frame a
        call is recorded only when it is a caught invocation of a watched function (a root);
        inside one, everything is recorded as usual and every frame is stepped. A root's end
        flushes the records. Outside roots these return at once: that is what every call of a
        live session pays."""
        rec = self
        scope = self.scope
        gen = scope.gen
        skip = scope.skip
        busy = [False]  # a watch condition is being evaluated on this thread: record nothing
        codes_get = self.codes.get
        classify = self.classify

        def call(frame, event, arg, info=None, unmade=False):
            if stack:
                return call_rec(frame, event, arg, info, unmade)
            code = frame.f_code
            if _id(code) in skip:  # the common case: no watch names it (Scope.skip)
                return None
            if info is None:
                info = codes_get(_id(code))
                if info is None:
                    info = classify(code, frame)
                if info is False:
                    scope.skip_code(code, gen[0])
                    return None
            if info.wgen != gen[0]:
                scope.decide(info)
            if info.wroot is None or busy[0]:
                if info.is_gen and live_gens_get(frame) is not None:  # a recorded generator resumes
                    scope.rooted(1)
                    result = call_rec(frame, event, arg, info, unmade)
                    if not stack:
                        scope.rooted(-1)
                    return result
                return None
            if info.is_gen and live_gens_get(frame) is not None:
                scope.rooted(1)
            elif not scope.catch(info, frame, busy):  # (counts the root in Scope.live)
                return None
            result = call_rec(frame, event, arg, info, unmade)
            if not stack:
                scope.rooted(-1)  # not recorded after all (a limit)
            return result

        def profile(frame, event, arg):
            if stack:
                profile_rec(frame, event, arg)
            elif event == "call" and _id(frame.f_code) not in skip:
                call(frame, event, arg)

        def enter_slow(frame, e, info):
            enter_slow_rec(frame, e, info)
            if e[E_STEP] is None:
                try:
                    if not rec.out.over_limit:
                        rec._start_stepper(e, False)
                except Exception as exc:
                    rec.internal_error("tracing %s#%d" % (e[E_INFO].func, e[E_N]), exc)
            if e[E_STATE] == FAST:
                e[E_STATE] = SLOW  # every exit goes through leave (below)

        def leave(kind, value):
            leave_rec(kind, value)
            if not stack:
                scope.rooted(-1)
                rec.flush(True)  # a root ended (or suspended): readers see it now

        return call, profile, enter_slow, leave

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
                if _TRACE_LINES:
                    frame.f_trace_lines = False
            elif ft is not local and not isinstance(ft, Chain):
                frame.f_trace = Chain(local, ft)
            return
        if isinstance(ft, Chain) and ft.ours is local:
            st.wrapper = ft
            return
        chain = Chain(local, None if ft is local else ft)
        frame.f_trace = chain
        if _TRACE_LINES:
            frame.f_trace_lines = True
        st.wrapper = chain

    def claim(self, info, frame):
        """The pending number (``made``) of the generator whose first start runs `frame`: the
        oldest one whose key is one of the frame's arguments (by identity), or that was made
        without arguments; None when none fits (then it is numbered now).

        The CALL event that numbers a generator at creation only shows its first argument
        (``key``: a weak reference to it, the object itself when it takes none, or _NO_ARG), and
        the generator object is not reachable from there; so two generators of one function made
        with the same first argument object and started in the other order swap numbers."""
        with self._lock:
            pending = info.pending
            if not pending:
                return None
            p = pending[0]
            key = p[4]
            if key is _NO_ARG or (type(key) is tuple and info.nargs and info.argkeys[0][0] != "*"
                                  and frame.f_locals.get(info.arg0, _NO_ARG) is key[0]):
                del pending[0]  # the common case: the oldest one, its first argument first
                return p
            loc = None
            for i, p in enumerate(pending):
                key = p[4]
                if key is not _NO_ARG:
                    obj = key() if type(key) is weakref.ref else key[0]
                    if obj is None and type(key) is weakref.ref:
                        continue
                    if loc is None:
                        loc = _arg_values(info, frame)
                    if not any(v is obj for v in loc):
                        continue
                del pending[i]
                return p
            return None

    def unrecorded(self, idx):
        """A call that is not recorded (past max_calls, or after max_bytes was reached)."""
        with self._lock:
            self.stopped[0] = True
            self.check_frames = True
            if self.truncated is None:
                self.truncated = "max_bytes" if self.out.over_limit else "max_calls"
                self.trunc_at = idx
                self.out.calls.append(("trunc", idx))
            elif idx < self.trunc_at:  # another thread took a smaller idx meanwhile
                self.trunc_at = idx
            self.unrecorded_calls += 1

    def calls_recorded(self):
        """How many call records were written (at the end of the run)."""
        return self.trunc_at if self.truncated else next(self._next_idx)

    def open_live(self):
        """Queue a ``call`` record for every live invocation whose call is not written yet.

        Runs before each batch is written, so that a batch never names an invocation (as a
        caller, or in an FLT) whose call record is in no batch: an invocation still running
        when its first batch is written is written "open" and its outcome follows later as
        ``ret``/``exc``. Below an entry already written, every entry of that stack was written
        too (it was live at that earlier flush), so the walk stops there; generator entries are
        written at entry and do not stop it.
        """
        calls_append = self.out.calls.append
        for ts in list(self.threads.values()):
            stack = ts.stack
            for e in stack[::-1]:
                if e[E_STATE] == WRITTEN:
                    if e[E_INFO].is_gen:
                        continue
                    break
                e[E_STATE] = WRITTEN
                calls_append(("call", e[E_IDX], e[E_INFO].cid, e[E_CALLER], ts.tid, e[E_LINE], e[E_ARGS],
                              e[E_FP]))

    def flush_at(self, idx):
        """Invocation `idx` completes a batch (idx & _FLUSH_MASK == _FLUSH_MASK): write it; and
        past the first `bare_after` calls (config), bare calls start."""
        self.flush()
        if idx >= self.cfg.bare_after > 0:
            self.bare_on[0] = True

    def flush(self, wait=False):
        """Write the queued records; once max_bytes is reached, stop recording calls. `wait`:
        when another thread is writing, wait for it and write (else leave them for the next)."""
        try:
            self.open_live()
        except Exception as exc:
            self.internal_error("writing open calls", exc)
        try:
            self.out.flush(wait)
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

    def watch_enter(self, ts, e):
        """Entry of a watched func: check expectations, evaluate conditions, maybe start an FLT."""
        try:
            self._watch_enter(ts, e)
        except Exception as exc:
            self.internal_error("checking %s#%d at entry" % (e[E_INFO].func, e[E_N]), exc)

    def _watch_enter(self, ts, e):
        info = e[E_INFO]
        w = info.watch
        n = e[E_N]
        frame = e[E_FRAME]
        diverged = False
        exp = w.expects.get(n)
        chain = self.made_chains.pop(e[E_IDX], None)  # a generator's creator's chain
        if exp is not None:
            exp.seen = True
            fp = _fp_text(e)  # only expected invocations need the fingerprint's text
            if chain is None:
                chain = ["%s#%d" % (x[E_INFO].func, x[E_N]) for x in ts.stack[:-1]]
                if ts.gap_now or (self.gapped and any(x[E_IDX] in self.gapped for x in ts.stack)):
                    # (config "only") called through a function not recorded: not the chain
                    chain.append("(a function not recorded)")
            if chain != exp.chain or (fp != exp.args_fp and exp.args_fp != BARE_FP):
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
                if self._test(sel.code, frame, None, sel.errors):
                    sel.taken += 1
                    traced = True
                    if sel.live is not None:  # an editor's watch (add_watch) caught it
                        sel.live.fids.append("%s#%d" % (info.func, n))
        if not traced:
            for sel in w.sel_exit:
                if sel.max is None or sel.taken < sel.max:
                    buffered = True
            if w.cond_line:
                buffered = True  # stepped to see its lines; the FLT is dropped at exit
        if traced or buffered:
            self._start_stepper(e, buffered)
            if w.cond_line:
                self._arm_lines(e[E_STEP], w.cond_line, n)

    def eager_enter(self, e):
        """trace_all: trace this invocation too, or end eager FLTs when their budget is spent."""
        try:
            eager = self.eager
            if eager[0] <= 0 or self.out.over_limit:
                self._end_eager()
            elif len(eager) > 1:  # with a time budget: starting an FLT counts too (snapshot, args)
                t0 = _clock()
                self._start_stepper(e, False, None, EAGER_OVERDRAFT)
                spend(eager, _clock() - t0)
            else:
                self._start_stepper(e, False)
        except Exception as exc:
            self.internal_error("tracing %s#%d" % (e[E_INFO].func, e[E_N]), exc)

    def test_enter(self, e):
        """trace_tests: a test runner (not user code) called a test function: write the node id
        pytest gave it (``test``), and record its FLT while the tests' stepping time lasts
        (config trace_tests_ms; a test's FLT, once started, is recorded to its end)."""
        try:
            node = _pytest_node_id(e[E_FRAME])
            if node is not None:
                self.out.calls.append(("test", e[E_IDX], node))
        except Exception as exc:
            self.internal_error("reading the node id of %s#%d" % (e[E_INFO].func, e[E_N]), exc)
        try:
            budget = self.tests_budget
            if e[E_STEP] is None and not self.out.over_limit and budget[0] > 0:
                t0 = _clock()
                self._start_stepper(e, False, budget, TESTS_OVERDRAFT)
                spend(budget, _clock() - t0)
        except Exception as exc:
            self.internal_error("tracing %s#%d" % (e[E_INFO].func, e[E_N]), exc)

    def _end_eager(self):
        """The eager budget is spent: entries of plain code objects take their fast path again."""
        self.eager[0] = 0
        self.eager_live[0] = False

    def _start_stepper(self, e, buffered, budget=None, abandon=0.0):
        """Step invocation `e` (its FLT); `budget`: the [steps, seconds] its steps count down
        (default: the eager FLTs', when there are any); `abandon`: for an eager or test FLT, by
        how many seconds its budget may be overdrawn before it is dropped (stepper.py)."""
        if buffered and self.eager is not None and self.eager[0] > 0:
            buffered = False  # eager FLTs keep every FLT anyway
        info = e[E_INFO]
        if info.facts is None:
            info.facts = CodeFacts(info.code)
        if buffered:
            sink = []
        else:
            self._send_stmts(info)
            sink = self.out.flt
        if e[E_STATE] == FAST:
            e[E_STATE] = SLOW
        e[E_STEP] = Stepper(e[E_IDX], info.facts, e[E_FRAME], sink, self.values,
                            self.cfg.max_steps, buffered, self.flush, self.internal_error,
                            self.eager if budget is None else budget, abandon)
        e[E_STEP].counter = self.next_idx
        if self.stepper_started is not None:
            self.stepper_started(e)

    def next_idx(self):
        """The idx the next invocation will get (read without taking it)."""
        r = repr(self._next_idx)  # "count(N)"
        return int(r[6:-1])

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
            if w.live and st is not None:
                self.flush()  # an editor's watch: its FLT is readable as soon as it ends
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

    def _arm_lines(self, st, conds, n):
        """Evaluate the line conditions `conds` of invocation n (stepped by `st`) each time one of
        their statements starts, until each has held once (n is then a hit)."""
        keys = st.facts.keys
        at = {}
        for cond in conds:
            at.setdefault(keys.get(cond.line, cond.line), []).append(cond)
        held = set()

        def on_step(key, frame):
            for cond in at.get(key, ()):
                if cond.id not in held and self._evaluate(cond, frame, n, None):
                    held.add(cond.id)
                    cond.visits.append([key, st.visits.get(key, 0)])  # the step of the FLT it held at

        st.on_step = on_step

    def _locals(self, frame, extra):
        loc = dict(frame.f_locals)
        if extra:
            loc.update(extra)
        return loc

    def _test(self, code, frame, extra, errors=None):
        try:
            return bool(eval(code, frame.f_globals, self._locals(frame, extra)))
        except Exception as exc:
            if errors is not None and len(errors) < 5:
                errors.append("%s: %s" % (exc_type_name(type(exc)), exc_message(exc, 200)))
            return False

    def _evaluate(self, cond, frame, n, extra):
        """Evaluate `cond` for invocation n; a hit is recorded. Returns whether it held."""
        cond.evaluated += 1
        try:
            ok = bool(eval(cond.code, frame.f_globals, self._locals(frame, extra)))
        except Exception as exc:
            if len(cond.errors) < 5:
                cond.errors.append([n, "%s: %s" % (exc_type_name(type(exc)), exc_message(exc, 200))])
            return False
        if ok:
            cond.hits.append(n)
        return ok

    # -- end of run -------------------------------------------------------------------------------

    def finish_unfinished(self, closing=False):
        """Close the FLTs of frames still live when the run ends (kind "unfinished").

        `closing`: the interpreter goes on to its normal exit, which closes the generators and
        coroutines still suspended (GeneratorExit thrown in at their ``yield``) after the
        recording ended: they are written closed there (``exc`` GeneratorExit at the line of
        their last yield, FLT kind "exception"). A run ended by ``os._exit`` or stopped closes
        nothing: they stay unfinished.
        """
        self.open_live()
        seen = set()
        entries = []
        running = set()
        for ts in list(self.threads.values()):
            entries.extend(ts.stack)
            running.update(id(e) for e in ts.stack)
        entries.extend(self.live_gens.values())
        for e in entries:
            kind = "unfinished"
            if closing and e[E_INFO].is_gen and id(e) not in running and id(e) not in seen:
                seen.add(id(e))
                kind = "exception"
                self.out.calls.append(("exc", e[E_IDX], "GeneratorExit", "", e[E_FRAME].f_lineno))
            st = e[E_STEP]
            if st is None or id(st) in seen:
                continue
            seen.add(id(st))
            st.finish(None, kind)
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


def _normalized(t, tb):
    """The exception of an 'exception' event that carries no instance (3.8-3.10 report a
    ``GeneratorExit`` thrown in by ``close()`` so): an instance of a builtin type with the
    event's traceback (constructing one runs no user code), else the type itself."""
    if type(t) is type and getattr(t, "__module__", None) == "builtins" and issubclass(t, BaseException):
        try:
            exc = t()
            exc.__traceback__ = tb
            return exc
        except Exception:
            pass
    return t


def _raise_line(exc, frame, line):
    """The line of `frame` where `exc` was raised or propagated into it, as its traceback says.

    A frame's current line is not that line once a ``finally`` block or a handler that re-raises
    ran: it is their last line. The traceback's entry for the frame keeps the raising line; as the
    exception unwinds the frame, that entry is the traceback's head."""
    tb = getattr(exc, "__traceback__", None)
    while tb is not None:
        if tb.tb_frame is frame:
            return tb.tb_lineno
        tb = tb.tb_next
    return line


class _NoArg:
    def __repr__(self):
        return "<no argument>"


_NO_ARG = _NoArg()  # the key of a generator made without arguments (Recorder.claim)


def arg_key(arg0):
    """How ``Recorder.claim`` recognises a generator's first argument: a weak reference when
    the object takes one (the probe must not keep the program's objects alive), else a 1-tuple
    holding it (ints, strings, tuples, lists: nothing the program can see die)."""
    try:
        return weakref.ref(arg0)
    except TypeError:
        return (arg0,)


def _arg_values(info, frame):
    """The argument values of a generator's frame at its first start, and the items of its
    *args and the values of its **kwargs."""
    loc = frame.f_locals
    out = []
    for k in info.argkeys:
        name = k.lstrip("*")
        if name not in loc:
            continue
        v = loc[name]
        if k.startswith("**") and type(v) is dict:
            out.extend(v.values())
        elif k.startswith("*") and type(v) is tuple:
            out.extend(v)
        else:
            out.append(v)
    return out


def _fp_text(e):
    """The argument fingerprint of an entry as a string (E_FP: see the module docstring)."""
    fp = e[E_FP]
    if fp is None:
        return "=" + ", ".join(a if type(a) is str else repr(a) for a in e[E_ARGS])
    return fp_text(fp)


# the pytest frames that hold the test item calling a test function: its own call of a test
# function (local ``pyfuncitem``), and a unittest TestCase's item running it (local ``self``)
_PYTEST_CALLERS = {"pytest_pyfunc_call": "pyfuncitem", "runtest": "self"}


def _pytest_node_id(frame):
    """The node id pytest gave the test that `frame` runs (``tests/test_x.py::test_f[a-1]``), read
    from the test item in one of the runner's frames below it; None when pytest is not the
    runner. The id is read from the item's ``_nodeid`` slot itself, so no code runs."""
    f = frame.f_back
    for _ in range(12):
        if f is None:
            return None
        name = _PYTEST_CALLERS.get(f.f_code.co_name)
        if name is not None and "_pytest" in f.f_code.co_filename:
            item = f.f_locals.get(name)
            try:
                node = object.__getattribute__(item, "_nodeid")
            except AttributeError:
                return None
            return node if type(node) is str else None
        f = f.f_back
    return None


def _describe_call(chain, fp):
    """How a divergence shows one side: the callers (outermost first) and the args fingerprint."""
    return "callers %s, args %s" % (" > ".join(chain) if chain else "(none)", fp)


def _no_value(v):
    """A light run's rendering of a value it does not record (config "light")."""
    return None


class _Unbound:
    def __repr__(self):
        return "<unbound>"


_UNBOUND = _Unbound()


def _thread_name(ident):
    for t in threading.enumerate():
        if t.ident == ident:
            return t.name
    return "Thread-%d" % ident
