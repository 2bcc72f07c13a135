"""The statement trace (τ) of one invocation: steps, ΔS, callees, loop positions, events.

A ``Stepper`` is fed by an engine with the line events of one frame and with its
suspensions, resumptions, exceptions and exit. It owns everything PROTOCOL.md says about
``step`` records:

- Step boundaries. A line event maps to its statement key (``source.Scope.keys``). A new
  step starts when the key changes, or when the same statement is executed again, which shows
  as a backward jump (``f_lasti`` going down) onto the same statement outside any of its
  comprehensions (3.12+ inlines comprehensions, whose loops jump backwards inside one
  statement). A second line event on the very same line with no other line event in between
  also starts a step: the interpreter reports a line again only after a backward jump, which in
  a one-line loop (``for y in ys: total += y``) lands on a header placed after the instruction
  the step started at. A continuation line, or a return to the first line within the same
  evaluation (offsets only grow within one evaluation), stays in the step.
- ΔS, attributed exactly: when a step ends (the next statement starts, or the frame
  suspends or exits) the frame's variables are compared with the snapshot taken when the
  step began, so a change belongs to the statement that made it (``changes.Tracker``, by
  object identity; a value is walked only where the step could have changed it: effects.py),
  so ``xs.append(1)`` on a long list is a change even when its repr is truncated.
- Loops: ``loop`` lists the enclosing loops of the statement with iteration counts
  (``source.Scope.loops``). Arriving at a loop from outside sets its count to 1; reaching
  its header again from inside its body counts one more iteration (so the final, exiting
  check of a loop that ran n times is n+1); arriving backwards (in source order) at a body
  statement from inside the same innermost loop without passing the header (``while True:``
  on 3.8/3.9, ``continue``) counts one more too; leaving a ``with`` body revisits the
  ``with`` line and is not an iteration.
- ev: ``resume`` on the first step after a generator resumed, ``yield`` on the statement
  that suspended it, ``raise`` when an exception was raised in or propagated into the
  statement (StopIteration and StopAsyncIteration, which end iterations, are not reported).
- Branch outcomes: ev ``test`` on an ``if``/``elif``/``while``/``case`` line says whether its
  test entered the body, told from the next statement executed (inside the body or not; the
  frame returning from the header: not), and on an ``assert``, whether it passed. Nothing is
  evaluated again; a test that raised or suspended the frame has no outcome.
"""

import dis
import re
import sys
# the eager and test FLTs' budgets count this thread's CPU time, not the wall clock, so that a
# busy machine does not spend them for other processes (read on stepped lines only)
try:
    from time import thread_time as _clock
except ImportError:  # Python 3.6: the process's CPU time
    from time import process_time as _clock
# a frame's f_trace_lines (3.7+); on 3.6 a local tracer gets every line of its frame (and
# ignores those of frames not stepped)
_TRACE_LINES = sys.version_info >= (3, 7)

from . import source, usercode
from .source import ASSERT as _ASSERT
from . import effects
from .changes import GLOBAL_DEPTH, K_PLAIN, Tracker
from .values import _OPAQUE, exc_message  # noqa: F401 (also for recorder, runner, execute)

EMPTY = ()
_NO_EVENTS = {}  # shared, never written to: a step with events gets its own dict
_FLUSH_EVERY = 4095  # steps between flushes of the FLT batch (a mask)
_NEWLOCALS = 0x2  # every function's code has it; module and class bodies do not
_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_QUIET = (StopIteration, StopAsyncIteration)
_TAKEN = {"test": True}  # the ev of a step whose only event is its test's outcome (never written to)
_NOT_TAKEN = {"test": False}

# Called as stop_hook(stepper, key) each time a step starts (after ``visits`` counted it), when
# a `stops` entry has a statement to run in the probe itself (execute.arm sets it); else None.
stop_hook = None


def exc_type_name(t):
    """An exception type as a traceback shows it (module-qualified unless builtin/__main__)."""
    mod = getattr(t, "__module__", "builtins")
    name = getattr(t, "__qualname__", getattr(t, "__name__", "?"))
    return name if mod in ("builtins", "__main__") else "%s.%s" % (mod, name)


