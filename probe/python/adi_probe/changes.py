"""ΔS by object identity: what one statement changed in the state a frame can see.

A ``Tracker`` holds a snapshot of a frame's roots (its locals, the globals it declares, and the
module-level objects its code names) and, when a statement ends, says what changed since the
last one (``Tracker.changes``), as the stepper writes it (PROTOCOL.md "step"):

- A root bound to another object is a rebinding (``~ item = (x, x, y) (was (x, x, x))``); a
  change path (``.count``, ``[3]``, ``['k']``) is only ever a path inside the same object, and
  each step of a path crosses only objects that are the same as before. A tuple or frozenset
  rebound to one holding the same objects is no change.
- Dict keys are compared by identity (scalars by value), and never walked: a key object whose
  own attributes change (a cache filling) does not make its dict change.
- An object changed in place is reported once per statement, under the first root that reaches
  it, the names the statement itself uses first (aliases are not repeated).
- A private attribute of a library object (whose repr the probe shows) that is set for the first
  time, or from None, is a cache filling and is not shown (``variables[1]._mhash``), except on
  the frame's first argument (``self._x = ...`` in a method is what the method does).

Snapshots (``Node``) keep the objects they describe alive until the next statement ends, no
longer, and run none of the program's code but what probe/PROTOCOL.md lists: state is read
through the interpreter's descriptors (values.state_of), compared with ``is`` and, for plain
data, with ``==`` in C.

How a value is followed, cheapest first:
- plain data (builtin lists, dicts, tuples and sets holding only scalars and plain data): one
  deep copy, compared with the live value by one ``==`` (in C, whatever its size); the copy
  remembers which original container each of its containers stands for, so paths stay
  identity-true;
- other builtin containers and objects: a node per object with its items or attributes, compared
  by identity, and its children followed (``MAX_NODES`` nodes per root; a module-level object
  ``GLOBAL_DEPTH`` levels); past the bound an object is compared by identity only;
- bytearrays, arrays and numpy arrays by their bytes; C objects without attributes by their repr;
  modules, functions and classes by identity.
"""

import sys
from itertools import compress, islice
from operator import is_, ne

from . import values as _v
from .values import SCALARS, state_of

MAX_NODES = 2000    # objects one root's snapshot follows (a plain part counts as one)
PLAIN_MAX = 20000   # containers one plain copy holds (past that, followed as objects)
ND_MAX = 1 << 22    # bytes of a numpy array compared (past that: by identity)
MAX_DEPTH = 400     # levels of nesting followed
GLOBAL_DEPTH = 3    # levels a module-level object is followed
MAX_PATHS = 8       # changed paths reported inside one container (past that: the container)
PATH_ROOM = 80      # characters of a path (a longer one keeps its start and end)

K_ID, K_PLAIN, K_SEQ, K_MAP, K_SET, K_OBJ, K_BYTES, K_ND, K_REPR = range(9)
_PLAIN_TYPES = (list, dict, tuple, set, frozenset)
_FROZEN = (tuple, frozenset)
_OPAQUE = _v._OPAQUE
_BYTES = (bytearray, _v._array)


class _NotPlain(Exception):
    pass


class Node:
    """What a snapshot knows of one object (see the module docstring for the kinds)."""

    __slots__ = ("obj", "kind", "state", "kids", "inner")

    def __init__(self, obj, kind, state=None, kids=(), inner=None):
        self.obj = obj
        self.kind = kind
        self.state = state   # K_PLAIN: the copy; K_SEQ/K_SET: items; K_MAP: (keys, values); K_OBJ: (names, values)
        self.kids = kids     # [(position, Node)] of the items/values/attributes that are followed
        self.inner = inner   # K_PLAIN: id(container of the copy) -> the original it copies


