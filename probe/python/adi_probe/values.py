"""Values as the probe reports and compares them: bounded reprs and fingerprints.

- ``Values.render(v)``: the bounded repr written into calls.bin / flt.bin: at most
  ``repr_limit`` characters then ``...``; builtin containers over the limit are summarised
  with their length (``[0, 1, 2, ...] (len=100000)``); memory addresses (`` at 0x7f..``)
  become `` at 0x…`` and thread idents are dropped from thread reprs, so outputs are
  comparable across runs; a failing ``__repr__`` gives
  ``<repr failed: TypeError>``; cycles print as ``[...]``; numpy arrays use numpy's own
  printing with a small threshold (only when the target already imported numpy); rendering
  a container stops when it exceeds ``repr_time_ms`` (a single slow ``__repr__`` cannot be
  interrupted). Instances of a type that keeps ``object.__repr__`` get a text computed once
  per type. While a user module is being imported (``importing``), a ``__repr__`` written in
  Python is not called: ``<mod.Type object: not shown during an import>`` (a repr there can
  see half-initialised modules, and a failed import inside it, swallowed by the probe, leaves
  the program's modules broken: sympy's own import did).
- ``Values.fingerprint(v)``: what change detection (ΔS) compares, computed from the value and
  not from the bounded text: a nested tuple of the value's content. Scalars are themselves.
  Builtin containers, instances (their ``__dict__``/slots) and numpy arrays are walked up to
  ``FP_BUDGET`` nodes; past the budget a container is represented by its length only, so a
  change far inside a huge structure that keeps every length the same is not detected.
  Modules, functions, classes and other opaque objects are compared by identity only.
- ``Values.args(values)``: reprs of call arguments plus ``fp``, a short deterministic string
  fingerprint of all argument values (no ids, no hash randomisation: stable across runs).
  For short exact scalars it is the argument list itself (``=1, 'a'``); otherwise a CRC of a
  canonical encoding (``#1a2b3c4d5e6f7a8b``, see ``canon``), one token per argument, bounded
  and cheap because it runs on every call: scalars, short containers of scalars and the
  scalar attributes of instances without a ``__repr__`` count with their values, other
  values with their bounded repr. The recorder uses ``args_lazy``, which leaves formatting
  and most of the checksum to the reader (PROTOCOL.md).
"""

import marshal
import re
import sys
import threading
import time
import types
import zlib
from collections import deque
from itertools import islice

NoneType = type(None)
SCALARS = frozenset((int, float, bool, NoneType, str, bytes, complex))
EXACT_SHORT = frozenset((float, bool, NoneType, complex))
FP_BUDGET = 256
ARGS_FP_BUDGET = 32  # nodes an argument fingerprint walks (per call: it runs on every call)
FP_INLINE = 256  # marshalled tokens up to this size go into the call record as they are
_SUMMARY = 32  # room for a " (len=N)" summary past the repr limit
_ADDR = re.compile(r" at 0x[0-9A-Fa-f]+")
_THREAD_IDENT = re.compile(r" \d+(\)>)$")
_OPAQUE = frozenset((type(sys), type(len), type(lambda: 0), type, type(lambda: 0).__code__.__class__))


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
        if t.__repr__ is not object.__repr__:
            return None
        mod = t.__module__
        qual = t.__qualname__
    except Exception:
        return None
    if not isinstance(mod, str) or not isinstance(qual, str):
        return None
    text = "<%s object at 0x\u2026>" % (qual if mod == "builtins" else mod + "." + qual)
    return _cut(text, limit)


_python_reprs = {}


def _python_repr(t):
    """True when `t`'s __repr__ is written in Python (it can import, fail, change state)."""
    try:
        return _python_reprs[t]
    except KeyError:
        pass
    try:
        result = isinstance(t.__repr__, types.FunctionType)
    except Exception:
        result = True
    _python_reprs[t] = result
    return result


def _cut(text, room):
    return text if len(text) <= room else text[:room] + "..."


def _failed(exc):
    return "<repr failed: %s>" % type(exc).__name__