# How far past their time budget (seconds) the eager FLTs (a 5 ms budget) and the tests' FLTs
# (250 ms) still being recorded may go: then they are abandoned (their FLTs are dropped; a
# command that needs one re-runs). Without it, an FLT started within the budget could cost any
# time: a conftest hook stepping over pytest's big config object, or a main() looping over the
# whole run. The tests' overdraft is as short as the eager FLTs': an FLT that overruns it is
# usually one that would have been abandoned all the same, so a longer one buys no FLT and only
# adds to the test run's time.
EAGER_OVERDRAFT = 0.05
TESTS_OVERDRAFT = 0.05


def spend(budget, seconds):
    """Count `seconds` of eager-FLT work down from ``budget`` ([steps, seconds left], config
    trace_all with max_ms); once none is left, no eager FLT starts any more (``budget[0] = 0``)."""
    budget[1] -= seconds
    if budget[1] <= 0:
        budget[0] = 0


class CodeFacts:
    """The per-code-object facts a stepper needs (computed once per code object)."""

    __slots__ = ("keys", "texts", "loops", "with_bodies", "comp_spans", "tests", "_positions", "code", "argnames",
                 "globals", "watched", "_mentioned", "_effects")

    def __init__(self, code):
        self.code = code
        self.argnames = tuple(k.lstrip("*") for k in usercode.argnames(code))
        scope = source.step_scope(code)
        self.globals = ()  # names declared ``global`` (a module's own are its locals)
        if scope is None:
            self.keys, self.texts, self.loops, self.with_bodies, self.comp_spans = {}, {}, {}, {}, {}
            self.tests = {}
        else:
            if scope.globals and code.co_name != "<module>":
                self.globals = tuple(scope.globals)
            self.keys = scope.keys
            self.texts = scope.texts
            self.loops = scope.loops
            self.with_bodies = scope.with_bodies
            self.comp_spans = scope.comp_spans
            self.tests = scope.tests
        self._positions = None
        self.watched = None  # module-level objects the code names (``module_names``)
        self._mentioned = {}
        self._effects = {}  # key -> effects.Effects of that statement

    def module_names(self, g):
        """The names of the module-level objects this function's code names (in `g`, its
        globals, when it is first stepped): their changes are part of what it does (shown as
        ``global NAME``). Not modules, functions, classes or other callables, nor the names it
        declares ``global``; none for module and class bodies, whose names are their locals."""
        if self.watched is None:
            code = self.code
            out = []
            if code.co_flags & _NEWLOCALS:
                for name in code.co_names:
                    if name in g and name not in self.globals and name not in out:
                        v = g[name]
                        t = type(v)
                        if t not in _OPAQUE and not issubclass(t, type) and not callable(v):
                            out.append(name)
            self.watched = tuple(out)
        return self.watched

    def touched(self, key, loc, g, tracker):
        """The roots a step of statement `key` may have changed in place (effects.py), or None
        when it may have changed any."""
        eff = self._effects.get(key)
        if eff is None:
            eff = self._effects[key] = effects.of_statement(self.texts.get(key))
        if eff.everything:
            return None
        out = set(eff.touched)
        roots = tracker.roots
        for name in eff.indexed:  # subscripting anything but plain data may insert (defaultdict)
            r = roots.get(name)
            if r is not None and r[1] is not None and r[1].kind != K_PLAIN:
                out.add(name)
        if eff.called:
            owners = effects.resolve(eff, loc, g)
            if owners is None:
                return None
            if owners:
                out.update(tracker.holding(owners))
        out.update(["global " + n for n in out])
        return out

    def mentioned(self, key):
        """The names statement `key` uses, in order (the roots its changes are shown under
        first when several reach one object), each also as ``global NAME``."""
        out = self._mentioned.get(key)
        if out is None:
            names = []
            for n in _NAME.findall(self.texts.get(key) or ""):
                if n not in names:
                    names.append(n)
            out = self._mentioned[key] = tuple(names) + tuple(["global " + n for n in names])
        return out

    def statements(self):
        """line -> text for the ``stmts`` record: every statement of this code object (int keys)."""
        lines = {ln for _, ln in dis.findlinestarts(self.code) if ln}
        if self.keys and self.code.co_firstlineno not in self.keys:
            lines.discard(self.code.co_firstlineno)  # the ``def`` line of a function
        out = {}
        for ln in sorted(lines):
            key = self.keys.get(ln, ln)
            if key not in out:
                text = self.texts.get(key)
                if text is None:
                    text = source.source_line(self.code.co_filename, key)
                out[key] = text
        return {k: out[k] for k in sorted(out)}

    def in_comprehension(self, key, lasti):
        """True when the instruction at `lasti` lies inside a comprehension of statement `key`."""
        spans = self.comp_spans.get(key)
        if not spans:
            return False
        if self._positions is None:
            self._positions = source.positions(self.code)
        pos = self._positions.get(lasti)
        if pos is None or pos[0] is None or pos[2] is None:
            return False
        line, col = pos[0], pos[2]
        for l1, c1, l2, c2 in spans:
            if (l1, c1) <= (line, col) < (l2, c2):
                return True
        return False


