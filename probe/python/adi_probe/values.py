"""Values as the probe shows them: bounded reprs, and the fingerprints of call arguments.

- ``Values.render(v)``: the bounded repr written into calls.bin / flt.bin: at most
  ``repr_limit`` characters then ``...``; builtin containers over the limit are summarised
  with their length (``[0, 1, 2, ...] (len=100000)``); memory addresses (`` at 0x7f..``)
  become `` at 0x…`` and thread idents are dropped from thread reprs, so outputs are
  comparable across runs; a failing ``__repr__`` gives ``<repr failed: TypeError>``; cycles
  print as ``[...]``; numpy arrays are read with ``tolist`` (``array([1.0, 2.0])``, the first
  and last three items with the shape past 24; only when the target already imported numpy);
  rendering a container stops when it exceeds ``repr_time_ms``. Instances of a type that keeps
  ``object.__repr__`` get a text computed once per type.
  **A value reads as people know it, and the program cannot tell it was read.** A ``__repr__``
  implemented in C (builtins, extension types) or the standard library's for a standard-library
  type (``Fraction``, ``PosixPath``, ``Thread``) is called; a library's own ``__repr__`` (a
  sympy ``Symbol`` reads ``x``; a dataclass's or namedtuple's generated one) runs under the
  guards of reprguard.py, and a type whose repr printed, raised, mutated or was slow is struck
  off; the entry script's own classes (``__main__``), the types struck off, and every type in
  "attrs" mode (``set_values_mode``, ``--values attrs``) are rendered from their state, read
  through the interpreter's own descriptors without calling a property, ``__getattr__`` or
  ``__getattribute__``: ``Variable(var='name', lookups=('name',))``. Subclasses of builtin
  containers are walked by the probe (``MyList([1, 2])``); enum members read as
  ``<Color.RED: 1>``; exceptions as ``ValueError('bad')`` from their args. Type checks use
  ``type(v)``, never ``isinstance``, which reads a ``__class__`` property (django's
  ``SimpleLazyObject`` evaluates itself there). ``Values.render_repr`` (exec's answer, which the
  agent asked to run code for) calls ``repr`` as Python does.
- ``Values.args(values)``: reprs of call arguments plus ``fp``, a short deterministic string
  fingerprint of all argument values (no ids, no hash randomisation: stable across runs).
  For short exact scalars it is the argument list itself (``=1, 'a'``); otherwise a CRC of a
  canonical encoding (``#1a2b3c4d5e6f7a8b``, see ``canon``), one token per argument, bounded
  and cheap because it runs on every call: scalars, short containers of scalars and the
  scalar attributes of instances without a ``__repr__`` count with their values, other
  values with their bounded repr. The recorder uses ``args_lazy``, which leaves formatting
  and most of the checksum to the reader (PROTOCOL.md). The fingerprint does not depend on
  memory addresses: an int that looks like an address (``id()``) counts as "an address",
  sets and frozensets count by sorted content, objects by type name and state.
- ``Values.summary(v)``: the cheap exact text of a value that is not rendered (the recorder's
  per-function budget, see recorder.py): scalars as themselves, anything else
  ``<Type, not rendered>``; its frame's FLT renders it in full.
"""

import marshal
import re
import sys
import threading
import time
import types
import zlib
from array import array as _array
from collections import deque
from itertools import islice

from .reprguard import Guard
from .usercode import in_stdlib as _in_stdlib

GUARD = Guard()  # one for the process: a type struck off is struck off for every renderer

NoneType = type(None)
SCALARS = frozenset((int, float, bool, NoneType, str, bytes, complex))
EXACT_SHORT = frozenset((float, bool, NoneType, complex))
ARGS_FP_BUDGET = 32  # nodes an argument fingerprint walks (per call: it runs on every call)
FP_INLINE = 256  # marshalled tokens up to this size go into the call record as they are
_SUMMARY = 32  # room for a " (len=N)" summary past the repr limit
_ADDR = re.compile(r" at 0x[0-9A-Fa-f]+")
_THREAD_IDENT = re.compile(r" \d+(\)>)$")
_OPAQUE = frozenset((type(sys), type(len), type(lambda: 0), type, type(lambda: 0).__code__.__class__))
_GETSET = type(types.FunctionType.__dict__["__code__"])  # getset_descriptor
_MEMBER = types.MemberDescriptorType
_CONTAINERS = (list, tuple, set, frozenset, dict, deque)
ADDR_LOW, ADDR_HIGH = 1 << 32, 1 << 48  # where CPython's objects live on 64-bit Linux


