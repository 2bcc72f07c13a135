"""Running a library type's own ``__repr__`` without the program being able to tell.

People know a value by its repr (a sympy ``Symbol`` is ``x``, not its five attributes), and every
debugger shows that; but a ``__repr__`` is the program's code, and the probe promises that the
program's output, exit status and observable state are the same with and without adi. So a repr
runs only under guards (``Guard.call``), and a type whose repr was seen to do anything but
return text is struck off for the rest of the run (``Guard.struck``): the caller renders such
values from their state instead, as it does for the entry script's own classes.

The guards, each for a way a repr could be noticed:
- output: ``sys.stdout``/``sys.stderr`` are swapped for writers that keep this thread's writes
  (the repr is struck off and nothing reaches the stream) and pass other threads' through;
- mutation: the object's own attributes (instance dict and slots), its class's dict and the
  globals of the module that defines the ``__repr__`` are compared, by identity, before and after,
  and what the repr rebound there is put back; the first ``WATCHED_CALLS`` reprs of a type also
  compare the contents of the lists, dicts, sets, deques and bytearrays held there (and by the
  classes of that module), and put them back (a repr that counts its calls in a list);
  ``sys.modules`` must not grow (a repr that imports);
- failure: an exception (a RecursionError included) strikes the type off;
- time: a repr slower than ``slow`` seconds, or whose type has spent ``type_budget`` seconds in
  all, is struck off (its text is still used once: a repr cannot be interrupted);
- construction: a repr is never called on an object whose ``__init__`` (or ``__new__``,
  ``__setstate__``, ``__post_init__``) is on the stack, where its attributes may not be set yet;
- reentrance: a repr that reaches the probe's renderer again gets its state rendering.

Calls made by a repr are not in the recording: the probe renders from inside its trace/profile
hooks, where the interpreter delivers no events (so neither the probe nor pydevd sees them).
"""

import sys
import threading
import time
from collections import deque
from operator import is_

_CTORS = frozenset(("__init__", "__new__", "__setstate__", "__post_init__", "__init_subclass__"))
_STACK_LOOK = 64  # frames looked through for a constructor of the object
WATCHED_CALLS = 2  # reprs of a type whose containers are compared too (see the module docstring)