class _Build:
    """One root's snapshot being made: its node budget and the objects already described."""

    __slots__ = ("left", "done", "busy", "depth", "inner", "prev")

    def __init__(self, depth, prev):
        self.left = MAX_NODES
        self.done = {}     # id -> Node made in this root (an object reached twice is one node)
        self.busy = set()  # ids being made (a cycle back to one of them is not followed)
        self.depth = depth
        self.inner = []    # the plain copies' maps of the containers they stand for
        self.prev = prev    # the root's previous plain copy, or None

    def ids(self):
        """The ids of every object the root's snapshot follows (to find the roots an object
        changed through another root belongs to)."""
        out = set(self.done)
        for inner in self.inner:
            out.update(map(id, inner.values()))
        return out


def _plain(v, inner, count, prev=None):
    """A deep copy of plain data `v` (see the module docstring), or _NotPlain. Immutable parts
    (tuples and frozensets of scalars, nested) are shared, not copied; `prev`, the root's
    previous copy, spares verifying again the items it shares with `v` in the same places."""
    t = type(v)
    if t in SCALARS:
        return v
    if t is list or t is dict or t is tuple or t is set or t is frozenset:
        count[0] -= 1
        if count[0] < 0:
            raise _NotPlain
        if type(prev) is not t:
            prev = None
        if t is dict:
            if not _frozen_all(v.keys(), prev):
                raise _NotPlain
            if _frozen_all(v.values(), prev.values() if prev is not None else None):
                c = v.copy()
            else:
                c = {k: _plain(x, inner, count) for k, x in v.items()}
        elif t is list:
            c = list(v) if _frozen_all(v, prev) else [_plain(x, inner, count) for x in v]
        elif t is tuple:
            if _frozen_all(v, None):
                return v  # immutable all the way down: itself
            c = tuple([_plain(x, inner, count) for x in v])
        else:
            if not _frozen_all(v, None):
                raise _NotPlain
            if t is frozenset:
                return v
            c = set(v)
        inner[id(c)] = v
        return c
    raise _NotPlain


def _frozen_all(items, prev):
    """True when every one of `items` is a scalar or an immutable tuple/frozenset of them
    (nested); the leading items that are `prev`'s own (the same objects, in the same places)
    were verified when `prev` was made."""
    types = set(map(type, items))
    if types <= SCALARS:
        return True
    if not types <= _HASHABLE:
        return False
    start = 0
    if prev is not None and len(prev) <= len(items) and all(map(is_, prev, items)):
        start = len(prev)
    for x in islice(items, start, None):
        if type(x) not in SCALARS and not _frozen_plain(x):
            return False
    return True


_HASHABLE = SCALARS | {tuple, frozenset}
_NO_IDS = frozenset()


def _frozen_plain(k):
    """True for a scalar, or a tuple/frozenset of them (nested): a dict key or set item that plain
    data may hold (immutable, compared by value)."""
    t = type(k)
    if t in SCALARS:
        return True
    return (t is tuple or t is frozenset) and all(map(_frozen_plain, k))


def _base(t):
    """The builtin container type `t` is or derives from, or None."""
    if t in _v._CONTAINERS:
        return t
    for b in _v._CONTAINERS:
        if issubclass(t, b):
            return b
    return None


def _same_scalar(a, b):
    return a is b or (type(a) is type(b) and a == b)