def _addrlike(v):
    """True for an int that looks like a memory address (what ``id()`` returns): such a value
    changes from run to run, so argument fingerprints count it as "an address". (The hot loops
    of args_lazy and args_summary write this test inline.)"""
    return ADDR_LOW <= v < ADDR_HIGH and not v & 7


# How a type is rendered (``_policy``), decided once per type.
DEFAULT, CALL, STATE, ENUM, SUBCLASS, EXC, GUARDED = range(7)

# "repr": a library type's own ``__repr__`` runs under guards (GUARDED); "attrs": every type whose
# ``__repr__`` is the program's is rendered from its state (STATE), as for the entry script's
# classes in "repr" mode. Set once per run (``set_values_mode``).
_mode = ["repr"]


def set_values_mode(mode):
    """How values of types with a ``__repr__`` of the program's are shown: "repr" or "attrs"."""
    if mode not in ("repr", "attrs"):
        raise ValueError("values mode must be repr or attrs, not %r" % (mode,))
    if _mode[0] != mode:
        _mode[0] = mode
        _policies.clear()


def _mro(t):
    try:
        return type.__dict__["__mro__"].__get__(t)
    except Exception:
        return (t, object)


def _lookup(t, name):
    """The attribute `name` of type `t` as its class dicts hold it (no metaclass code runs)."""
    for klass in _mro(t):
        try:
            d = type.__dict__["__dict__"].__get__(klass)
        except Exception:
            continue
        if name in d:
            return d[name]
    return None


def _stdlib_module(modname):
    """True when module `modname` (a type's __module__) is part of the standard library."""
    if not isinstance(modname, str):
        return False
    if modname == "builtins" or modname in sys.builtin_module_names:
        return True
    m = sys.modules.get(modname)
    d = _dict_of(m, type(m)) if m is not None else None
    f = d.get("__file__") if d else None
    return type(f) is str and _in_stdlib(f)


_policies = {}


def _policy(t):
    """How instances of `t` are rendered (cached): DEFAULT (``object.__repr__``), CALL (its
    ``__repr__`` is C code or the standard library's, for a standard-library type), ENUM,
    SUBCLASS (a subclass of a builtin container: walked), EXC (an exception whose repr is
    BaseException's), GUARDED (a library's own ``__repr__``, run under guards: ``Guard``) or
    STATE (rendered from its state, nothing of it called: the entry script's classes, and every
    class in "attrs" mode)."""
    try:
        return _policies[t]
    except KeyError:
        pass
    try:
        p = _decide(t)
    except Exception:
        p = STATE
    _policies[t] = p
    return p


def _decide(t):
    r = _lookup(t, "__repr__")
    if r is object.__repr__:
        return DEFAULT
    for base in _CONTAINERS:
        if base is not t and issubclass(t, base):
            return SUBCLASS
    enum = sys.modules.get("enum")
    if enum is not None and issubclass(t, enum.Enum):
        return ENUM
    if isinstance(r, types.FunctionType):
        co = r.__code__
        mod = _lookup(t, "__module__")
        if _in_stdlib(co.co_filename) and _stdlib_module(mod):
            return CALL
        if _mode[0] == "attrs" or mod == "__main__" or type(mod) is not str:
            return STATE
        return GUARDED
    if issubclass(t, BaseException):
        return EXC  # BaseException.__repr__ calls repr() on the args: walked instead
    return CALL  # a repr written in C (builtins, extension types)


_dict_descrs = {}


def _dict_of(v, t):
    """`v`'s instance dict, read through the type's own ``__dict__`` descriptor (no property,
    ``__getattr__`` or ``__getattribute__`` of the program runs), or None."""
    try:
        d = _dict_descrs[t]
    except KeyError:
        d = _lookup(t, "__dict__")
        if type(d) is not _GETSET and type(d) is not _MEMBER:  # modules: a member
            d = None
        _dict_descrs[t] = d
    if d is None:
        return None
    try:
        out = d.__get__(v, t)
    except Exception:
        return None
    return out if type(out) is dict else None


