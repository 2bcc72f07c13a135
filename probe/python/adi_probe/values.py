"""Values as the probe reports and compares them: bounded reprs and fingerprints.

- ``Values.render(v)``: the bounded repr written into calls.jsonl / flt.jsonl: at most
  ``repr_limit`` characters then ``...``; builtin containers over the limit are summarised
  with their length (``[0, 1, 2, ...] (len=100000)``); memory addresses (`` at 0x7f..``)
  become `` at 0x…`` and thread idents are dropped from thread reprs, so outputs are
  comparable across runs; a failing ``__repr__`` gives
  ``<repr failed: TypeError>``; cycles print as ``[...]``; numpy arrays use numpy's own
  printing with a small threshold (only when the target already imported numpy); rendering
  a container stops when it exceeds ``repr_time_ms`` (a single slow ``__repr__`` cannot be
  interrupted).
- ``Values.fingerprint(v)``: what change detection (ΔS) compares, computed from the value and
  not from the bounded text: a nested tuple of the value's content. Scalars are themselves.
  Builtin containers, instances (their ``__dict__``/slots) and numpy arrays are walked up to
  ``FP_BUDGET`` nodes; past the budget a container is represented by its length only, so a
  change far inside a huge structure that keeps every length the same is not detected.
  Modules, functions, classes and other opaque objects are compared by identity only.
- ``Values.args(values)``: reprs of call arguments plus ``fp``, a short deterministic string
  fingerprint of all argument values (no ids, no hash randomisation: stable across runs).
  For short exact scalars it is the argument list itself (``=1, 'a'``); otherwise a CRC of a
  canonical bounded encoding (``#1a2b3c4d5e6f7a8b``).
"""

import re
import sys
import threading
import time
import zlib
from collections import deque
from itertools import islice

NoneType = type(None)
SCALARS = frozenset((int, float, bool, NoneType, str, bytes, complex))
EXACT_SHORT = frozenset((float, bool, NoneType, complex))
FP_BUDGET = 256
_SUMMARY = 32  # room for a " (len=N)" summary past the repr limit
_ADDR = re.compile(r" at 0x[0-9A-Fa-f]+")
_THREAD_IDENT = re.compile(r" \d+(\)>)$")
_OPAQUE = frozenset((type(sys), type(len), type(lambda: 0), type, type(lambda: 0).__code__.__class__))


def _bounded_int_repr(v):
    try:
        return repr(v)
    except ValueError:  # 3.11+: int too large to convert to str
        return "<int with %d bits>" % v.bit_length()


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
        self.big = 10 ** min(self.limit - 1, 4000)  # ints within ±big have exact reprs within the limit
        self.render = self._make_render()

    # -- rendering --------------------------------------------------------------------------

    def _make_render(self):
        limit = self.limit
        big = self.big
        neg_big = -big
        exact_short = EXACT_SHORT
        slow = self._render_slow

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
        try:
            r = repr(v)
        except Exception as exc:
            return _failed(exc)
        if not isinstance(r, str):
            return "<repr failed: TypeError>"
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
        render = self.render
        reprs = [render(v) for v in values]
        exact = True
        for v in values:
            t = type(v)
            if t not in EXACT_SHORT and not ((t is int and -self.big < v < self.big)
                                             or (t is str and len(v) <= self.limit)):
                exact = False
                break
        if exact:
            text = ", ".join(reprs)
            if len(text) <= 64:
                return reprs, "=" + text
        return reprs, self.stable_fp(values)

    def stable_fp(self, values):
        """A deterministic CRC of a bounded canonical encoding of `values`."""
        out = []
        try:
            self._canon(tuple(values), [self.fp_budget], set(), out)
        except Exception as exc:
            out.append("!" + type(exc).__name__)
        data = "\x1f".join(out).encode("utf-8", "surrogatepass")
        return "#%08x%08x" % (zlib.crc32(data), zlib.adler32(data))

    def _canon(self, v, left, seen, out):
        t = type(v)
        if t is str:
            out.append("s%d:%08x" % (len(v), zlib.crc32(v.encode("utf-8", "surrogatepass"))))
            return
        if t is bytes or t is bytearray:
            out.append("b%d:%08x" % (len(v), zlib.crc32(v)))
            return
        if t is int:
            out.append("i%x" % v)
            return
        if t in EXACT_SHORT:
            out.append(t.__name__[0] + repr(v))
            return
        name = t.__module__ + "." + t.__qualname__
        if t in _OPAQUE or isinstance(v, type):
            out.append("o" + name + ":" + str(getattr(v, "__qualname__", getattr(v, "__name__", ""))))
            return
        left[0] -= 1
        i = id(v)
        if left[0] < 0 or i in seen:
            out.append("~" + name)
            return
        seen.add(i)
        try:
            if t in (list, tuple, deque):
                out.append("%s[%d" % (name, len(v)))
                for x in islice(v, max(left[0], 0)):
                    self._canon(x, left, seen, out)
                out.append("]")
            elif t is dict:
                out.append("{%d" % len(v))
                for k, x in islice(v.items(), max(left[0], 0)):
                    self._canon(k, left, seen, out)
                    self._canon(x, left, seen, out)
                out.append("}")
            elif t in (set, frozenset):
                parts = []
                for x in islice(v, max(left[0], 0)):
                    sub = []
                    self._canon(x, left, seen, sub)
                    parts.append("\x1e".join(sub))
                out.append("%s{%d" % (name, len(v)))
                out.extend(sorted(parts))
                out.append("}")
            else:
                np = sys.modules.get("numpy")
                if np is not None and isinstance(v, np.ndarray):
                    out.append("nd%r%s:%08x" % (v.shape, v.dtype, zlib.crc32(v.tobytes())))
                    return
                out.append("<" + name)
                d = getattr(v, "__dict__", None)
                if isinstance(d, dict):
                    self._canon(d, left, seen, out)
                for s in _slots(t):
                    self._canon(getattr(v, s, None), left, seen, out)
                out.append(">")
        finally:
            seen.discard(i)


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