class Tracker:
    """The snapshot of one frame's roots and the changes between statements."""

    def __init__(self, values, self_name=None):
        self.values = values
        self.render = values.render
        self.self_name = self_name  # the frame's first argument (its private fills are shown)
        self.roots = {}             # name -> [value, Node or None, depth]
        self._memo = {}             # id(Node) -> unchanged, during one statement's check
        self._reported = set()      # ids of objects whose changes this statement reported

    # -- snapshots -----------------------------------------------------------------------------

    def bind(self, name, v, depth=None):
        """Take `name` as a root bound to `v` (silently: the frame's state when it starts)."""
        self.roots[name] = self._root_record(v, depth)

    def _root_record(self, v, depth, old=None):
        """[value, Node or None, depth, ids of the objects followed]; `old`: the root's record
        before (its plain copy spares verifying again what it shares with `v`)."""
        t = type(v)
        if t in SCALARS:
            return [v, None, depth, _NO_IDS]
        prev = old[1].state if old is not None and old[1] is not None and old[1].kind == K_PLAIN else None
        b = _Build(depth if depth is not None else MAX_DEPTH, prev)
        n = self._make(v, t, b, 0)
        return [v, n, depth, b.ids() if n.kind != K_ID else _NO_IDS]

    def holding(self, objs):
        """The names of the roots whose snapshots follow any of `objs`."""
        ids = set(map(id, objs))
        return [name for name, r in self.roots.items() if id(r[0]) in ids or not r[3].isdisjoint(ids)]

    def _make(self, v, t, b, level):
        i = id(v)
        n = b.done.get(i)
        if n is not None:
            return n
        if t in _OPAQUE or issubclass(t, type):
            return Node(v, K_ID)
        if t in _PLAIN_TYPES:
            inner = {}
            try:
                c = _plain(v, inner, [PLAIN_MAX], b.prev if level == 0 else None)
            except _NotPlain:
                pass
            except RecursionError:
                pass
            else:
                if c is v:  # a tuple or frozenset of scalars: immutable
                    return Node(v, K_ID)
                n = b.done[i] = Node(v, K_PLAIN, c, (), inner)
                b.inner.append(inner)
                return n
        b.left -= 1
        if b.left < 0 or level >= b.depth:
            return Node(v, K_ID)
        base = _base(t)
        b.busy.add(i)
        try:
            if base is not None:
                n = self._container(v, base, b, level)
            elif t in _BYTES:
                n = Node(v, K_BYTES, bytes(v) if t is bytearray else _v.array_tobytes(v))
            elif _is_ndarray(t):
                n = Node(v, K_ND, _nd_state(v)) if v.nbytes <= ND_MAX else Node(v, K_ID)
            else:
                n = self._object(v, t, b, level)
        finally:
            b.busy.discard(i)
        b.done[i] = n
        return n

    def _kids(self, items, b, level):
        kids = []
        for k, x in enumerate(items):
            t = type(x)
            if t in SCALARS or t in _OPAQUE or id(x) in b.busy:
                continue
            n = self._make(x, t, b, level + 1)
            if n.kind != K_ID:
                kids.append((k, n))
        return kids

    def _container(self, v, base, b, level):
        if base is dict:
            keys = tuple(dict.keys(v))
            vals = tuple(dict.values(v))
            return Node(v, K_MAP, (keys, vals), self._kids(vals, b, level))
        items = tuple(base.__iter__(v))
        if base is set or base is frozenset:
            return Node(v, K_SET, items)
        return Node(v, K_SEQ, items, self._kids(items, b, level))

    def _object(self, v, t, b, level):
        st = state_of(v, t)
        if not st:
            if _v._dict_of(v, t) is None and not _v._slots_of(t) and _v._policy(t) == _v.CALL:
                return Node(v, K_REPR, self.values._call_repr(v, t, self.values.limit * 4))
            if _v._dict_of(v, t) is None and not _v._slots_of(t):
                return Node(v, K_ID)
        names = tuple([a for a, _ in st])
        vals = tuple([x for _, x in st])
        return Node(v, K_OBJ, (names, vals), self._kids(vals, b, level))

    # -- checks ----------------------------------------------------------------------------------

    def _unchanged(self, n, v):
        """True when object `v`, described by `n`, is as `n` says (memoised per statement)."""
        k = n.kind
        if k == K_ID:
            return True
        key = id(n)
        r = self._memo.get(key)
        if r is not None:
            return r
        self._memo[key] = True  # a cycle back here compares as unchanged
        try:
            if k == K_PLAIN:
                r = type(v) is type(n.state) and (n.state == v) is True
            elif k == K_OBJ:
                names, vals = n.state
                st = state_of(v, type(v))
                r = len(st) == len(names) and all(map(is_, vals, [x for _, x in st])) \
                    and all(map(is_, names, [a for a, _ in st])) and self._kids_same(n, vals)
            elif k == K_SEQ or k == K_SET:
                items = tuple(_base(type(v)).__iter__(v))
                st = n.state
                if k == K_SET:
                    r = len(items) == len(st) and set(map(id, items)) == set(map(id, st))
                else:
                    r = len(items) == len(st) and all(map(is_, items, st)) and self._kids_same(n, items)
            elif k == K_MAP:
                keys, vals = n.state
                r = dict.__len__(v) == len(keys) and all(map(is_, dict.keys(v), keys)) \
                    and all(map(is_, dict.values(v), vals)) and self._kids_same(n, vals)
            elif k == K_BYTES:
                r = n.state == (bytes(v) if type(v) is bytearray else _v.array_tobytes(v))
            elif k == K_ND:
                r = n.state == _nd_state(v)
            else:  # K_REPR
                r = n.state == self.values._call_repr(v, type(v), self.values.limit * 4)
        except Exception:
            r = False
        self._memo[key] = r
        return r

    def _kids_same(self, n, items):
        for k, kid in n.kids:
            if not self._unchanged(kid, items[k]):
                return False
        return True

    # -- one statement ----------------------------------------------------------------------------

    def changes(self, live, mentioned=(), check=None):
        """The changes since the last call, for roots `live` (name -> value; a root missing from
        it was deleted), as ``[name, old, new, kind]`` / ``[name, old, new, kind, path]`` lists in
        the order of `live` then deletions. `mentioned`: the names the statement uses, whose
        paths are preferred for an object several roots reach. `check`: the roots whose values
        may have changed in place (effects.py; None: all): the others' bindings are compared."""
        self._memo = {}
        self._reported = set()
        roots = self.roots
        changed = []
        for name, v in live.items():
            r = roots.get(name)
            if r is None:
                changed.append(name)
                continue
            o = r[0]
            if o is v:
                n = r[1]
                if n is None or (check is not None and name not in check) or self._unchanged(n, v):
                    continue
            elif type(o) is type(v) and type(v) in SCALARS and o == v:
                r[0] = v
                continue
            changed.append(name)
        gone = [name for name in roots if name not in live] if len(roots) > len(live) - len(changed) else ()
        if not changed and not gone:
            return []
        if len(changed) > 1 and mentioned:
            first = [n for n in mentioned if n in changed]
            order = first + [n for n in changed if n not in first]
        else:
            order = changed
        found = {}
        for name in order:
            found[name] = self._root(name, live[name])
        out = []
        for name in changed:
            out.extend(found[name])
        for name in gone:
            r = roots.pop(name)
            out.append([name, self._value(r[0]), None, "del"])
        if check is not None and self._reported:
            # an object changed through one root is current in the others that follow it
            for name, r in roots.items():
                if name not in found and not r[3].isdisjoint(self._reported):
                    roots[name] = self._root_record(live[name], r[2], r) if name in live else r
        return out

    def _root(self, name, v):
        roots = self.roots
        r = roots.get(name)
        if r is None:
            roots[name] = self._root_record(v, None)
            return [[name, None, self._value(v), "new"]]
        o, n, depth = r[0], r[1], r[2]
        roots[name] = self._root_record(v, depth, r)
        if o is v:  # changed in place
            if id(v) in self._reported:
                return []  # shown under another name this step (an alias)
            out = []
            self._walk("", n, v, out, name == self.self_name)
            return [[name, a, b, kind] if not p else [name, a, b, kind, _short(p)] for p, a, b, kind in out]
        t = type(v)
        if type(o) is t and t in _FROZEN and len(o) == len(v) and all(map(is_, o, v)):
            return []  # an immutable value holding the same objects: no change
        return [[name] + list(_rebinding(self._value(o), self._value(v), type(o), t))]

    def _value(self, v):
        """A value field: an int, bool or None itself, anything else its bounded repr (an old value
        is rendered when it is replaced: until then it is as the snapshot saw it)."""
        return self.values.value(v)

    # -- paths inside one object -------------------------------------------------------------------

    def _walk(self, path, n, v, out, own):
        """Append the changes inside `v` (described by `n`, which found it changed) to `out` as
        (path, old, new, kind); `own`: `v` is the frame's first argument itself."""
        k = n.kind
        start = len(out)
        ok = False
        if k != K_PLAIN:
            self._reported.add(id(v))  # (a plain copy's walk marks what it reaches itself)
        try:
            if k == K_PLAIN:
                ok = self._plain_paths(path, n.state, v, n.inner, out)
            elif k == K_SEQ:
                ok = self._seq_paths(path, n, v, out)
            elif k == K_MAP:
                ok = self._map_paths(path, n, v, out)
            elif k == K_OBJ:
                ok = self._obj_paths(path, n, v, out, own)
            elif k == K_BYTES:
                ok = self._bytes_paths(path, n, v, out)
        except Exception:
            ok = False
        if not ok:
            del out[start:]
            out.append((path, self._old_text(n), self.render(v), "mod"))

    def _descend(self, path, n, v, out):
        """`v` (the same object as before, at `path`) changed: its own paths, once per statement."""
        if id(v) not in self._reported:
            self._walk(path, n, v, out, False)

    def _rebound(self, path, old, new, out):
        out.append((path,) + _rebinding(self._value(old), self._value(new), type(old), type(new)))

    def _seq_paths(self, path, n, v, out):
        items = tuple(_base(type(v)).__iter__(v))
        st = n.state
        kids = dict(n.kids)
        na, nb = len(st), len(items)
        if nb > na and all(map(is_, st, items[:na])):
            for k, kid in n.kids:
                if not self._unchanged(kid, items[k]):
                    self._descend("%s[%d]" % (path, k), kid, items[k], out)
            out.append((path, None, self._items_text(items[na:]), "app"))
            return True
        if na != nb:
            return False
        diffs = [k for k in range(na) if st[k] is not items[k] or (k in kids and not self._unchanged(kids[k], items[k]))]
        if len(diffs) > MAX_PATHS:
            return False
        for k in diffs:
            p = "%s[%d]" % (path, k)
            if st[k] is items[k]:
                self._descend(p, kids[k], items[k], out)
            elif not _same_scalar(st[k], items[k]):
                self._rebound(p, st[k], items[k], out)
        return True

    def _map_paths(self, path, n, v, out):
        keys, vals = n.state
        kids = dict(n.kids)
        old = {}
        for pos, (k, x) in enumerate(zip(keys, vals)):
            old[_key_id(k)] = (pos, k, x)
        found = []
        seen = set()
        for k, x in dict.items(v):
            kid = _key_id(k)
            seen.add(kid)
            was = old.get(kid)
            if was is None:
                found.append(("new", k, None, x, None))
            elif was[2] is not x:
                if not _same_scalar(was[2], x):
                    found.append(("mod", k, was[2], x, None))
            elif was[0] in kids and not self._unchanged(kids[was[0]], x):
                found.append(("in", k, was[2], x, kids[was[0]]))
            if len(found) > MAX_PATHS:
                return False
        for kid, (pos, k, x) in old.items():
            if kid not in seen:
                found.append(("del", k, x, None, None))
                if len(found) > MAX_PATHS:
                    return False
        if not found:
            return True  # only the order of the keys changed
        for kind, k, ox, nx, kn in found:
            p = "%s[%s]" % (path, self.render(k))
            if kind == "new":
                out.append((p, None, self._value(nx), "new"))
            elif kind == "del":
                out.append((p, self._value(ox), None, "del"))
            elif kind == "mod":
                self._rebound(p, ox, nx, out)
            else:
                self._descend(p, kn, nx, out)
        return True

    def _obj_paths(self, path, n, v, out, own):
        names, vals = n.state
        kids = dict(n.kids)
        old = {a: (pos, x) for pos, (a, x) in enumerate(zip(names, vals))}
        guarded = _v._policy(type(v)) == _v.GUARDED and not own
        seen = set()
        for a, x in state_of(v, type(v)):
            seen.add(a)
            p = path + "." + a
            was = old.get(a)
            if was is None:
                if not (guarded and a[:1] == "_"):
                    out.append((p, None, self._value(x), "new"))
            elif was[1] is not x:
                if _same_scalar(was[1], x):
                    continue
                if guarded and a[:1] == "_" and was[1] is None:
                    continue  # a library object's cache filling
                self._rebound(p, was[1], x, out)
            elif was[0] in kids and not self._unchanged(kids[was[0]], x):
                self._descend(p, kids[was[0]], x, out)
        for a in names:
            if a not in seen:
                out.append((path + "." + a, self._value(old[a][1]), None, "del"))
        return True

    def _plain_paths(self, path, old, new, inner, out):
        """Paths between plain copy `old` and live `new` (which `inner` says `old` stands for)."""
        t = type(old)
        if t in SCALARS:
            return False
        if type(new) is not t or inner.get(id(old)) is not new:
            return False  # another object (or the same one, no longer of that type)
        if id(new) in self._reported:
            return True
        self._reported.add(id(new))
        if t is list or t is tuple:
            na, nb = len(old), len(new)
            if t is list and nb > na and new[:na] == old:
                out.append((path, None, self._items_text(new[na:]), "app"))
                return True
            if na != nb:
                return False
            diffs = list(islice(compress(range(na), map(ne, old, new)), MAX_PATHS + 1))
            if len(diffs) > MAX_PATHS:
                return False
            for k in diffs:
                self._plain_item("%s[%d]" % (path, k), old[k], new[k], inner, out)
            return True
        if t is dict:
            n = len(old)
            diff = None
            if len(new) >= n and all(map(is_, old, new)):
                # the same keys in the same places, maybe more after: found in C, no hashing
                pos = list(islice(compress(range(n), map(ne, old.values(), islice(new.values(), n))),
                                  MAX_PATHS + 1))
                if len(pos) + len(new) - n > MAX_PATHS:
                    return False
                keys = list(new)
                found = [("mod", keys[i], old[keys[i]], new[keys[i]]) for i in pos]
                found += [("new", k, None, new[k]) for k in keys[n:]]
            else:
                try:  # found in C when the values are hashable (a flat dict)
                    diff = new.items() - old.items()
                    gone = old.keys() - new.keys()
                except TypeError:
                    diff = None
                    found = None
            if diff is not None:
                if len(diff) + len(gone) > MAX_PATHS:
                    return False
                order = list(new)
                found = [("mod" if k in old else "new", k, old.get(k), x)
                         for k, x in sorted(diff, key=lambda kx: order.index(kx[0]))]
                found += [("del", k, old[k], None) for k in gone]
            elif found is None:
                found = self._dict_found(old, new)
                if found is None:
                    return False
            for kind, k, ox, nx in found:
                p = "%s[%s]" % (path, self.render(k))
                if kind == "new":
                    out.append((p, None, self._value(nx), "new"))
                elif kind == "del":
                    out.append((p, self._value(ox), None, "del"))
                else:
                    self._plain_item(p, ox, nx, inner, out)
            return True
        return False  # a set: shown whole

    def _dict_found(self, old, new):
        """The keys of plain dicts `old` and `new` that differ, in order (None: more than
        MAX_PATHS)."""
        found = []
        for k, x in new.items():
            if k not in old:
                found.append(("new", k, None, x))
            elif old[k] != x or type(old[k]) is not type(x):
                found.append(("mod", k, old[k], x))
            if len(found) > MAX_PATHS:
                return None
        for k in old:
            if k not in new:
                found.append(("del", k, old[k], None))
                if len(found) > MAX_PATHS:
                    return None
        return found

    def _plain_item(self, p, ox, nx, inner, out):
        start = len(out)
        if not self._plain_paths(p, ox, nx, inner, out):
            del out[start:]
            out.append((p, self._value(ox), self._value(nx), "mod"))

    def _bytes_paths(self, path, n, v, out):
        da = n.state
        db = bytes(v) if type(v) is bytearray else _v.array_tobytes(v)
        if type(v) is bytearray:
            ia, ib = list(da), list(db)
        else:
            ia, ib = _v._array(v.typecode, da).tolist(), v.tolist()
        if len(ib) > len(ia) and ib[:len(ia)] == ia:
            out.append((path, None, self._items_text(ib[len(ia):]), "app"))
            return True
        if len(ia) != len(ib):
            return False
        diffs = list(islice(compress(range(len(ia)), map(ne, ia, ib)), MAX_PATHS + 1))
        if len(diffs) > MAX_PATHS or not diffs:
            return False
        for k in diffs:
            out.append(("%s[%d]" % (path, k), self.render(ia[k]), self.render(ib[k]), "mod"))
        return True

    def _items_text(self, items):
        """Appended items as a change shows them: ``16`` or ``16, 17`` (bounded)."""
        room = self.values.limit
        parts = []
        for k, x in enumerate(items):
            if k == MAX_PATHS or room <= 0:
                parts.append("… (%d items)" % len(items))
                break
            text = self.render(x)
            parts.append(text)
            room -= len(text) + 2
        return ", ".join(parts)

    def _old_text(self, n):
        """The text of what node `n` described (a value now changed as a whole)."""
        k = n.kind
        try:
            if k == K_PLAIN:
                return self.render(n.state)
            if k == K_SEQ or k == K_SET:
                t = type(n.obj)
                items = n.state
                if t is list:
                    return self.render(list(items))
                if t is tuple:
                    return self.render(tuple(items))
                if t is set or t is frozenset:
                    return self.render(t(items))
                return "%s(%s)" % (_v._qualname(t), self.render(list(items)))
            if k == K_MAP:
                return self.render(dict(zip(*n.state))) if type(n.obj) is dict else \
                    "%s(%s)" % (_v._qualname(type(n.obj)), self.render(dict(zip(*n.state))))
            if k == K_BYTES:
                t = type(n.obj)
                return self.render(bytearray(n.state) if t is bytearray else _v._array(n.obj.typecode, n.state))
            if k == K_REPR:
                return _v._cut(n.state, self.values.limit)
        except Exception:
            pass
        return "…"