class Stepper:
    """The statement trace of one invocation (see the module docstring)."""

    def __init__(self, idx, facts, frame, sink, values, max_steps, buffered, flush, on_error, budget=None,
                 abandon=0.0):
        self.idx = idx
        self.facts = facts
        self.keys = facts.keys
        self.tests = facts.tests    # key -> the body its test enters (source.Scope.tests)
        self.sink = sink            # list receiving the records (the FLT batch or a private buffer)
        self.buffered = buffered    # True: an exit condition decides whether the FLT is kept
        self.flush = flush          # writes the FLT batch (called every _FLUSH_EVERY steps)
        self.render = values.render
        self.value = values.value
        self.max_steps = max_steps
        self.budget = budget        # [steps left] or [steps, seconds left] of eager FLTs (trace_all)
        self.timed = budget is not None and len(budget) > 1  # line() counts its time down
        # an eager or test FLT: abandoned once its budget is overdrawn by `abandon` seconds (0:
        # never)
        self.abandon = abandon if self.timed else 0.0
        self.abandoned = False
        self.msg_limit = values.limit
        self.on_error = on_error    # reports an internal error (recorder.internal_error)
        self.failed = False
        self.key = None             # the current statement's key (None before the first line)
        self.lasti = -1             # last instruction offset seen in the current step
        self.lineno = None          # line of the last line event (None after a resumption or jump)
        self.callees = EMPTY        # invocations started during the step (a list once there is one)
        self.ev = _NO_EVENTS        # the step's events (a new dict once there is one)
        self.loop = EMPTY
        self.counts = {}
        self.steps = 0
        self.dropped = 0
        self.tracker = Tracker(values, facts.argnames[0] if facts.argnames else None)
        # the program's own code ran during the step (a callee that is not pure, a generator
        # resumed), or the frame resumed: every root's value is compared, not only those the
        # statement names (effects.py)
        self.ran = True
        self.counter = None  # () -> the next invocation's idx (Recorder.next_idx), or None
        self.visits = {}            # key -> steps started at that statement (for debugger.hit)
        self.wrapper = None         # the f_trace wrapper installed for this frame (profile engine)
        self.returned = None        # the rendered return value (recorder.leave), for the end record
        self.on_step = None         # on_step(key, frame) when a step starts (line conditions), or None
        self.globals = facts.globals  # names declared ``global``: their changes are the frame's too
        self._take_snapshot(frame)
        sink.append(("begin", idx, self._args(frame)))

    # -- events ----------------------------------------------------------------------------

    # The public methods never raise into the target: an internal error is reported once and
    # the stepper stops (its FLT ends as "unfinished").

    def line(self, frame):
        """A line event in the frame (runs for every line: kept flat)."""
        if self.timed:
            self._timed_line(frame)
            return
        if self.failed:
            return
        try:
            lineno = frame.f_lineno
            key = self.keys.get(lineno, lineno)
            lasti = frame.f_lasti
            if key == self.key:
                last = self.lasti
                self.lasti = lasti
                same_line = lineno == self.lineno
                self.lineno = lineno
                # a second event on the very same line with no other line in between follows a
                # backward jump (a one-line loop: ``for y in ys: total += y``), even when the
                # loop's header lies after the instruction the step started at
                if (lasti > last and not same_line) or self.facts.in_comprehension(key, lasti):
                    return
            else:
                self.lasti = lasti
                self.lineno = lineno
            if self.key is not None:
                if self.key in self.tests:
                    self._test(key)
                self._close(frame)
            self._open(key)
            if self.on_step is not None:
                self.on_step(key, frame)
        except Exception as exc:
            self._fail(exc)

    def _timed_line(self, frame):
        """``line`` for an eager FLT with a time budget: counts its time down (budget[1])."""
        t0 = _clock()
        self.timed = False
        try:
            self.line(frame)
        finally:
            self.timed = True
            spend(self.budget, _clock() - t0)
            if self.abandon and self.budget[1] < -self.abandon and not self.failed:
                self.failed = self.abandoned = True  # finish() writes the end as "abandoned"
                self.timed = False  # line() returns at once from now on
                if self.wrapper is None:  # (not a debugger's tracer chained with ours: it needs lines)
                    if _TRACE_LINES:
                        frame.f_trace_lines = False

    def jump_line(self, frame, lineno, target):
        """A same-line backward jump seen through sys.monitoring (settrace reports a line event)."""
        if self.failed:
            return
        try:
            self._jump_line(frame, lineno, target)
        except Exception as exc:
            self._fail(exc)

    def exception(self, exc):
        """An exception was raised in, or propagated into, the current statement."""
        if self.key is None or self.failed or isinstance(exc, _QUIET):
            return
        self._event("raise", [exc_type_name(type(exc)), exc_message(exc, self.msg_limit)])

    def suspend(self, frame, value_repr):
        """The frame yielded `value_repr` (the current statement suspended it)."""
        if self.key is not None and not self.failed:
            self._event("yield", value_repr)
            try:
                self._close(frame)
            except Exception as exc:
                self._fail(exc)
            self.key = None  # written: a close while suspended adds no step (resume sets the key)

    def resume(self, frame):
        """The generator resumed: a new step of the statement it suspended in."""
        if self.failed:
            return
        key = self.keys.get(frame.f_lineno, frame.f_lineno)
        self.lasti = frame.f_lasti
        self.lineno = None
        self.key = key
        try:  # what other code changed while the frame was suspended is not this step's doing
            self.tracker.changes(self._live(frame))
        except Exception as exc:
            self._fail(exc)
            return
        self.visits[key] = self.visits.get(key, 0) + 1
        self._event("resume", True)
        if stop_hook is not None:
            stop_hook(self, key)

    def finish(self, frame, kind):
        """The frame exits (kind "return" or "exception"), or the run ended ("unfinished")."""
        if self.sink is None:
            return
        if self.timed:  # an eager FLT's end counts against its budget, as its start and lines do
            t0 = _clock()
            try:
                self._finish(frame, kind)
            finally:
                spend(self.budget, _clock() - t0)
            return
        self._finish(frame, kind)

    def _finish(self, frame, kind):
        """``finish``'s work."""
        if self.abandoned:
            self.sink.append(("end", self.idx, "abandoned", self.dropped))
            return
        if self.failed:
            kind = "unfinished"
        elif self.key is not None:
            try:
                if self.key in self.tests and kind != "unfinished":
                    self._test(None)
                if frame is not None:
                    self._close(frame)
                else:
                    self._emit()
            except Exception as exc:
                self._fail(exc)
                kind = "unfinished"
        self.key = None
        if self.returned is not None and kind == "return":
            self.sink.append(("end", self.idx, kind, self.dropped, self.returned))
        else:
            self.sink.append(("end", self.idx, kind, self.dropped))

    def add_callee(self, idx, code=None):
        """Invocation `idx` (of `code`, when known) started during the current statement."""
        if self.callees is EMPTY:
            self.callees = [idx]
        else:
            self.callees.append(idx)
        if not self.ran and (code is None or not effects.pure_code(code)):
            self.ran = True

    def _test(self, nxt):
        """Record the outcome of the current step's test, `nxt` being the next statement's key
        (None: the frame ends in this step); see the module docstring."""
        body = self.tests[self.key]
        ev = self.ev
        if body is _ASSERT:
            if ev is _NO_EVENTS or "raise" not in ev:
                taken = True
            elif ev["raise"][0] == "AssertionError":
                taken = False
            else:
                return
        elif ev is not _NO_EVENTS and ("raise" in ev or "yield" in ev):
            return
        else:
            taken = nxt is not None and body[0] <= nxt <= body[1]
        if ev is _NO_EVENTS:
            self.ev = _TAKEN if taken else _NOT_TAKEN
        else:
            ev["test"] = taken

    def _event(self, name, value):
        if self.ev is _NO_EVENTS:
            self.ev = {}
        self.ev[name] = value

    def visits_at(self, frame, line):
        """Steps started at statement `line`, counting the line event now being delivered.

        None when that event is not on `line`. A debugger's tracer may see the event before or
        after this stepper does (settrace/setprofile engines call the probe first; under
        sys.monitoring a settrace debugger, tool 7, is called before the probe's tool): the
        stepper has processed it when it already sits at that statement and instruction.
        """
        key = self.keys.get(frame.f_lineno, frame.f_lineno)
        if key != line:
            return None
        count = self.visits.get(line, 0)
        lasti = frame.f_lasti
        if key == self.key and lasti == self.lasti:
            return count  # already processed
        if key != self.key:
            return count + 1
        if self.facts.in_comprehension(key, lasti):
            return count
        if lasti > self.lasti and frame.f_lineno != self.lineno:
            return count
        return count + 1

    def _fail(self, exc):
        self.failed = True
        self.on_error("stepping invocation %d" % self.idx, exc)

    # -- steps -----------------------------------------------------------------------------

    def _jump_line(self, frame, lineno, target):
        self.lineno = None
        key = self.keys.get(lineno, lineno)
        if key == self.key and self.facts.in_comprehension(key, target):
            self.lasti = target
            return
        self.lasti = target
        if self.key is not None:
            if self.key in self.tests:
                self._test(key)
            self._close(frame)
        self._open(key)
        if self.on_step is not None:
            self.on_step(key, frame)

    def _open(self, key):
        prev = self.key
        self.key = key
        self.visits[key] = self.visits.get(key, 0) + 1
        if stop_hook is not None:
            stop_hook(self, key)
        chain = self.facts.loops.get(key, EMPTY)
        if not chain:
            self.loop = EMPTY
            return
        loops = self.facts.loops
        prev_chain = loops.get(prev, EMPTY) if prev is not None else EMPTY
        common = None
        for h in chain:
            if h in prev_chain:
                common = h
        counts = self.counts
        out = []
        for h in chain:
            if h not in prev_chain:
                c = 1
            elif key == h:
                c = counts[h] + 1
            elif prev == h:
                c = counts[h]
            elif h == common and key <= prev and not self._with_exit(key, prev):
                c = counts[h] + 1
            else:
                c = counts[h]
            counts[h] = c
            out.append([h, c])
        self.loop = out

    def _with_exit(self, key, prev):
        body = self.facts.with_bodies.get(key)
        return body is not None and body[0] <= prev <= body[1]

    def _close(self, frame):
        """End the current step: diff the variables and emit it."""
        if self.steps >= self.max_steps:
            self.dropped += 1
            self.callees = EMPTY
            self.ev = _NO_EVENTS
            return
        self._emit(self._diff(frame))

    def _emit(self, changes=EMPTY):
        if self.steps >= self.max_steps:
            self.dropped += 1
        else:
            self.sink.append(("step", self.idx, self.key, changes, self.callees, self.loop, self.ev))
            self.steps += 1
            if self.budget is not None:
                self.budget[0] -= 1
            if self.steps & _FLUSH_EVERY == 0 and not self.buffered:
                self.flush()
        self.callees = EMPTY
        self.ev = _NO_EVENTS

    def _args(self, frame):
        """The frame's argument values rendered in full, in the order of its parameters (T may
        hold only summaries of them: recorder.py's per-function budget)."""
        loc = frame.f_locals
        value = self.value
        return [value(loc[k]) if k in loc else "<unbound>" for k in self.facts.argnames]

    def _take_snapshot(self, frame):
        """The frame's state as it starts: its locals and the globals it declares or names."""
        tracker = self.tracker
        for name, v in frame.f_locals.items():
            tracker.bind(name, v)
        g = frame.f_globals
        for name in self.globals:
            if name in g:
                tracker.bind("global " + name, g[name])
        for name in self.facts.module_names(g):
            tracker.bind("global " + name, g[name], GLOBAL_DEPTH)

    def _live(self, frame):
        """The frame's roots now: its locals, and the globals it declares or names."""
        loc = frame.f_locals
        if self.globals or self.facts.watched:
            live = dict(loc)
            g = frame.f_globals
            for name in self.globals:
                if name in g:
                    live["global " + name] = g[name]
            for name in self.facts.watched:
                if name in g and name not in loc:
                    live["global " + name] = g[name]
            return live
        return loc

    def _diff(self, frame):
        """ΔS of the step now ending (changes.Tracker); values are ints, bools and None
        themselves (output.py)."""
        loc = self._live(frame)
        key = self.key
        check = None
        if not self.ran and (self.callees is EMPTY or self._only_callees(len(self.callees))):
            check = self.facts.touched(key, loc, frame.f_globals, self.tracker)
        self.ran = False
        return self.tracker.changes(loc, self.facts.mentioned(key), check)

    def _only_callees(self, n):
        """True when the step's `n` direct callees (all pure) were the only invocations it made."""
        counter = self.counter
        return counter is not None and counter() - self.callees[0] == n