class _Writer:
    """Stands for sys.stdout/sys.stderr while a repr runs: keeps what the repr's thread writes."""

    def __init__(self, real, ident):
        self._real = real
        self._ident = ident
        self.wrote = False

    def write(self, text):
        if threading.get_ident() == self._ident:
            self.wrote = True
            return len(text) if isinstance(text, str) else 0
        return self._real.write(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if threading.get_ident() != self._ident:
            self._real.flush()

    def __getattr__(self, name):
        return getattr(self._real, name)


class Guard:
    """Runs ``repr`` of library types under the guards of the module docstring."""

    def __init__(self, slow=0.02, type_budget=0.2):
        self.slow = slow
        self.type_budget = type_budget
        self.struck = {}  # type -> why its repr is not run any more
        self._calls = {}  # type -> reprs run so far
        self._spent = {}  # type -> seconds its reprs took so far
        self._busy = threading.local()

    def call(self, v, t, repr_func, dict_of, slots_of):
        """``repr(v)`` as a str, or None when it may not run or did something else than return
        text (then `t` is struck off unless the reason was this object's state: construction,
        reentrance, the stack's depth)."""
        if t in self.struck or getattr(self._busy, "on", False) or _constructing(v):
            return None
        d = dict_of(v, t)
        own = dict(d) if d else None
        slots = _slot_values(v, t, slots_of)
        cls = _class_dict(t)
        g = getattr(repr_func, "__globals__", None)
        glob = dict(g) if type(g) is dict else None
        calls = self._calls[t] = self._calls.get(t, 0) + 1
        held = _Held(v, t, dict_of, g) if calls <= WATCHED_CALLS else None
        nmods = len(sys.modules)
        ident = threading.get_ident()
        out, err = sys.stdout, sys.stderr
        wout, werr = _Writer(out, ident), _Writer(err, ident)
        self._busy.on = True
        sys.stdout, sys.stderr = wout, werr
        t0 = time.perf_counter()
        why = None
        text = None
        try:
            text = repr(v)
        except RecursionError:
            why = "" if _deep() else "raised RecursionError"
        except Exception as exc:
            why = "raised %s" % type(exc).__name__
        finally:
            took = time.perf_counter() - t0
            if sys.stdout is wout:
                sys.stdout = out
            if sys.stderr is werr:
                sys.stderr = err
            self._busy.on = False
        if why is None:
            if wout.wrote or werr.wrote:
                why = "printed"
            elif type(text) is not str:
                why = "returned %s" % type(text).__name__
            elif not (_same(own, dict_of(v, t)) and _same_seq(slots, _slot_values(v, t, slots_of))
                      and _same(cls, _class_dict(t)) and (glob is None or _same(glob, g))
                      and len(sys.modules) == nmods):
                why = "changed the program's state"
                _restore(v, t, own, dict_of(v, t), slots, slots_of, cls, glob, g)
            if held is not None and not held.same():
                why = "changed the program's state"
                held.restore()
        spent = self._spent.get(t, 0.0) + took
        self._spent[t] = spent
        if why is None and (took > self.slow or spent > self.type_budget):
            self.struck[t] = "too slow"
            return text
        if why:
            self.struck[t] = why
        return None if why is not None else text


_MUTABLE = frozenset((list, dict, set, bytearray, deque))


class _Held:
    """The contents of the containers a repr could change without rebinding a name (see the
    module docstring), to compare and put back."""

    def __init__(self, v, t, dict_of, g):
        self.saved = {}
        d = dict_of(v, t)
        if d:
            self._add_all(d.values())
        for klass in _mro(t):
            self._add_all(_class_values(klass))
        if type(g) is dict:
            self._add_all(g.values())
            for x in list(g.values()):
                if issubclass(type(x), type):
                    self._add_all(_class_values(x))

    def _add_all(self, xs):
        saved = self.saved
        for x in list(xs):
            t = type(x)
            if t in _MUTABLE and id(x) not in saved:
                saved[id(x)] = (x, bytes(x) if t is bytearray else dict(x) if t is dict else
                                set(x) if t is set else list(x))

    def same(self):
        for x, c in self.saved.values():
            t = type(x)
            if t is bytearray:
                if bytes(x) != c:
                    return False
            elif len(x) != len(c) or not all(map(is_, x, c)):
                return False
            elif t is dict and not all(map(is_, x.values(), c.values())):
                return False
        return True

    def restore(self):
        for x, c in self.saved.values():
            try:
                t = type(x)
                if t is list or t is bytearray:
                    x[:] = c
                elif t is dict or t is set:
                    x.clear()
                    x.update(c)
                else:
                    x.clear()
                    x.extend(c)
            except Exception:
                pass


def _mro(t):
    try:
        return type.__dict__["__mro__"].__get__(t)
    except Exception:
        return (t,)


def _class_values(klass):
    try:
        return type.__dict__["__dict__"].__get__(klass).values()
    except Exception:
        return ()


def _constructing(v):
    """True when a constructor of `v` (``__init__`` and the like, of any class) is on the stack."""
    f = sys._getframe(2)
    for _ in range(_STACK_LOOK):
        if f is None:
            return False
        code = f.f_code
        if code.co_name in _CTORS and code.co_varnames:
            try:
                if f.f_locals.get(code.co_varnames[0]) is v:
                    return True
            except Exception:
                return True
        f = f.f_back
    return False


def _deep():
    """True when the stack is near the recursion limit (a RecursionError is then the stack's)."""
    depth = 0
    f = sys._getframe(1)
    limit = sys.getrecursionlimit() - 100
    while f is not None and depth < limit:
        f = f.f_back
        depth += 1
    return depth >= limit


def _slot_values(v, t, slots_of):
    out = []
    for _, d in slots_of(t):
        try:
            out.append(d.__get__(v, t))
        except Exception:
            out.append(_UNSET)
    return out


def _class_dict(t):
    try:
        return dict(type.__dict__["__dict__"].__get__(t))
    except Exception:
        return None


def _same(before, now):
    """True when dict `now` holds the same keys bound to the same objects as the copy `before`
    (compared by identity: an ``==`` could run the program's ``__eq__``)."""
    if before is None or now is None:
        return (before or None) is None and not now
    return len(before) == len(now) and all(map(is_, before, now)) and all(map(is_, before.values(), now.values()))


def _restore(v, t, own, d, slots, slots_of, cls, glob, g):
    """Put back what a repr rebound: the object's attributes, its class's, its module's globals
    (what it mutated inside them, or imported, stays)."""
    try:
        if d is not None and not _same(own, d):
            d.clear()
            d.update(own or {})
        for (_, desc), old in zip(slots_of(t), slots):
            if old is _UNSET:
                try:
                    desc.__delete__(v)
                except AttributeError:
                    pass
            else:
                desc.__set__(v, old)
        now = _class_dict(t)
        if cls is not None and now is not None and not _same(cls, now):
            for k in now:
                if k not in cls:
                    type.__delattr__(t, k)
            for k, x in cls.items():
                if now.get(k, _UNSET) is not x:
                    type.__setattr__(t, k, x)
        if glob is not None and not _same(glob, g):
            for k in [k for k in g if k not in glob]:
                del g[k]
            g.update(glob)
    except Exception:
        pass


def _same_seq(a, b):
    return len(a) == len(b) and all(map(is_, a, b))


_UNSET = object()