def _key_id(k):
    """How a dict key is matched across snapshots: scalars (and tuples of them) by value, other
    objects by identity."""
    t = type(k)
    if t in SCALARS or ((t is tuple or t is frozenset) and _frozen_plain(k)):
        return (t, k)
    return id(k)


def _rebinding(old, new, told, tnew):
    """(old, new, kind) of a rebinding: "same" when the new object reads as the old one did; two
    types whose values read the same (a numpy int64 rebound to an int) are named."""
    if _as_text(old) == _as_text(new):
        if told is tnew:
            return None, new, "same"
        return "%s (%s)" % (_as_text(old), _type_text(told)), "%s (%s)" % (_as_text(new), _type_text(tnew)), "mod"
    return old, new, "mod"


def _as_text(x):
    """A value field as text (ints, bools and None are written as themselves)."""
    return x if type(x) is str else repr(x)


def _type_text(t):
    name = _v._type_name(t)
    return name[9:] if name.startswith("builtins.") else name


def _short(p):
    return p if len(p) <= PATH_ROOM else p[:PATH_ROOM // 2] + "…" + p[-PATH_ROOM // 2:]


def _is_ndarray(t):
    np = sys.modules.get("numpy")
    return np is not None and issubclass(t, np.ndarray)


def _nd_state(a):
    return (a.shape, str(a.dtype), a.tobytes())