_slot_descrs = {}


def _slots_of(t):
    """(name, member descriptor) of every ``__slots__`` entry of `t` and its bases (cached)."""
    try:
        return _slot_descrs[t]
    except KeyError:
        pass
    out = []
    for klass in _mro(t):
        try:
            kd = type.__dict__["__dict__"].__get__(klass)
        except Exception:
            continue
        s = kd.get("__slots__", ())
        if isinstance(s, str):
            s = (s,)
        try:
            names = list(s)
        except Exception:
            names = []
        for n in names:
            if not isinstance(n, str) or n in ("__dict__", "__weakref__"):
                continue
            if n.startswith("__") and not n.endswith("__"):
                n = "_%s%s" % (klass.__name__.lstrip("_"), n)  # name mangling
            d = kd.get(n)
            if type(d) is _MEMBER:
                out.append((n, d))
    _slot_descrs[t] = tuple(out)
    return _slot_descrs[t]


def state_of(v, t, limit=None):
    """The attributes of `v` as (name, value) pairs: its slots, then its instance dict, read
    without running the program's code. Unset slots are left out. With `limit`, only the dict's
    first `limit` items are read (a renderer or a fingerprint that uses no more than that need
    not copy an object of a thousand attributes)."""
    return state_head(v, t, limit)[0]


def state_head(v, t, limit=None):
    """``state_of(v, t, limit)`` and how many attributes there are in all (the instance dict's
    size counts a key that is not a str, which the pairs leave out)."""
    out = []
    for n, d in _slots_of(t):
        try:
            out.append((n, d.__get__(v, t)))
        except Exception:
            continue
    total = len(out)
    d = _dict_of(v, t)
    if d:
        total += len(d)
        items = d.items() if limit is None else islice(d.items(), limit)
        out.extend([kv for kv in items if type(kv[0]) is str])
    return out, total


array_tobytes = _array.tobytes


def _bounded_int_repr(v):
    try:
        return repr(v)
    except ValueError:  # 3.11+: int too large to convert to str
        return "<int with %d bits>" % v.bit_length()


def _default_repr(t, limit):
    """The repr of every instance of `t` when `t` keeps ``object.__repr__`` (else None).

    ``object.__repr__`` shows only the type and the address, which the probe masks anyway, so
    it is the same text for every instance: computed once per type instead of calling repr
    and masking the address on every call.
    """
    try:
        if _policy(t) != DEFAULT or _lookup(t, "__dict__") is not None or _slots_of(t):
            return None  # instances may have attributes: rendered from them
        mod = _lookup(t, "__module__")
        qual = type.__dict__["__qualname__"].__get__(t)
    except Exception:
        return None
    if not isinstance(mod, str) or not isinstance(qual, str):
        return None
    text = "<%s object at 0x\u2026>" % (qual if mod == "builtins" else mod + "." + qual)
    return _cut(text, limit)


def _clean(r, t, room):
    """A repr as the probe shows it: memory addresses masked (they change from run to run), a
    thread's ident dropped, cut to `room` characters."""
    if " at 0x" in r:
        r = _ADDR.sub(" at 0x\u2026", r[: room * 4 + 64])
    if issubclass(t, threading.Thread):
        r = _THREAD_IDENT.sub(r"\1", r)  # the ident changes from run to run
    return _cut(r, room)


def _cut(text, room):
    return text if len(text) <= room else text[:room] + "..."


def _failed(exc):
    return "<repr failed: %s>" % type(exc).__name__


