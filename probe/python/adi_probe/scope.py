"""Scoped recording's watches (config "scope"; PROTOCOL.md, "Watching in a live process").

A ``Scope`` holds the watched functions of a live session; they change while the program runs
(``add``/``remove``, from the control server's thread). The recorder's scoped hooks
(``Recorder._scoped_hooks``) ask it, for a call that starts while no recorded frame is active
on its thread, whether that call is a root: an invocation of a watched function whose watch
still catches (fewer than ``max`` caught) and whose condition holds at entry.

The decision per code object is cached on its CodeInfo (``wroot``: the watches its func fits,
or None) with the generation it was made at (``wgen``); every change of the watches bumps the
generation, so the next call of each code object decides again. An unwatched call costs a
comparison of two ints.
"""

import threading

from .stepper import exc_message, exc_type_name


class Watch:
    """One `watch FUNC [--cond EXPR] [--max N]`."""

    __slots__ = ("id", "func", "cond", "code", "max", "caught", "errors", "removed")

    def __init__(self, id_, func, cond, code, max_):
        self.id = id_
        self.func = func
        self.cond = cond
        self.code = code  # compiled cond, or None
        self.max = max_
        self.caught = 0
        self.errors = []  # the first 5 exceptions of its condition, one line each
        self.removed = False

    def active(self):
        return not self.removed and (self.max is None or self.caught < self.max)

    def fits(self, func):
        """Whether recorder name `func` ("module:qualname") is one this watch names."""
        return fits(self.func, func)

    def describe(self):
        return {"watch": self.id, "func": self.func, "cond": self.cond, "max": self.max,
                "caught": self.caught, "active": self.active(), "cond_errors": list(self.errors)}


def fits(pattern, func):
    """`pattern` as the user types it names `func`: `module:qualname` exactly, else the
    qualname or a trailing dotted part of it (`Handler.do_GET`, `do_GET`)."""
    if ":" in pattern:
        return pattern == func
    qual = func.partition(":")[2]
    return qual == pattern or qual.endswith("." + pattern)


def compile_cond(cond):
    """The compiled condition; SyntaxError as ValueError("SyntaxError: msg")."""
    if cond is None or cond == "":
        return None
    try:
        return compile(cond, "<adi watch condition>", "eval")
    except SyntaxError as exc:
        raise ValueError("SyntaxError: %s" % (exc.msg,)) from None


def checked(func, cond, max_):
    """A watch's func (stripped), cond (None when empty) and compiled cond, as the control
    protocol's add takes them; ValueError with a one-line reason for a bad func, cond or max."""
    if not isinstance(func, str) or not func.strip():
        raise ValueError("func must be a non-empty string")
    if cond is not None and not isinstance(cond, str):
        raise ValueError("cond must be a string")
    if max_ is not None and (isinstance(max_, bool) or not isinstance(max_, int) or max_ < 1):
        raise ValueError("max must be a positive integer")
    return func.strip(), cond or None, compile_cond(cond)


class Scope:
    """The watches of a scoped recording."""

    def __init__(self, live_gens=None):
        self.live_gens = live_gens if live_gens is not None else {}  # the recorder's suspended generators
        self.gen = [0]  # bumped on every change (CodeInfo.wgen)
        # id(code) of the code objects that cannot start a root at generation gen[0] (not user
        # code, or no watch names it, and not a generator): the scoped hooks' first check.
        # Cleared after every bump; the recorder drops an entry when its code object dies.
        self.skip = set()
        self.live = [0]  # threads running a recorded frame (the monitoring engine's first check)
        # engine callback, idle(True) when no watch is active and no recorded frame runs (the
        # monitoring engine then turns its events off), idle(False) when that ends
        self.on_idle = None
        self._idle = False
        self.watches = {}  # id -> Watch, in order of addition
        self._next = 1
        self._lock = threading.Lock()

    def add(self, func, cond=None, max_=None):
        """Add a watch; returns it. ValueError for a bad func, cond or max."""
        func, cond, code = checked(func, cond, max_)
        with self._lock:
            w = Watch(self._next, func, cond, code, max_)
            self._next += 1
            self.watches[w.id] = w
            self._bump()
            self._check_idle()
        return w

    def remove(self, wid=None):
        """Remove watch `wid` (None: all); returns the removed ids."""
        with self._lock:
            ids = list(self.watches) if wid is None else [wid] if wid in self.watches else []
            for i in ids:
                self.watches.pop(i).removed = True
            if ids:
                self._bump()
                self._check_idle()
        return ids

    def rooted(self, delta):
        """A thread's stack of recorded frames became non-empty (1) or empty (-1)."""
        with self._lock:
            self.live[0] += delta
            self._check_idle()

    def _check_idle(self):
        """(under the lock) Tell the engine when nothing can be recorded (no active watch, no
        recorded frame running or suspended), and when that ends."""
        idle = not self.live[0] and not self.live_gens and not any(w.active() for w in self.watches.values())
        if idle != self._idle and self.on_idle is not None:
            self._idle = idle
            self.on_idle(idle)

    def set_idle_callback(self, on_idle):
        with self._lock:
            self.on_idle = on_idle
            self._idle = False
            self._check_idle()

    def _bump(self):
        self.gen[0] += 1
        self.skip.clear()  # (after the bump: see skip_code)

    def skip_code(self, code, g):
        """Remember that `code` cannot start a root at generation g."""
        self.skip.add(id(code))
        if self.gen[0] != g:  # changed meanwhile: the clear may have come before the add
            self.skip.discard(id(code))

    def decide(self, info):
        """Cache on `info` the active watches its func fits (None: none)."""
        g = self.gen[0]
        ws = tuple(w for w in list(self.watches.values()) if w.active() and w.fits(info.func))
        info.wroot = ws or None
        info.wgen = g
        if not ws and not info.is_gen:
            self.skip_code(info.code, g)

    def catch(self, info, frame, busy):
        """Whether this invocation of `info` (`frame`, at entry) is a root: counted as caught by
        the first of its watches that still catches and whose condition holds. `busy` marks the
        thread while a condition runs (calls it makes are not recorded)."""
        for w in info.wroot:
            if not w.active():
                continue
            if w.code is not None:
                busy[0] = True
                try:
                    ok = bool(eval(w.code, frame.f_globals, dict(frame.f_locals)))
                except Exception as exc:
                    ok = False
                    if len(w.errors) < 5:
                        w.errors.append("%s: %s" % (exc_type_name(type(exc)), exc_message(exc, 200)))
                finally:
                    busy[0] = False
                if not ok:
                    continue
            with self._lock:
                if not w.active():
                    continue
                w.caught += 1
                self.live[0] += 1  # (the root: Recorder._scoped_hooks)
                if not w.active():
                    self._bump()  # its max is reached: no code object fits it any more
            return True
        return False