class Values:
    """Rendering and fingerprinting with the run's limits (see the module docstring)."""

    def __init__(self, repr_limit=200, repr_time_ms=20, fp_budget=FP_BUDGET):
        self.limit = max(int(repr_limit), 8)
        self.time_budget = max(float(repr_time_ms), 0.1) / 1000.0
        self.fp_budget = fp_budget
        self.args_budget = min(fp_budget, ARGS_FP_BUDGET)
        self.big = 10 ** min(self.limit - 1, 4000)  # ints within ±big have exact reprs within the limit
        self._defaults = {}  # type -> its instances' repr when it is object's (no state), else None
        self.importing = [0]  # user modules being imported now (the recorder counts them)
        self.render = self._make_render()
        self.args_lazy = self._make_args_lazy()

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
        if t in (list, tuple, set, frozenset, dict, deque):
            return self._container(v, t, room, seen, deadline)
        np = sys.modules.get("numpy")
        if np is not None and isinstance(v, np.ndarray):
            return _cut(self._ndarray(np, v), room)
        if self.importing[0] and _python_repr(t):
            # a repr run in the middle of an import can see half-initialised modules, and its
            # own failed imports (swallowed here) leave the program's modules broken (sympy)
            return _cut("<%s object: not shown during an import>" % _type_name(t), room)
        try:
            r = repr(v)
        except Exception as exc:
            return _failed(exc)
        if not isinstance(r, str):
            return "<repr failed: TypeError>"
        if " at 0x" in r:
            r = _ADDR.sub(" at 0x\u2026", r[: room * 4 + 64])
        if isinstance(v, threading.Thread):
            r = _THREAD_IDENT.sub(r"\1", r)  # the ident changes from run to run
        return _cut(r, room)

    def _container(self, v, t, room, seen, deadline):
        if t is dict:
            opener, closer = "{", "}"
        elif t is list:
            opener, closer = "[", "]"
        elif t is tuple:
            opener, closer = "(", ")"
        elif t is deque:
            opener, closer = "deque([", "])"
        elif not v:
            return "set()" if t is set else "frozenset()"
        elif t is set:
            opener, closer = "{", "}"
        else:
            opener, closer = "frozenset({", "})"
        i = id(v)
        if i in seen:
            return opener + "..." + closer
        seen.add(i)
        try:
            parts = []
            used = len(opener) + len(closer)
            complete = True
            for k, item in enumerate(v.items() if t is dict else v):
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
            return opener + body + (", ..." if parts else "...") + closer + " (len=%d)" % len(v)
        finally:
            seen.discard(i)

    def _ndarray(self, np, a):
        try:
            with np.printoptions(threshold=20, edgeitems=3, linewidth=self.limit):
                return np.array_repr(a).replace("\n", " ")
        except Exception as exc:
            return _failed(exc)

    # -- fingerprints (change detection within a run) -------------------------------------------

    def fingerprint(self, v):
        """A comparable summary of `v`'s content (see the module docstring)."""
        if type(v) in SCALARS:
            return v
        try:
            return self._fp(v, [self.fp_budget], set())
        except Exception:
            return ("?", id(v))

    def _fp(self, v, left, seen):
        t = type(v)
        if t in SCALARS:
            return v
        if t in _OPAQUE or isinstance(v, type):
            return ("id", id(v))
        left[0] -= 1
        i = id(v)
        if i in seen:
            return ("cycle", i)
        if t in (list, tuple, deque):
            n = len(v)
            if left[0] <= 0:
                return (t, n)
            if n <= left[0] and set(map(type, v)) <= SCALARS:
                left[0] -= n
                return (t, n, tuple(v))
            seen.add(i)
            try:
                return (t, n, tuple([self._fp(x, left, seen) for x in islice(v, max(left[0], 0))]))
            finally:
                seen.discard(i)
        if t is dict:
            n = len(v)
            if left[0] <= 0:
                return (t, n)
            seen.add(i)
            try:
                out = []
                for k, x in islice(v.items(), max(left[0], 0)):
                    out.append(k if type(k) in SCALARS else self._fp(k, left, seen))
                    out.append(x if type(x) in SCALARS else self._fp(x, left, seen))
                    if left[0] <= 0:
                        break
                return (t, n, tuple(out))
            finally:
                seen.discard(i)
        if t in (set, frozenset):
            n = len(v)
            if left[0] <= 0 or n > left[0]:
                return (t, n)
            seen.add(i)
            try:
                return (t, n, frozenset(self._fp(x, left, seen) for x in v))
            finally:
                seen.discard(i)
        np = sys.modules.get("numpy")
        if np is not None and isinstance(v, np.ndarray):
            flat = v.reshape(-1)
            return (t, v.shape, str(v.dtype), flat[: max(left[0], 1) * 8].tobytes())
        d = getattr(v, "__dict__", None)
        slots = _slots(t)
        if d is None and not slots:
            return ("id", i)
        seen.add(i)
        try:
            state = self._fp(d, left, seen) if isinstance(d, dict) else None
            if slots:
                state = (state, tuple(self._fp(getattr(v, s, None), left, seen) for s in slots))
            return (t, i, state)
        finally:
            seen.discard(i)

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
                text = ", ".join([r if type(r) is str else repr(r) for r in reprs])
                if len(text) <= 64:
                    return reprs, None
                return reprs, fp_value(list(values))
            return reprs, fp_value(canon(values, reprs))
        return args_lazy

    def canon(self, values, reprs=None):
        """The canonical tokens of argument `values` (a list of exact scalars and tuples).

        One token per argument, cheap enough for every call: an exact scalar is itself; a
        list, tuple or dict of at most ``args_budget`` scalars is one token with its items; an
        instance of a type that keeps ``object.__repr__`` (whose repr shows nothing) is its
        type name and its first ``args_budget`` attributes (scalars as themselves, lists and
        tuples of scalars with their items, other values by type name and length); anything
        else is its type name and its bounded repr (`reprs`, the argument reprs already made;
        the repr of a value with its own ``__repr__`` shows its content).
        """
        out = []
        add = out.append
        budget = self.args_budget
        defaults_get = self._defaults.get
        render = self.render
        for k, v in enumerate(values):
            t = type(v)
            if t in _CANON_SELF:
                add(v)
                continue
            try:
                if t is list or t is tuple:
                    if len(v) <= budget and set(map(type, v)) <= _CANON_SELF:
                        add(("[", _type_name(t), tuple(v)))
                        continue
                elif t is dict:
                    if (len(v) <= budget and set(map(type, v.values())) <= _CANON_SELF
                            and set(map(type, v)) <= _CANON_SELF):
                        add(("{", tuple(v.items())))
                        continue
                elif defaults_get(t) is not None:
                    d = getattr(v, "__dict__", None)
                    if type(d) is dict:
                        add(("<", _type_name(t), tuple([(a, x if type(x) in _CANON_SELF else _shallow(x))
                                                        for a, x in islice(d.items(), budget)
                                                        if type(a) is str]), len(d)))
                        continue
                r = reprs[k] if reprs is not None else render(v)
                add(("r", _type_name(t), r if type(r) is str else repr(r)))
            except Exception as exc:
                add(("!", _type_name(t), "%s" % type(exc).__name__))
        return out


def _shallow(x):
    """An attribute that is not a scalar, for an argument fingerprint: its items when it is a
    short list or tuple of scalars, else its type name and length."""
    t = type(x)
    if (t is list or t is tuple) and len(x) <= ARGS_FP_BUDGET and set(map(type, x)) <= _CANON_SELF:
        return ("[", tuple(x))
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


_slot_cache = {}


def _slots(cls):
    """All __slots__ names of a class and its bases (cached)."""
    try:
        return _slot_cache[cls]
    except KeyError:
        pass
    names = []
    for klass in getattr(cls, "__mro__", ()):
        s = klass.__dict__.get("__slots__", ())
        if isinstance(s, str):
            s = (s,)
        names.extend(n for n in s if n not in ("__dict__", "__weakref__"))
    _slot_cache[cls] = tuple(names)
    return _slot_cache[cls]