class Values:
    """Rendering and fingerprinting with the run's limits (see the module docstring)."""

    def __init__(self, repr_limit=200, repr_time_ms=20):
        self.limit = max(int(repr_limit), 8)
        self.time_budget = max(float(repr_time_ms), 0.1) / 1000.0
        self.args_budget = ARGS_FP_BUDGET
        self.big = 10 ** min(self.limit - 1, 4000)  # ints within ±big have exact reprs within the limit
        self._defaults = {}  # type -> its instances' repr when it is object's (no state), else None
        self._summary_fps = {}  # args_summary: fingerprint per combination of scalars and types
        self._summary_names = {}  # type -> "<Type, not rendered>"
        self.slow = [0]  # values rendered by _render_slow so far (the recorder's budget counts them)
        # the same for the types whose every value is summarised so: neither str nor float,
        # whose short values are their reprs (the recorder's exit path reads it inline)
        self.summary_objs = {}
        # args_summary's answers for arguments with no scalar among them: per type (one
        # argument) or per tuple of types, (reprs, fp); most calls of a big program hit them
        self._summary_one = {}
        self._summary_many = {}
        self.importing = [0]  # user modules being imported now (the recorder counts them; eager FLTs wait)
        self.render = self._make_render()
        self.summary = self.summary  # one bound method, so that the recorder's `is` recognises it
        self.args_lazy = self._make_args_lazy()
        self.args_summary = self._make_args_summary()

    # -- rendering --------------------------------------------------------------------------

    def _make_render(self):
        limit = self.limit
        big = self.big
        neg_big = -big
        exact_short = EXACT_SHORT
        slow = self._render_slow

        defaults = self._defaults
        defaults_get = defaults.get

        def render(v):
            t = type(v)
            if t is int:
                if neg_big < v < big:
                    return repr(v)
            elif t in exact_short:
                return repr(v)
            elif t is str and len(v) <= limit:
                r = repr(v)
                if len(r) <= limit:
                    return r
            else:
                r = defaults_get(t, _MISSING)
                if r is _MISSING:
                    r = defaults[t] = _default_repr(t, limit)
                if r is not None:
                    return r
            return slow(v)
        return render

    def _render_slow(self, v):
        self.slow[0] += 1
        deadline = time.perf_counter() + self.time_budget
        try:
            text = self._repr(v, self.limit, set(), deadline)
        except Exception as exc:  # a __repr__ failing deep inside a container
            return _failed(exc)
        if len(text) > self.limit + _SUMMARY:
            text = text[: self.limit] + "..."
        return text

    def _repr(self, v, room, seen, deadline):
        """Repr of `v` in about `room` characters (a length summary may follow)."""
        t = type(v)
        if t is int:
            return _cut(_bounded_int_repr(v), room)
        if t is str or t is bytes or t is bytearray:
            if len(v) > room:
                return repr(v[:room]) + "... (len=%d)" % len(v)
            return _cut(repr(v), room)
        if t in EXACT_SHORT:
            return repr(v)
        if t in _CONTAINERS:
            return self._container(v, t, room, seen, deadline)
        np = sys.modules.get("numpy")
        if np is not None and issubclass(t, np.ndarray):
            return self._ndarray(v, room, seen, deadline)
        p = _policy(t)
        if p == DEFAULT:
            st = state_of(v, t, room + 2)  # each field shown takes 2 characters at least
            if st:  # no __repr__ of its own: its attributes
                return self._fields(_qualname(t), st, room, seen, deadline)
            return self._call_repr(v, t, room)
        if p == CALL:
            return self._call_repr(v, t, room)
        if p == GUARDED:
            text = GUARD.call(v, t, _lookup(t, "__repr__"), _dict_of, _slots_of)
            if text is not None:
                return _clean(text, t, room)
            return self._fields(_qualname(t), state_of(v, t, room + 2), room, seen, deadline)
        if p == SUBCLASS:
            return self._subclass(v, t, room, seen, deadline)
        if p == ENUM:
            return self._enum(v, t, room, seen, deadline)
        if p == EXC:
            return self._fields(_qualname(t), [(None, a) for a in _exc_args(v)], room, seen, deadline)
        return self._fields(_qualname(t), state_of(v, t, room + 2), room, seen, deadline)

    def _call_repr(self, v, t, room):
        """`repr(v)` for a type whose __repr__ is not the program's code (see ``_policy``)."""
        try:
            r = repr(v)
        except Exception as exc:
            return _failed(exc)
        if type(r) is not str:
            return "<repr failed: TypeError>"
        return _clean(r, t, room)

    def render_repr(self, v):
        """The bounded ``repr(v)`` as Python prints it, calling the program's own __repr__ (of
        the value and of whatever it holds): for exec's answer, which the agent asked to run
        code for."""
        t = type(v)
        if t in SCALARS or t is bytearray:
            return self.render(v)
        return self._call_repr(v, t, self.limit)

    def _fields(self, name, items, room, seen, deadline):
        """``name(a=1, b=[2])`` (or ``name(1, 2)`` for unnamed items), bounded like a container."""
        parts = []
        used = len(name) + 2
        complete = True
        for k, (key, x) in enumerate(items):
            left = room - used
            if left < 4 or (k & 15 == 15 and time.perf_counter() > deadline):
                complete = False
                break
            head = "" if key is None else key + "="
            xi = id(x)
            if xi in seen:
                text = head + "..."
            else:
                text = head + self._repr(x, max(left - len(head), 4), seen, deadline)
            if parts and used + len(text) > room:
                complete = False
                break
            parts.append(text)
            used += len(text) + 2
        return name + "(" + ", ".join(parts) + (", ...)" if not complete and parts else "...)" if not complete else ")")

    def _subclass(self, v, t, room, seen, deadline):
        """A subclass of a builtin container, walked with the base type's own C methods."""
        base = next(b for b in _CONTAINERS if issubclass(t, b))
        name = _qualname(t)
        if base is tuple:
            fields = _lookup(t, "_fields")
            if type(fields) is tuple and len(fields) == tuple.__len__(v):
                return self._fields(name, list(zip(fields, tuple.__iter__(v))), room, seen, deadline)
        return name + "(" + self._container(v, base, room - len(name) - 2, seen, deadline, True) + ")"

    def _enum(self, v, t, room, seen, deadline):
        d = _dict_of(v, t) or {}
        member = d.get("_name_")
        value = d.get("_value_")
        if type(member) is not str:
            return self._fields(_qualname(t), state_of(v, t), room, seen, deadline)
        return _cut("<%s.%s: %s>" % (_qualname(t), member, self._repr(value, room, seen, deadline)), room)

    def _container(self, v, t, room, seen, deadline, base_only=False):
        """A builtin container (or, with `base_only`, a subclass read through its base `t`'s
        own methods: no __iter__, __len__ or items() of the program runs)."""
        if t is dict:
            opener, closer = "{", "}"
        elif t is list:
            opener, closer = "[", "]"
        elif t is tuple:
            opener, closer = "(", ")"
        elif t is deque:
            opener, closer = "deque([", "])"
        elif not t.__len__(v):
            return "set()" if t is set else "frozenset()"
        elif t is set:
            opener, closer = "{", "}"
        else:
            opener, closer = "frozenset({", "})"
        if base_only and t is deque:
            opener, closer = "[", "]"
        i = id(v)
        if i in seen:
            return opener + "..." + closer
        seen.add(i)
        try:
            parts = []
            used = len(opener) + len(closer)
            complete = True
            for k, item in enumerate(dict.items(v) if t is dict else t.__iter__(v)):
                left = room - used
                if left < 4 or (k & 15 == 15 and time.perf_counter() > deadline):
                    complete = False
                    break
                if t is dict:
                    key = self._repr(item[0], left, seen, deadline)
                    text = key + ": " + self._repr(item[1], max(left - len(key) - 2, 4), seen, deadline)
                else:
                    text = self._repr(item, left, seen, deadline)
                if parts and used + len(text) > room:
                    complete = False
                    break
                parts.append(text)
                used += len(text) + 2
            body = ", ".join(parts)
            if complete:
                if t is tuple and len(parts) == 1:
                    body += ","
                return opener + body + closer
            return opener + body + (", ..." if parts else "...") + closer + " (len=%d)" % t.__len__(v)
        finally:
            seen.discard(i)

    def _ndarray(self, a, room, seen, deadline):
        """A numpy array as ``array([1.0, 2.0])``, its items read with ``tolist`` (numpy's own
        printing costs 20-70 µs an array, and calls the items' __repr__ in an object array): up
        to 24 items whole, more as the first and last three with the shape; the dtype when it is
        not float64, int64 or bool."""
        try:
            n = a.size
            dt = str(a.dtype)
            if a.ndim == 0:
                body = self._repr(a.item(), room, seen, deadline)
            elif n <= 24:
                body = self._repr(a.tolist(), room, seen, deadline)
            else:
                flat = a.flat
                part = max(room // 7, 4)
                body = "[" + ", ".join([self._repr(x, part, seen, deadline) for x in flat[:3].tolist()] + ["..."] +
                                       [self._repr(x, part, seen, deadline) for x in flat[n - 3:].tolist()]) + "]"
            extra = ", shape=%s" % (a.shape,) if n > 24 else ""
            if dt not in ("float64", "int64", "bool"):
                extra += ", dtype=%s" % dt
            return _cut("array(" + body + extra + ")", room)
        except Exception as exc:
            return _failed(exc)

    # -- call arguments --------------------------------------------------------------------------

    def args(self, values):
        """(reprs, fp) for a call's argument values (see the module docstring)."""
        reprs, fp = self.args_lazy(values)
        reprs = [r if type(r) is str else repr(r) for r in reprs]
        if fp is None:
            return reprs, "=" + ", ".join(reprs)
        return reprs, fp_text(fp)

    def value(self, v):
        """`v` itself when it is an int (within the repr limit), bool or None, else its repr."""
        t = type(v)
        if (t is int and -self.big < v < self.big) or t is bool or v is None:
            return v
        return self.render(v)

    def _make_args_lazy(self):
        limit = self.limit
        big = self.big
        neg_big = -big
        render = self.render
        defaults_get = self._defaults.get
        exact_short = EXACT_SHORT
        canon = self.canon

        def args_lazy(values):
            """(reprs, fp) for the recorder: reprs may hold ints, bools and None themselves
            (output.py: the reader writes their repr); fp is None when it is "=" and the reprs
            (all exact scalars, 64 characters at most), else ``fp_value`` of the canonical
            tokens: the hot path does not format either."""
            reprs = []
            add = reprs.append
            exact = True
            for v in values:
                t = type(v)
                if t is int:
                    if neg_big < v < big:
                        add(v)
                        if ADDR_LOW <= v < ADDR_HIGH and not v & 7:  # _addrlike, inline
                            exact = False  # an address: the fingerprint says "an address"
                        continue
                elif t is bool or v is None:
                    add(v)
                    continue
                elif t is str:
                    if len(v) <= limit:
                        add(render(v))
                        continue
                elif t in exact_short:
                    add(repr(v))
                    continue
                else:
                    r = defaults_get(t)
                    add(r if r is not None else render(v))
                    exact = False
                    continue
                add(render(v))
                exact = False
            if exact:
                return reprs, _exact_fp(reprs, values)
            return reprs, fp_value(canon(values, reprs))
        return args_lazy

    def canon(self, values, reprs=None):
        """The canonical tokens of argument `values` (a list of exact scalars and tuples).

        One token per argument, cheap enough for every call, and the same in every run of the
        same program (no memory address, no address-derived order): an exact scalar is itself,
        but an int that looks like an address (``id()``) is ``("@",)``; a list, tuple or dict
        of at most ``args_budget`` scalars is one token with its items; a set or frozenset of
        scalars is its sorted items; an object rendered from its state (``object.__repr__``,
        or a ``__repr__`` of the program's that the probe does not call) is its type name and
        its first ``args_budget`` attributes (scalars as themselves, lists and tuples of
        scalars with their items, other values by type name and length); anything else is its
        type name and its bounded repr (`reprs`, the argument reprs already made).
        """
        out = []
        add = out.append
        budget = self.args_budget
        render = self.render
        for k, v in enumerate(values):
            t = type(v)
            if t in _CANON_SELF:
                add(_tok(v))
                continue
            try:
                if t is list or t is tuple:
                    if len(v) <= budget and set(map(type, v)) <= _CANON_SELF:
                        add(("[", _type_name(t), tuple(map(_tok, v))))
                    else:  # items by type and size: an object's repr may hold an address
                        add(("[", _type_name(t), tuple(map(_item_tok, v[:budget])), len(v)))
                    continue
                elif t is dict:
                    if (len(v) <= budget and set(map(type, v.values())) <= _CANON_SELF
                            and set(map(type, v)) <= _CANON_SELF):
                        add(("{", tuple([(_tok(a), _tok(x)) for a, x in v.items()])))
                    else:  # ({id(obj): ...}, a deepcopy memo): keys and values by type and size
                        add(("{", tuple([(_item_tok(a), _item_tok(x)) for a, x in islice(v.items(), budget)]),
                             len(v)))
                    continue
                elif t is set or t is frozenset:
                    if len(v) <= budget and set(map(type, v)) <= _CANON_SELF:
                        add(("{s", _type_name(t), tuple(sorted(map(_tok, v), key=repr))))
                    else:
                        add(("{s", _type_name(t), len(v)))
                    continue
                else:
                    p = _policy(t)
                    if p == DEFAULT or p == STATE or p == GUARDED:
                        st, n = state_head(v, t, budget)
                        add(("<", _type_name(t), tuple([(a, _tok(x) if type(x) in _CANON_SELF else _shallow(x))
                                                        for a, x in st[:budget]]), n))
                        continue
                r = reprs[k] if reprs is not None else render(v)
                add(("r", _type_name(t), r if type(r) is str else repr(r)))
            except Exception as exc:
                add(("!", _type_name(t), "%s" % type(exc).__name__))
        return out

    # -- values not rendered (the recorder's budget) ----------------------------------------------

    def summary(self, v):
        """A value's cheap exact text when it is not rendered: an int (within the limit), bool
        or None itself, a float or short str as its repr, anything else ``<Type, not rendered>``."""
        t = type(v)
        if t is int:
            if -self.big < v < self.big:
                return v
        elif t is bool or v is None:
            return v
        elif t is float or (t is str and len(v) <= 32):
            return repr(v)
        r = self._summary_names.get(t)
        if r is None:
            r = self._name(t)
        return r

    def _name(self, t):
        """``<Type, not rendered>``, remembered."""
        r = self._summary_names[t] = "<%s, not rendered>" % _qualname(t)
        if t is not str and t is not float:
            self.summary_objs[t] = r
        return r

    def _make_args_summary(self):
        big = self.big
        nbig = -big
        cache = self._summary_fps
        names = self._summary_names
        one = self._summary_one
        one_get = one.get
        many = self._summary_many
        many_get = many.get
        scalars = frozenset((int, bool, type(None), float, str))
        name = self._name

        def args_summary(values):
            """(reprs, fp) like ``args_lazy`` for a call whose arguments are not rendered: exact
            scalars as themselves, other values ``<Type, not rendered>``; the fingerprint has the
            scalars and the type names of the other values (cached per combination: this runs
            on most calls of a big program, so it is written flat, and arguments without a
            scalar are answered by their types alone)."""
            if len(values) == 1:
                hit = one_get(type(values[0]))
            else:
                hit = many_get(tuple(map(type, values)))
            if hit is not None:
                return hit
            reprs = []
            add = reprs.append
            key = []
            kadd = key.append
            exact = True
            objs = 0
            for v in values:
                t = type(v)
                if t is int:
                    if nbig < v < big:
                        add(v)
                        if ADDR_LOW <= v < ADDR_HIGH and not v & 7:  # _addrlike, inline
                            exact = False
                            kadd(_ADDRESS)
                        else:
                            kadd(v)
                        continue
                elif t is bool or v is None:
                    add(v)
                    kadd(v)
                    continue
                elif t is float:
                    add(repr(v))
                    kadd(v)
                    continue
                elif t is str:
                    add(repr(v) if len(v) <= 32 else "<str, not rendered>")
                    kadd(v)
                    continue
                r = names.get(t)
                if r is None:
                    r = name(t)
                add(r)
                exact = False
                kadd(t)
                objs += 1
            if exact:
                return reprs, _exact_fp(reprs, values)
            key = tuple(key)
            try:
                fp = cache[key]
            except (KeyError, TypeError):
                # the "#" text itself: written on most calls, it keeps records small and the
                # reader does not checksum it again and again
                fp = fp_text(fp_value([("t", _type_name(k)) if type(k) is type else k for k in key]))
                if len(cache) < 8192:
                    try:
                        cache[key] = fp
                    except TypeError:
                        pass
            if objs == len(key) and scalars.isdisjoint(key) and len(one) + len(many) < 8192:
                # no scalar among them (not even a big int or a long str, whose key is its type)
                if len(key) == 1:
                    one[key[0]] = (tuple(reprs), fp)
                else:
                    many[key] = (tuple(reprs), fp)
            return reprs, fp
        return args_summary


_ADDRESS = ("@",)


def _exact_fp(reprs, values):
    """The fingerprint of arguments that are all exact scalars: None (it is "=" and their reprs)
    when that text is 64 characters at most, else that of the values themselves."""
    if len(", ".join([r if type(r) is str else repr(r) for r in reprs])) <= 64:
        return None
    return fp_value(list(values))


def _tok(x):
    """A scalar as an argument fingerprint counts it: itself, or ("@",) for an address."""
    if type(x) is int and _addrlike(x):
        return _ADDRESS
    return x


def _item_tok(x):
    """An item of a container argument that is not all scalars: a scalar as ``_tok``, anything
    else as ``_shallow``."""
    return _tok(x) if type(x) in _CANON_SELF else _shallow(x)


def _shallow(x):
    """An attribute that is not a scalar, for an argument fingerprint: its items when it is a
    short list or tuple of scalars, else its type name and length."""
    t = type(x)
    if (t is list or t is tuple) and len(x) <= ARGS_FP_BUDGET and set(map(type, x)) <= _CANON_SELF:
        return ("[", tuple(map(_tok, x)))
    try:
        n = len(x) if t in _SIZED else -1
    except Exception:
        n = -1
    return ("t", _type_name(t), n)


_SIZED = frozenset((list, tuple, dict, set, frozenset, deque, bytearray))


def fp_value(tokens):
    """The fingerprint of canonical tokens as a call record carries it: the bytes of
    ``marshal.dumps(tuple(tokens), 2)`` when they are short (the reader computes the checksum,
    see ``fp_text``), else the "#" string itself (so that records stay small)."""
    try:
        data = marshal.dumps(tuple(tokens), 2)
    except ValueError:  # cannot happen: tokens are exact scalars and tuples
        data = repr(tokens).encode("utf-8", "surrogatepass")
    if len(data) <= FP_INLINE:
        return data
    return "#%08x%08x" % (zlib.crc32(data), zlib.adler32(data))


def fp_text(fp):
    """A fingerprint from ``fp_value`` as the "#" string: the CRC-32 and the Adler-32 (8 hex
    digits each) of the marshalled tokens (version 2 writes no back-references, so equal tokens
    give equal bytes)."""
    if type(fp) is str:
        return fp
    return "#%08x%08x" % (zlib.crc32(fp), zlib.adler32(fp))


def _qualname(t):
    """A type's __name__ as reprs show it, read from the type itself (no metaclass code)."""
    try:
        q = type.__dict__["__name__"].__get__(t)
    except Exception:
        q = None
    return q if type(q) is str else "?"


def _exc_args(exc):
    """An exception's args, read through BaseException's own descriptor."""
    try:
        a = BaseException.__dict__["args"].__get__(exc)
    except Exception:
        return ()
    return a if type(a) is tuple else ()


def exc_message(exc, limit):
    """str(exc) as Python prints it after the type, bounded to `limit` characters, without
    running the program's code: an exception class with its own ``__str__`` written outside
    the standard library is read through ``BaseException.__str__`` (its args)."""
    t = type(exc)
    try:
        s = _lookup(t, "__str__")
        if isinstance(s, types.FunctionType) and not _in_stdlib(s.__code__.co_filename):
            text = BaseException.__str__(exc)
        else:
            text = str(exc)
    except Exception as e:
        return "<str failed: %s>" % type(e).__name__
    if type(text) is not str:
        return "<str failed: TypeError>"
    if len(text) > limit:
        text = text[:limit] + "..."
    return text


_MISSING = object()
_CANON_SELF = SCALARS  # canonical tokens that are the values themselves
_type_names = {}


def _type_name(t):
    """module.qualname of a type (cached)."""
    try:
        return _type_names[t]
    except KeyError:
        pass
    name = "%s.%s" % (getattr(t, "__module__", "?"), getattr(t, "__qualname__", getattr(t, "__name__", "?")))
    _type_names[t] = name
    return name
