#!/usr/bin/env python3
"""An independent reference for adi's ΔS: what each statement of one frame really changed.

Standard library only; it does not import adi_probe (it judges it). It runs a script under
``sys.settrace``, finds invocation N of a function (its code object named by qualname and file;
1-based, every call of that code object counts, as adi numbers them) and, at each line event of
that frame and at its return, takes a deep snapshot of the frame's variables: an object graph
keyed by ``id()`` whose objects are kept alive until the frame ends (so no id is reused). From
consecutive snapshots it derives, per executed statement, the true changes:

- a variable new, deleted, rebound (another object, or another scalar value), or rebound to a new
  object equal to the old one (``rebound-equal``: for a tuple or frozenset that is no change);
- for a variable still bound to the same object: the atoms that changed inside it, each a slot
  of one object (an item set/added/removed, a key by identity, an attribute set/added/removed, a
  set's elements, a C object's state), reached from the variable by a path that crosses only
  objects whose identity did not change (``rows[3]``, ``.cache['k']``).

Variables are the frame's locals and the names its function declares ``global`` (named ``global
NAME``, as adi names them). Module globals the function reads are snapshotted too (``module
NAME``): their changes are listed as module state, which the spec does not make frame variables.

Reading never runs the program's code: types through ``type()``, instance dicts and slots through
the type's own descriptors, builtin containers (and their subclasses) through the base type's C
methods; ``repr()`` only for C types that are not containers (``itertools.count``).

With ``--adi FLT.json`` (adi's FLT as ``adi flt --json`` or ``adi break ... --json`` prints it)
it compares adi's steps with the truth, step by step (see ``compare``), and prints the mismatches.

    python3 oracle.py --file t.py --func f --index 2 [--adi flt.json] [--out truth.json] [--text] -- t.py ARGS
    python3 oracle.py --frame t.py:f#2 --frame t.py:C.m#1 --adi flts.json -- t.py ARGS   (several frames, one run)

`--adi -` reads adi's FLT JSON from stdin once the run is over (so adi can record meanwhile); for
several frames the JSON is a list, one FLT per frame in order. The target runs with
PYTHONHASHSEED=0 (adi's runs use it; the oracle re-executes itself to set it) and /usr/bin/python3
or whichever interpreter runs the oracle.
"""

import argparse
import array
import ast
import collections
import dis
import difflib
import json
import linecache
import os
import re
import runpy
import sys
import types

# adi's documented bounds (probe/PROTOCOL.md, "Values"): nested values are walked up to 2000
# nodes and 400 levels (past those a container counts by its length only), a container reports
# at most 8 paths (past that it changes as a whole).
ADI_NODES = 2000
ADI_DEPTH = 400
ADI_PATHS = 8

# The oracle's own bounds (larger, so it can judge adi's): nodes walked per variable and per
# snapshot, items read per container, depth.
VAR_NODES = 4096
SNAP_NODES = 60000
ITEMS = 100000
DEPTH = 400
MAX_STEPS = 20000

SCALARS = frozenset((int, float, complex, bool, type(None), str, bytes))
_GEN_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator
_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")

_mro_of = type.__dict__["__mro__"].__get__
_dict_of_type = type.__dict__["__dict__"].__get__
_type_name = type.__dict__["__name__"].__get__
_type_module = type.__dict__["__module__"].__get__

OPAQUE = frozenset((
    types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.CodeType,
    types.FrameType, types.GeneratorType, types.CoroutineType, types.AsyncGeneratorType,
    types.TracebackType, type(object().__str__), type(object.__init__), type(str.join),
    type(dict.__dict__["fromkeys"]), types.GetSetDescriptorType,
    types.MemberDescriptorType, types.MappingProxyType, type((lambda x: lambda: x)(0).__closure__[0]),
    property, staticmethod, classmethod, type(Ellipsis), type(NotImplemented),
))  # (the types module names some of them only on 3.7+, the cell type on 3.8+)
_YIELDS = {dis.opmap[n] for n in ("YIELD_VALUE",) if n in dis.opmap}
_RESUME = dis.opmap.get("RESUME", -1)


# ---------------------------------------------------------------------------------------------
# Snapshots: object graphs keyed by id()


class Node:
    """One object as a snapshot saw it. `kind`: "seq" (items: [ref]), "map" (items: [(kref,
    vref)]), "set" (items: frozenset(ref)) or None; `attrs`: {name: ref} or None; `state`: what
    a C object or a scalar subclass reads as, or None; `trunc`: not expanded (a bound)."""

    __slots__ = ("t", "kind", "items", "attrs", "state", "trunc", "opaque", "_map")

    def __init__(self, t):
        self.t = t
        self.kind = None
        self.items = None
        self.attrs = None
        self.state = None
        self.trunc = False
        self.opaque = False
        self._map = None

    def mapping(self):
        if self._map is None:
            self._map = dict(self.items)
        return self._map


def is_obj(ref):
    """A ref is an object id (int) or a scalar: (type, value)."""
    return type(ref) is int


def sref(v):
    return (type(v), v)


class Snapshot:
    __slots__ = ("vars", "nodes", "line", "truncated")

    def __init__(self):
        self.vars = {}       # name -> ref, in the frame's order
        self.nodes = {}      # id -> Node
        self.line = None
        self.truncated = False


def _c_state(o, t):
    """What a C object without readable parts reads as: its C repr (a C function: it runs no
    code of the program) without addresses."""
    try:
        text = repr(o)
    except Exception:
        return None
    return _ADDR.sub(" at 0x…", text[:20000])


class Walker:
    """Builds snapshots; `keep` holds every object seen (id -> object) while the frame lives."""

    def __init__(self):
        self.keep = {}
        self.tinfo = {}

    def snapshot(self, pairs):
        snap = Snapshot()
        total = [0]
        for name, v in pairs:
            if type(v) in SCALARS:
                snap.vars[name] = sref(v)
                continue
            snap.vars[name] = id(v)
            self._walk(v, snap, total)
        return snap

    def _walk(self, root, snap, total):
        nodes = snap.nodes
        keep = self.keep
        queue = collections.deque([(root, 0)])
        count = 0
        while queue:
            o, depth = queue.popleft()
            i = id(o)
            if i in nodes:
                continue
            t = type(o)
            node = Node(t)
            nodes[i] = node
            keep[i] = o
            if count >= VAR_NODES or total[0] >= SNAP_NODES or depth >= DEPTH:
                node.trunc = True
                snap.truncated = True
                continue
            count += 1
            total[0] += 1
            for c in self._expand(o, t, node):
                if type(c) not in SCALARS and id(c) not in nodes:
                    queue.append((c, depth + 1))

    def _type_info(self, t):
        """What reading an instance of `t` needs, computed once per type: (opaque, container
        base, scalar base, instance-dict descriptor, slot descriptors, numpy array, C repr)."""
        info = self.tinfo.get(t)
        if info is not None:
            return info
        try:
            mro = _mro_of(t)
        except Exception:
            mro = None
        if mro is None or t in OPAQUE or type in mro or types.ModuleType in mro:
            info = (True, None, None, None, (), False, False)
        else:
            base = next((b for b in (list, tuple, dict, set, frozenset, collections.deque, bytearray, array.array)
                         if b in mro), None)
            sbase = None
            if base is None:
                sbase = next((b for b in (int, float, complex, str, bytes) if b in mro), None)
            ddesc = None
            for k in mro:
                d = _dict_of_type(k).get("__dict__")
                if d is not None:
                    ddesc = d if type(d) is types.GetSetDescriptorType else None
                    break
            slots = tuple((name, d) for k in mro for name, d in _dict_of_type(k).items()
                          if type(d) is types.MemberDescriptorType and name != "__weakref__")
            ndarray = any(_type_name(k) == "ndarray" and _type_module(k) == "numpy" for k in mro)
            r = getattr(t, "__repr__", None)
            crepr = r is not object.__repr__ and type(r) in (
                type(object.__init__), types.BuiltinFunctionType, type(str.join))
            info = (False, base, sbase, ddesc, slots, ndarray, crepr)
        self.tinfo[t] = info
        return info

    def _expand(self, o, t, node):
        """Fill `node` from `o`; returns the child objects."""
        opaque, base, sbase, ddesc, slots, ndarray, crepr = self._type_info(t)
        if opaque:  # classes, modules, functions, code: by identity only
            node.opaque = True
            return ()
        children = []
        ref = self._ref
        if base is list or base is tuple or base is collections.deque:
            if base.__len__(o) <= ITEMS:
                node.kind = "seq"
                node.items = [ref(v, children) for v in base.__iter__(o)]
            else:
                node.trunc = True
        elif base is dict:
            if dict.__len__(o) <= ITEMS:
                node.kind = "map"
                node.items = [(ref(k, children), ref(v, children)) for k, v in dict.items(o)]
            else:
                node.trunc = True
        elif base is set or base is frozenset:
            if base.__len__(o) <= ITEMS:
                node.kind = "set"
                node.items = frozenset(ref(v, children) for v in base.__iter__(o))
            else:
                node.trunc = True
        elif base is bytearray or base is array.array:
            seq = list(base.__iter__(o))
            if len(seq) <= ITEMS:
                node.kind = "seq"
                node.items = [sref(v) for v in seq]
            else:
                node.state = bytes(o) if base is bytearray else o.tobytes()
        elif sbase is not None:  # a scalar subclass (np.float64, a str subclass): its value
            try:
                node.state = (sbase, sbase.__repr__(o))
            except Exception:
                pass
        if ndarray:  # numpy's arrays (and subclasses): dtype, shape and data
            try:
                node.state = (str(o.dtype), o.shape, o.tobytes() if o.nbytes <= 1 << 22 else o.nbytes)
            except Exception:
                pass
        d = None
        if ddesc is not None:
            try:
                d = ddesc.__get__(o, t)
            except Exception:
                d = None
            if type(d) is not dict:
                d = None
        if d is not None or slots:
            attrs = node.attrs = {}
            if d is not None:
                for k, v in list(d.items()):
                    if type(k) is str:
                        attrs[k] = ref(v, children)
            for k, desc in slots:
                try:
                    attrs[k] = ref(desc.__get__(o, t), children)
                except Exception:  # an unset slot
                    pass
        if node.kind is None and node.attrs is None and node.state is None:  # a C object's state
            if crepr:
                node.state = _c_state(o, t)
            if node.state is None:
                node.opaque = True
        return children

    @staticmethod
    def _ref(v, children):
        if type(v) in SCALARS:
            return sref(v)
        children.append(v)
        return id(v)


# ---------------------------------------------------------------------------------------------
# Comparing two snapshots


def _scalar_eq(a, b):
    if a[0] is not b[0]:
        return False
    x, y = a[1], b[1]
    if x == y:
        return a[0] is not float or repr(x) == repr(y) or x == 0  # 0.0 and -0.0 read as equal
    return x != x and y != y  # nan


VALUE_LIKE = (tuple, frozenset)


def value_like(node):
    """A tuple or frozenset: immutable, so a new one equal item by item (the same objects, equal
    scalars) is no change (adi's kind "same" is not written for them either)."""
    if node is None:
        return False
    try:
        mro = _mro_of(node.t)
    except Exception:
        return False
    return tuple in mro or frozenset in mro


def same_value(ra, A, rb, B, depth=0):
    """Whether ref `ra` in A and `rb` in B are the same value: one object (identity), equal
    scalars, or value-like objects (tuples, frozensets, scalar subclasses) equal item by item."""
    oa, ob = is_obj(ra), is_obj(rb)
    if not oa or not ob:
        return (not oa) and (not ob) and _scalar_eq(ra, rb)
    if ra == rb:
        return True
    na, nb = A.nodes.get(ra), B.nodes.get(rb)
    if na is None or nb is None or na.t is not nb.t or not value_like(na) or depth > 50:
        return False
    if na.trunc or nb.trunc:
        return False
    if na.state != nb.state:
        return False
    if (na.attrs or {}) or (nb.attrs or {}):
        if set((na.attrs or {})) != set((nb.attrs or {})):
            return False
        for k, v in (na.attrs or {}).items():
            if not same_value(v, A, nb.attrs[k], B, depth + 1):
                return False
    if na.kind == "seq":
        if len(na.items) != len(nb.items):
            return False
        return all(same_value(x, A, y, B, depth + 1) for x, y in zip(na.items, nb.items))
    if na.kind == "set":
        if len(na.items) != len(nb.items):
            return False
        rest = list(nb.items)
        for x in na.items:
            for j, y in enumerate(rest):
                if same_value(x, A, y, B, depth + 1):
                    del rest[j]
                    break
            else:
                return False
        return True
    return True


def deep_equal(ra, A, rb, B, depth=0, seen=None):
    """Whether two values read the same (content, not identity): for a rebinding to an equal
    new object (adi's kind "same")."""
    if same_value(ra, A, rb, B):
        return True
    if not is_obj(ra) or not is_obj(rb):
        return False
    na, nb = A.nodes.get(ra), B.nodes.get(rb)
    if na is None or nb is None or na.t is not nb.t or na.trunc or nb.trunc or na.opaque or nb.opaque:
        return False
    if depth > 30:
        return False
    seen = seen if seen is not None else set()
    if (ra, rb) in seen:
        return True
    seen.add((ra, rb))
    if na.state != nb.state or na.kind != nb.kind:
        return False
    if set(na.attrs or {}) != set(nb.attrs or {}):
        return False
    for k, v in (na.attrs or {}).items():
        if not deep_equal(v, A, nb.attrs[k], B, depth + 1, seen):
            return False
    if na.kind == "seq":
        return len(na.items) == len(nb.items) and all(
            deep_equal(x, A, y, B, depth + 1, seen) for x, y in zip(na.items, nb.items))
    if na.kind == "map":
        if len(na.items) != len(nb.items):
            return False
        for (ka, va), (kb, vb) in zip(na.items, nb.items):
            if not deep_equal(ka, A, kb, B, depth + 1, seen) or not deep_equal(va, A, vb, B, depth + 1, seen):
                return False
        return True
    if na.kind == "set":
        return same_value(ra, A, rb, B) or (len(na.items) == len(nb.items) and na.items == nb.items)
    return True


def atoms_of(i, A, B):
    """The slots of object `i` (in both snapshots, expanded in both) that changed: a list of
    (slot, kind, old_ref, new_ref); slot is ("i", index), ("k", key_ref), ("a", name), ("e",)
    (a set's elements), ("s",) (state) or ("t",) (its class)."""
    na, nb = A.nodes.get(i), B.nodes.get(i)
    if na is None or nb is None or na.trunc or nb.trunc:
        return []
    if (na.t is nb.t and na.kind == nb.kind and na.state == nb.state and na.items == nb.items
            and na.attrs == nb.attrs):
        return []  # the same refs (compared in C): nothing changed in this object
    out = []
    if na.t is not nb.t:
        out.append((("t",), "set", None, None))
    if na.kind == "seq" and nb.kind == "seq":
        la, lb = na.items, nb.items
        for j in range(max(len(la), len(lb))):
            if j >= len(la):
                out.append((("i", j), "add", None, lb[j]))
            elif j >= len(lb):
                out.append((("i", j), "del", la[j], None))
            elif not same_value(la[j], A, lb[j], B):
                out.append((("i", j), "set", la[j], lb[j]))
    elif na.kind == "map" and nb.kind == "map":
        ma, mb = na.mapping(), nb.mapping()
        for k, v in na.items:
            if k not in mb:
                out.append((("k", k), "del", v, None))
            elif not same_value(v, A, mb[k], B):
                out.append((("k", k), "set", v, mb[k]))
        for k, v in nb.items:
            if k not in ma:
                out.append((("k", k), "add", None, v))
    elif na.kind == "set" and nb.kind == "set":
        if na.items != nb.items:
            out.append((("e",), "set", None, None))
    elif na.kind != nb.kind:
        out.append((("s",), "set", None, None))
    if na.attrs is not None or nb.attrs is not None:
        aa, ab = na.attrs or {}, nb.attrs or {}
        for k, v in aa.items():
            if k not in ab:
                out.append((("a", k), "del", v, None))
            elif not same_value(v, A, ab[k], B):
                out.append((("a", k), "set", v, ab[k]))
        for k, v in ab.items():
            if k not in aa:
                out.append((("a", k), "add", None, v))
    if na.state != nb.state:
        out.append((("s",), "set", None, None))
    return out


def child(node, slot):
    """The ref at `slot` of `node`, or None."""
    tag = slot[0]
    if tag == "i":
        if node.kind == "seq" and 0 <= slot[1] < len(node.items):
            return node.items[slot[1]]
        return None
    if tag == "k":
        if node.kind == "map":
            return node.mapping().get(slot[1])
        return None
    if tag == "a":
        return (node.attrs or {}).get(slot[1])
    return None


def edges(node):
    """(slot, ref, expressible) of every child of a node: items, keys (a path cannot name what
    is inside a key: not expressible), values, set elements (not expressible), attributes."""
    out = []
    if node.trunc:
        return out
    if node.kind == "seq":
        out.extend((("i", j), r, True) for j, r in enumerate(node.items))
    elif node.kind == "map":
        for k, v in node.items:
            if is_obj(k):
                out.append((("K", k), k, False))
            out.append((("k", k), v, True))
    elif node.kind == "set":
        out.extend((("E", r), r, False) for r in node.items if is_obj(r))
    for k, v in (node.attrs or {}).items():
        out.append((("a", k), v, True))
    return out


def stable_edges(i, A, B):
    """(slot, child id, expressible) of the children of object `i` that are the same object in
    A and B (a path crosses only these)."""
    na, nb = A.nodes.get(i), B.nodes.get(i)
    if na is None or nb is None or na.trunc or nb.trunc or na.opaque:
        return
    for slot, c, e in edges(na):
        if not is_obj(c) or c not in B.nodes:
            continue
        tag = slot[0]
        if tag == "K":
            if nb.kind != "map" or c not in nb.mapping():
                continue
        elif tag == "E":
            if nb.kind != "set" or c not in nb.items:
                continue
        elif child(nb, slot) != c:
            continue
        yield slot, c, e


def dirty_nodes(A, B, targets):
    """The objects from which a stable path leads to one of `targets` (themselves included)."""
    if not targets:
        return set()
    parents = collections.defaultdict(list)
    for i in A.nodes:
        for _slot, c, _e in stable_edges(i, A, B):
            parents[c].append(i)
    dirty = set(targets)
    stack = list(targets)
    while stack:
        for p in parents.get(stack.pop(), ()):
            if p not in dirty:
                dirty.add(p)
                stack.append(p)
    return dirty


def stable_reach(ref, A, B, dirty=None):
    """BFS from a variable's object through children whose identity is the same in A and B:
    {id: (path, expressible, depth)} (path: a tuple of slots; the shortest). With `dirty`, only
    through those objects (the ones that lead to a change)."""
    out = {}
    if not is_obj(ref) or ref not in A.nodes or ref not in B.nodes:
        return out
    if dirty is not None and ref not in dirty:
        return out
    out[ref] = ((), True, 0)
    queue = collections.deque([ref])
    while queue:
        i = queue.popleft()
        path, expr, depth = out[i]
        for slot, c, e in stable_edges(i, A, B):
            if c in out or (dirty is not None and c not in dirty):
                continue
            out[c] = (path + (slot,), expr and e, depth + 1)
            queue.append(c)
    return out


def walk_size(ref, S, cap=ADI_NODES + 1):
    """How many nodes a walk of `ref` in S visits, counted as adi's documented bound counts them
    (probe/PROTOCOL.md: "2,000 per variable, 400 levels"):
    every container or object once per time the walk reaches it (a shared one again; a cycle
    stops), a container of scalars only as one node, classes, modules and functions as none;
    and the deepest level reached. Stops past `cap`; a part past the oracle's own bounds counts
    as `cap`."""
    if not is_obj(ref):
        return 0, 0
    count = [0]
    deepest = [0]
    stack_ids = set()

    def visit(i, depth):
        if count[0] >= cap:
            return
        node = S.nodes.get(i)
        if node is None or node.opaque:
            return
        if node.trunc:
            count[0] = cap
            return
        count[0] += 1
        deepest[0] = max(deepest[0], depth)
        if i in stack_ids or depth >= ADI_DEPTH:
            return
        kids = [c for _slot, c, _e in edges(node) if is_obj(c)]
        if not kids:
            return
        stack_ids.add(i)
        try:
            for c in kids:
                visit(c, depth + 1)
                if count[0] >= cap:
                    return
        finally:
            stack_ids.discard(i)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, ADI_DEPTH * 3 + 200))
    try:
        visit(ref, 0)
    finally:
        sys.setrecursionlimit(limit)
    return count[0], deepest[0]


# ---------------------------------------------------------------------------------------------
# Rendering (for reports): short, with identities as @N


class Namer:
    def __init__(self):
        self.tags = {}

    def tag(self, i):
        t = self.tags.get(i)
        if t is None:
            t = self.tags[i] = len(self.tags) + 1
        return t

    def render(self, ref, S, depth=2, width=4):
        if not is_obj(ref):
            r = repr(ref[1])
            return r if len(r) <= 60 else r[:57] + "..."
        node = S.nodes.get(ref) if S is not None else None
        if node is None:
            return "<?>@%d" % self.tag(ref)
        name = "%s@%d" % (_type_name(node.t), self.tag(ref))
        if depth <= 0 or node.trunc:
            return name
        parts = []
        if node.kind == "seq":
            parts = [self.render(r, S, depth - 1, width) for r in node.items[:width]]
            more = len(node.items) - width
            open_, close = "[", "]"
        elif node.kind == "map":
            parts = ["%s: %s" % (self.render(k, S, depth - 1, width), self.render(v, S, depth - 1, width))
                     for k, v in node.items[:width]]
            more = len(node.items) - width
            open_, close = "{", "}"
        elif node.kind == "set":
            items = sorted(node.items, key=repr)
            parts = [self.render(r, S, depth - 1, width) for r in items[:width]]
            more = len(items) - width
            open_, close = "{", "}"
        elif node.attrs is not None:
            items = list(node.attrs.items())
            parts = ["%s=%s" % (k, self.render(v, S, depth - 1, width)) for k, v in items[:width]]
            more = len(items) - width
            open_, close = "(", ")"
        elif node.state is not None:
            s = node.state[1] if type(node.state) is tuple and len(node.state) == 2 else node.state
            r = str(s)
            return "%s<%s>" % (name, r if len(r) <= 40 else r[:37] + "...")
        else:
            return name
        if more > 0:
            parts.append("…%d more" % more)
        return name + open_ + ", ".join(parts) + close

    def key_text(self, kref, S):
        if not is_obj(kref):
            return repr(kref[1])
        node = S.nodes.get(kref)
        if node is not None and value_like(node) and node.kind == "seq" and all(not is_obj(r) for r in node.items):
            items = [repr(r[1]) for r in node.items]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return self.render(kref, S, depth=1)

    def path_text(self, path, S):
        out = []
        for slot in path:
            tag = slot[0]
            if tag == "i":
                out.append("[%d]" % slot[1])
            elif tag == "k":
                out.append("[%s]" % self.key_text(slot[1], S))
            elif tag == "a":
                out.append("." + slot[1])
            elif tag == "K":
                out.append("{key %s}" % self.key_text(slot[1], S))
            elif tag == "E":
                out.append("{element %s}" % self.render(slot[1], S, depth=1))
            elif tag == "e":
                out.append("{elements}")
            elif tag == "s":
                out.append("{state}")
            elif tag == "t":
                out.append(".__class__")
        return "".join(out)


# ---------------------------------------------------------------------------------------------
# Statements: which line events start a step (adi's step is one executed statement)


class StmtMap:
    """line -> the first line of the innermost statement holding it, for one code object."""

    def __init__(self, code):
        self.keys = {}
        self.globals = []
        self.comp_spans = []
        self.known = False
        lines = linecache.getlines(code.co_filename)
        if not lines:
            return
        try:
            tree = ast.parse("".join(lines))
        except (SyntaxError, ValueError):
            return
        fn = self._find(tree, code)
        if fn is None:
            return
        self.known = True
        body = fn.body if not isinstance(fn, ast.Module) else fn.body
        for st in body:
            self._add(st)
        for node in self._scope_nodes(fn):
            if isinstance(node, ast.Global):
                self.globals.extend(n for n in node.names if n not in self.globals)
            elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp)):
                self.comp_spans.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset))

    @staticmethod
    def _find(tree, code):
        if code.co_name == "<module>":
            return tree
        best = None
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == code.co_name:
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if first == code.co_firstlineno or node.lineno == code.co_firstlineno:
                    return node
                if best is None:
                    best = node
        return best

    @staticmethod
    def _scope_nodes(fn):
        stack = list(fn.body) if hasattr(fn, "body") else []
        while stack:
            node = stack.pop()
            yield node
            for c in ast.iter_child_nodes(node):
                if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                    continue
                stack.append(c)

    def _add(self, st):
        start = st.lineno
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and st.decorator_list:
            start = min(d.lineno for d in st.decorator_list)
        end = getattr(st, "end_lineno", None) or st.lineno
        for ln in range(start, end + 1):
            self.keys[ln] = start
        if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        for field in ("body", "orelse", "finalbody"):
            for c in getattr(st, field, None) or ():
                if isinstance(c, ast.stmt):
                    self._add(c)
        for h in getattr(st, "handlers", None) or ():
            hend = h.body[0].lineno - 1 if h.body else h.lineno
            for ln in range(h.lineno, max(h.lineno, hend) + 1):
                self.keys[ln] = h.lineno
            for c in h.body:
                self._add(c)
        for case in getattr(st, "cases", None) or ():
            p = case.pattern
            cend = case.body[0].lineno - 1 if case.body else p.lineno
            for ln in range(p.lineno, max(p.lineno, cend) + 1):
                self.keys[ln] = p.lineno
            for c in case.body:
                self._add(c)

    def key(self, line):
        return self.keys.get(line, line)


# ---------------------------------------------------------------------------------------------
# The recorder


class Step:
    __slots__ = ("line", "before", "after", "resume", "suspend")

    def __init__(self, line, before, resume=False):
        self.line = line
        self.before = before
        self.after = None
        self.resume = resume
        self.suspend = False


class Oracle:
    """Records invocation `index` of the code object `qualname` defined in `file`."""

    def __init__(self, file, qualname, index, def_line=None):
        self.file = os.path.realpath(file)
        self.qualname = qualname
        self.index = index
        self.def_line = def_line
        self.count = 0
        self.matches = {}
        self.gen_frames = {}  # id -> frame (kept alive): invocations already counted
        self.frame = None
        self.done = False
        self.steps = []
        self.cur = None
        self.last_lasti = -1
        self.walker = Walker()
        self.stmts = None
        self.global_names = []
        self.module_names = []
        self.positions = None
        self.error = None
        self.caller = None
        self.on_done = None

    def _finish(self):
        """This frame is over (or the oracle failed): stop watching; the tracer stops tracing
        once every oracle of the run is done."""
        self.done = True
        if self.on_done is not None:
            self.on_done()

    # -- matching invocations

    def _match(self, code):
        m = self.matches.get(code)
        if m is None:
            m = False
            fn = code.co_filename
            if fn and os.path.realpath(fn) == self.file:
                qn = getattr(code, "co_qualname", None)
                if qn is not None:
                    m = qn == self.qualname
                else:
                    m = code.co_name == self.qualname.rsplit(".", 1)[-1]
                if m and self.def_line is not None:
                    m = code.co_firstlineno == self.def_line
            self.matches[code] = m
        return m

    def global_trace(self, frame, event, arg):
        if event != "call" or self.done:
            return None
        code = frame.f_code
        if not self._match(code):
            return None
        if frame is self.frame:
            self._resume(frame)
            return self.local_trace
        if code.co_flags & _GEN_FLAGS:
            if id(frame) in self.gen_frames and self.gen_frames[id(frame)] is frame:
                return None  # a resumption of an invocation counted before
            self.gen_frames[id(frame)] = frame
        self.count += 1
        if self.count != self.index:
            return None
        self._start(frame)
        return self.local_trace

    def local_trace(self, frame, event, arg):
        if frame is not self.frame or self.done:
            return None
        try:
            if event == "line":
                self._line(frame)
            elif event == "return":
                self._return(frame)
        except Exception as exc:  # the oracle's own error: record it, stop
            import traceback
            self.error = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            self._finish()
            return None
        return self.local_trace

    # -- the frame's variables

    def _start(self, frame):
        self.frame = frame
        code = frame.f_code
        self.stmts = StmtMap(code)
        self.global_names = list(self.stmts.globals)
        loads = []
        for ins in dis.get_instructions(code):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and type(ins.argval) is str:
                name = ins.argval
                if name not in loads and name not in self.global_names:
                    loads.append(name)
        self.module_names = loads
        if sys.version_info >= (3, 12):
            self.positions = list(code.co_positions())
        back = frame.f_back
        if back is not None:
            self.caller = (back.f_code.co_filename, back.f_code.co_name, back.f_lineno)

    def _pairs(self, frame):
        pairs = list(frame.f_locals.items())
        g = frame.f_globals
        for name in self.global_names:
            if name in g:
                pairs.append(("global " + name, g[name]))
        if frame.f_code.co_name != "<module>":
            for name in self.module_names:
                if name in g:
                    v = g[name]
                    if type(v) in OPAQUE or isinstance(v, type):
                        continue
                    pairs.append(("module " + name, v))
        return pairs

    def _snap(self, frame):
        snap = self.walker.snapshot(self._pairs(frame))
        snap.line = frame.f_lineno
        return snap

    # -- steps

    def _in_comprehension(self, lasti):
        if not self.positions or not self.stmts.comp_spans:
            return False
        pos = self.positions[lasti // 2] if 0 <= lasti // 2 < len(self.positions) else None
        if not pos or pos[0] is None or pos[2] is None:
            return False
        for l1, c1, l2, c2 in self.stmts.comp_spans:
            if (l1, c1) <= (pos[0], pos[2]) < (l2, c2):
                return True
        return False

    def _line(self, frame):
        line = frame.f_lineno
        lasti = frame.f_lasti
        key = self.stmts.key(line)
        cur = self.cur
        if cur is not None and key == cur.line and (lasti > self.last_lasti or self._in_comprehension(lasti)):
            self.last_lasti = lasti
            return  # a continuation line of the statement running
        self.last_lasti = lasti
        if cur is None and self.stmts.known and line not in self.stmts.keys:
            return  # the def line itself (a generator's first event on some versions)
        snap = self._snap(frame)
        if cur is not None:
            cur.after = snap
            self.steps.append(cur)
        if len(self.steps) >= MAX_STEPS:
            self._finish()
            return
        self.cur = Step(key, snap)

    def _return(self, frame):
        code = frame.f_code
        suspended = False
        if code.co_flags & _GEN_FLAGS:
            lasti = frame.f_lasti
            co = code.co_code
            if 0 <= lasti < len(co) - 1 and (co[lasti] in _YIELDS or (
                    co[lasti] == _RESUME and co[lasti + 1] > 0)):  # 3.13: at the RESUME after the yield
                suspended = True
        snap = self._snap(frame)
        if self.cur is not None:
            self.cur.after = snap
            self.cur.suspend = suspended
            self.steps.append(self.cur)
            self.cur = None
        if not suspended:
            self._finish()

    def _resume(self, frame):
        snap = self._snap(frame)
        self.cur = Step(self.stmts.key(frame.f_lineno), snap, resume=True)
        self.last_lasti = frame.f_lasti


def threading_settrace_none():
    t = sys.modules.get("threading")
    if t is not None:
        try:
            t.settrace(None)
        except Exception:
            pass


# ---------------------------------------------------------------------------------------------
# The truth of each step


class Truth:
    """The changes of one step, derived from its two snapshots."""

    def __init__(self, k, step, namer):
        self.k = k
        self.step = step
        self.line = step.line
        A, B = step.before, step.after
        self.A, self.B = A, B
        self.namer = namer
        self.status = {}     # name -> status (changed ones only; "changed": same object, atoms inside)
        self.atoms = {}      # (id, slot) -> (kind, old_ref, new_ref)
        self.reach = {}      # name -> {id: (path, expressible, depth)}
        self.bounds = {}     # name -> (values walked, depth) when over adi's bound
        names = list(A.vars) + [n for n in B.vars if n not in A.vars]
        for i in set(A.nodes) & set(B.nodes):
            for slot, kind, o, n in atoms_of(i, A, B):
                self.atoms[(i, slot)] = (kind, o, n)
        self.by_obj = collections.defaultdict(list)
        for (i, slot) in self.atoms:
            self.by_obj[i].append(slot)
        self.dirty = dirty_nodes(A, B, set(self.by_obj))
        for name in names:
            ra, rb = A.vars.get(name), B.vars.get(name)
            if ra is None:
                self.status[name] = "new"
                continue
            if rb is None:
                self.status[name] = "del"
                continue
            if not same_value(ra, A, rb, B):
                self.status[name] = "rebound-equal" if deep_equal(ra, A, rb, B) else "rebound"
                continue
            if not is_obj(ra) or ra != rb:
                continue  # an equal scalar or an equal tuple: no change
            if ra not in self.dirty:
                continue
            reach = stable_reach(ra, A, B, self.dirty)
            self.reach[name] = reach
            if any(i in self.by_obj for i in reach):
                self.status[name] = "changed"
                size, depth = walk_size(ra, A)
                size2, depth2 = walk_size(rb, B)
                if max(size, size2) > ADI_NODES or max(depth, depth2) > ADI_DEPTH:
                    self.bounds[name] = (max(size, size2), max(depth, depth2))

    def var_atoms(self, name):
        """[(id, slot, path, expressible)] of the atoms that changed inside variable `name`."""
        out = []
        for i, (path, expr, _d) in self.reach.get(name, {}).items():
            for slot in self.by_obj.get(i, ()):
                out.append((i, slot, path + (slot,), expr))
        out.sort(key=lambda a: len(a[2]))
        return out

    def describe_atom(self, i, slot, path, name):
        kind, o, n = self.atoms[(i, slot)]
        A, B, nm = self.A, self.B, self.namer
        p = name + nm.path_text(path, A if kind != "add" else B)
        if slot[0] == "s":
            return "%s: state of %s changed" % (p, nm.render(i, A, depth=0))
        if slot[0] == "e":
            return "%s: set elements changed, now %s" % (p, nm.render(i, B, depth=1))
        if slot[0] == "t":
            return "%s: class changed" % p
        if kind == "add":
            return "%s added = %s" % (p, nm.render(n, B))
        if kind == "del":
            return "%s removed (was %s)" % (p, nm.render(o, A))
        return "%s = %s (was %s)" % (p, nm.render(n, B), nm.render(o, A))

    def describe_var(self, name):
        st = self.status.get(name)
        A, B, nm = self.A, self.B, self.namer
        if st is None:
            r = A.vars.get(name)
            if r is None:
                return "%s: not a variable here" % name
            return "%s unchanged (%s)" % (name, nm.render(r, A, depth=1))
        if st == "new":
            return "%s new = %s" % (name, nm.render(B.vars[name], B))
        if st == "del":
            return "%s deleted (was %s)" % (name, nm.render(A.vars[name], A))
        if st in ("rebound", "rebound-equal"):
            return "%s rebound%s: %s (was %s)" % (
                name, " to an equal new object" if st == "rebound-equal" else "",
                nm.render(B.vars[name], B), nm.render(A.vars[name], A))
        atoms = self.var_atoms(name)
        parts = [self.describe_atom(i, slot, path, name) for i, slot, path, _e in atoms[:6]]
        if len(atoms) > 6:
            parts.append("… %d more" % (len(atoms) - 6))
        return "%s same object (%s), changed inside: %s" % (
            name, nm.render(A.vars[name], A, depth=0), "; ".join(parts))

    def to_json(self):
        out = {"step": self.k, "line": self.line, "changes": []}
        if self.step.resume:
            out["resume"] = True
        if self.step.suspend:
            out["suspend"] = True
        for name, st in sorted(self.status.items(), key=lambda kv: (kv[0].startswith("module "),)):
            entry = {"name": name, "status": st, "text": self.describe_var(name)}
            if st == "changed":
                entry["paths"] = []
                for i, slot, path, expr in self.var_atoms(name):
                    kind = self.atoms[(i, slot)][0]
                    entry["paths"].append({
                        "path": self.namer.path_text(path, self.A if kind != "add" else self.B),
                        "kind": kind, "object": "@%d" % self.namer.tag(i), "expressible": expr,
                        "text": self.describe_atom(i, slot, path, name)})
                if name in self.bounds:
                    entry["over_adi_bound"] = {"nodes": _bound_text(self.bounds[name])[0], "depth": self.bounds[name][1]}
            out["changes"].append(entry)
        return out


def _bound_text(b):
    size, depth = b
    return ("over %d" % ADI_NODES if size > ADI_NODES else str(size)), depth


def frame_vars(name):
    """Whether a variable name is one of the frame's (not module state)."""
    return not name.startswith("module ")


# ---------------------------------------------------------------------------------------------
# adi's paths


class PathError(Exception):
    pass


def parse_path(text, partial=False):
    """adi's path (`.attr`, `[3]`, `['key']`, chained) as [("a", name) | ("b", text)]; with
    `partial`, an unclosed last bracket is a ("p", text) segment (a path adi cut)."""
    segs = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == ".":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            if j == i + 1:
                raise PathError("an empty attribute at %d in %r" % (i, text))
            segs.append(("a", text[i + 1:j]))
            i = j
        elif c == "[":
            j = i + 1
            depth = 0
            quote = None
            while j < n:
                ch = text[j]
                if quote:
                    if ch == "\\":
                        j += 2
                        continue
                    if ch == quote:
                        quote = None
                elif ch in "'\"":
                    quote = ch
                elif ch in "([{":
                    depth += 1
                elif ch in ")}":
                    depth -= 1
                elif ch == "]":
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
            if j >= n:
                if partial:
                    segs.append(("p", text[i + 1:]))
                    return segs
                raise PathError("an unclosed [ at %d in %r" % (i, text))
            segs.append(("b", text[i + 1:j]))
            i = j + 1
        else:
            raise PathError("unexpected %r at %d in %r" % (c, i, text))
    return segs


def parse_cut_path(path):
    """A path adi cut around `…` (its start and end kept): segments, one of them ("p", START)
    for the bracket the cut fell in, whose end is dropped. PathError when the cut is elsewhere."""
    head, _, tail = path.partition("…")
    segs = parse_path(head, partial=True)
    if not segs or segs[-1][0] != "p":
        raise PathError("a cut outside a bracket: %r" % path)
    for p in range(len(tail)):
        if tail[p] != "]":
            continue
        try:
            rest = parse_path(tail[p + 1:])
        except PathError:
            continue
        return segs + rest
    raise PathError("no end of the cut bracket in %r" % path)


_ATTR_TEXT = re.compile(r"(\w+)=('(?:[^'\\]|\\.)*'|-?\d+(?:\.\d+)?|None|True|False)(?=[,)])")


def _text_fits(kn, text):
    """Whether the scalar attributes a key's text shows (`name='x'`) are the key object's."""
    attrs = kn.attrs or {}
    for name, val in _ATTR_TEXT.findall(text):
        r = attrs.get(name)
        if r is None or is_obj(r):
            continue
        if repr(r[1]) != val:
            return False
    return True


def _key_candidates(node, text, S):
    """The key refs of a dict node that a bracket text can name."""
    if node.kind != "map":
        return []
    try:
        val = ast.literal_eval(text)
        lit = True
    except Exception:
        val, lit = None, False
    out = []
    for k, _v in node.items:
        if not is_obj(k):
            if lit and type(val) in SCALARS and _scalar_eq(k, sref(val)):
                out.append(k)
            elif lit and type(val) in SCALARS and type(val) is not type(k[1]) and val == k[1]:
                out.append(k)
            continue
        kn = S.nodes.get(k)
        if kn is None:
            continue
        if lit:
            if type(val) is tuple and kn.kind == "seq" and tuple in _mro_of(kn.t):
                if len(val) == len(kn.items) and all(
                        (not is_obj(r)) and r[1] == x for r, x in zip(kn.items, val)):
                    out.append(k)
            continue
        tname = _type_name(kn.t)
        if (text.startswith(tname) or ("." + tname + " ") in text or text.startswith("<" + tname)) \
                and _text_fits(kn, text):
            out.append(k)
    if not out and not lit:
        out = [k for k, _v in node.items if is_obj(k)]
    return out


def resolve_slot(node, seg, S):
    """The slots of `node` a path segment can name (several for an object key named by text)."""
    if seg[0] == "a":
        return [("a", seg[1])]
    if seg[0] == "a<":  # the start of an attribute's name (adi cut the rest)
        return [("a", k) for k in (node.attrs or {}) if k.startswith(seg[1])]
    if seg[0] == "a>":  # the end of an attribute's name (adi cut its start)
        return [("a", k) for k in (node.attrs or {}) if k.endswith(seg[1])]
    text = seg[1]
    if seg[0] == "p":  # the start of a bracket's text (adi cut the rest)
        if node.kind == "seq":
            return [("i", j) for j in range(len(node.items)) if str(j).startswith(text)]
        if node.kind != "map":
            return []
        out = []
        for k, _v in node.items:
            if not is_obj(k):
                if repr(k[1]).startswith(text) or text.startswith(repr(k[1])):
                    out.append(("k", k))
                continue
            kn = S.nodes.get(k)
            if kn is not None and (text.startswith(_type_name(kn.t)) or text.startswith("<")
                                   or text.startswith("(")) and _text_fits(kn, text):
                out.append(("k", k))
        return out
    if node.kind == "seq":
        try:
            j = int(text)
        except ValueError:
            return []
        if j < 0:
            j += len(node.items)
        return [("i", j)]
    if node.kind == "map":
        return [("k", k) for k in _key_candidates(node, text, S)]
    return []


# ---------------------------------------------------------------------------------------------
# The comparison


def adi_text(c):
    name = c.get("name", "?")
    path = c.get("path") or ""
    kind = c.get("kind")
    full = name + path
    if kind == "new":
        return "+ %s = %s" % (full, c.get("new"))
    if kind == "del":
        return "- %s" % full
    if kind == "app":
        return "~ %s: appended %s" % (full, c.get("new"))
    if kind == "same":
        return "~ %s = %s (a new object, equal to the old)" % (full, c.get("new"))
    return "~ %s = %s (was %s)" % (full, c.get("new"), c.get("old"))


def find_flt(obj):
    if isinstance(obj, dict):
        if "steps" in obj and "frame" in obj:
            return obj
        for key in ("result", "flt"):
            if key in obj:
                f = find_flt(obj[key])
                if f is not None:
                    return f
    return None


class Judge:
    """Checks one adi change against the truth of one step."""

    def __init__(self, truth):
        self.t = truth

    def var_name(self, adi_name):
        t = self.t
        if adi_name in t.A.vars or adi_name in t.B.vars:
            return adi_name
        if adi_name.startswith("global "):
            alt = "module " + adi_name[len("global "):]
            if alt in t.A.vars or alt in t.B.vars:
                return alt
        return None

    def judge(self, c):
        """(verdict, detail, covered atoms). verdict: "real", "whole" (a whole-value report of an
        in-place change), "not-real", "path-on-rebound", "path-across-rebinding", "unknown-var",
        "kind", "unverifiable"."""
        t = self.t
        name = self.var_name(c.get("name", ""))
        if name is None:
            return "unknown-var", "the oracle has no variable %r" % c.get("name"), set()
        st = t.status.get(name)
        kind = c.get("kind")
        path = c.get("path")
        if not path:
            if kind == "new":
                if st == "new":
                    return "real", "", set()
                return ("not-real" if st in (None, "changed") else "kind"), t.describe_var(name), set()
            if kind == "del":
                if st == "del":
                    return "real", "", set()
                return ("not-real" if st in (None, "changed") else "kind"), t.describe_var(name), set()
            if kind in ("mod", "same"):
                if st == "rebound" or (st == "rebound-equal" and kind == "same"):
                    return "real", "", set()
                if st == "rebound-equal":
                    return "real", "", set()  # texts may differ where the oracle reads equal content
                if st == "changed":
                    cov = {(i, s) for i, s, _p, _e in t.var_atoms(name)}
                    return "whole", "", cov
                if st in ("new", "del"):
                    return "kind", t.describe_var(name), set()
                return "not-real", t.describe_var(name), set()
            if kind == "app":
                if st == "changed":
                    ra = t.A.vars[name]
                    cov = {(ra, s) for s in t.by_obj.get(ra, ()) if t.atoms[(ra, s)][0] == "add"}
                    if cov:
                        return "real", "", cov
                return ("kind" if st else "not-real"), t.describe_var(name), set()
            return "unverifiable", "unknown kind %r" % kind, set()
        # a path inside the variable's value
        if st in ("rebound", "rebound-equal", "new", "del"):
            return "path-on-rebound", t.describe_var(name), set()
        try:
            segs = parse_cut_path(path) if "…" in path else parse_path(path)
        except PathError as e:
            if "…" in path:
                return self._judge_cut(name, path, kind)
            return "unverifiable", str(e), set()
        A, B = t.A, t.B
        cur = A.vars.get(name)
        if cur is None or not is_obj(cur):
            return "not-real", t.describe_var(name), set()
        # walk every segment but the last through objects of the same identity in A and B
        results = []
        self._walk(segs, 0, cur, (), name, kind, results)
        if not results:
            return "not-real", t.describe_var(name) + " (the path %s names nothing in it)" % path, set()
        order = ["real", "whole", "kind", "path-across-rebinding", "unverifiable", "not-real"]
        results.sort(key=lambda r: order.index(r[0]))
        return results[0]

    def _walk(self, segs, k, cur, path, name, kind, results):
        t = self.t
        A, B = t.A, t.B
        na, nb = A.nodes.get(cur), B.nodes.get(cur)
        if na is None or nb is None:
            results.append(("not-real", "%s%s is not in both snapshots" % (name, t.namer.path_text(path, A)), set()))
            return
        if na.trunc or nb.trunc or na.opaque:
            results.append(("unverifiable", "%s%s is past the oracle's bounds or opaque to it" % (
                name, t.namer.path_text(path, A)), set()))
            return
        seg = segs[k]
        slots = list(dict.fromkeys(resolve_slot(na, seg, A) + resolve_slot(nb, seg, B)))
        if not slots:
            results.append(("not-real", "%s%s has no %s" % (name, t.namer.path_text(path, A), seg[1]), set()))
            return
        last = k == len(segs) - 1
        for slot in slots:
            ca, cb = child(na, slot), child(nb, slot)
            p = path + (slot,)
            if not last:
                if ca is None or cb is None:
                    results.append(("not-real", "%s%s is absent before or after" % (name, t.namer.path_text(p, A)), set()))
                    continue
                if not (is_obj(ca) and ca == cb):
                    if same_value(ca, A, cb, B):
                        results.append(("not-real", "%s%s holds an equal value, no change under it" % (
                            name, t.namer.path_text(p, A)), set()))
                    else:
                        # the replacement is what changed: this report stands for it (wrongly)
                        cov = {(cur, slot)} if (cur, slot) in t.atoms else set()
                        results.append(("path-across-rebinding", "%s%s was replaced: %s (was %s)" % (
                            name, t.namer.path_text(p, A), t.namer.render(cb, B), t.namer.render(ca, A)), cov))
                    continue
                self._walk(segs, k + 1, ca, p, name, kind, results)
                continue
            results.append(self._last(cur, slot, ca, cb, p, name, kind))

    def _last(self, cur, slot, ca, cb, path, name, kind):
        t = self.t
        atom = t.atoms.get((cur, slot))
        text = name + t.namer.path_text(path, t.A if ca is not None else t.B)
        if kind == "app":
            # items appended to the list at this path
            if is_obj(ca) and ca == cb:
                cov = {(ca, s) for s in t.by_obj.get(ca, ()) if t.atoms[(ca, s)][0] == "add"}
                if cov:
                    return "real", "", cov
                if self._opaque(ca):
                    return "unverifiable", "%s is past the oracle's bounds or opaque to it" % text, set()
            elif is_obj(ca) and is_obj(cb) and atom is not None:
                return "path-across-rebinding", "%s was replaced, not appended to: %s (was %s)" % (
                    text, t.namer.render(cb, t.B), t.namer.render(ca, t.A)), {(cur, slot)}
            return "not-real", "%s: nothing appended (%s)" % (text, self._at(ca, cb)), set()
        if atom is not None:
            akind = atom[0]
            want = {"new": "add", "del": "del", "mod": "set", "same": "set"}.get(kind)
            if want != akind and not (kind == "mod" and akind == "set"):
                return "kind", "%s: %s" % (text, t.describe_atom(cur, slot, path, name)[len(name):]), {(cur, slot)}
            return "real", "", {(cur, slot)}
        if is_obj(ca) and ca == cb:
            inner = stable_reach(ca, t.A, t.B, t.dirty)
            cov = {(i, s) for i in inner for s in t.by_obj.get(i, ())}
            if cov:
                return "whole", "", cov
            if self._opaque(ca):
                return "unverifiable", "%s is past the oracle's bounds or opaque to it" % text, set()
        detail = "%s unchanged (%s)" % (text, self._at(ca, cb))
        if slot[0] == "k" and is_obj(slot[1]):
            inner = [(i, s, p + (s,)) for i, (p, _e, _d) in stable_reach(slot[1], t.A, t.B, t.dirty).items()
                     for s in t.by_obj.get(i, ())]
            if inner:
                detail += "; the key is the same object, changed inside: " + "; ".join(
                    t.describe_atom(i, s, p, "key") for i, s, p in inner[:3])
        return "not-real", detail, set()

    def _opaque(self, i):
        """Whether the oracle cannot see inside object `i` (past its bounds, or opaque)."""
        na, nb = self.t.A.nodes.get(i), self.t.B.nodes.get(i)
        return na is None or nb is None or na.trunc or nb.trunc or (na.opaque and na.state is None)

    def _at(self, ca, cb):
        t = self.t
        if ca is None and cb is None:
            return "absent"
        return "%s → %s" % (t.namer.render(ca, t.A) if ca is not None else "absent",
                            t.namer.render(cb, t.B) if cb is not None else "absent")

    def _judge_cut(self, name, path, kind):
        """A path adi cut around `…` outside a bracket (`.a._b._b…._transform._inverted`): its
        start is followed from the variable (its last name may be cut), then any stable way down
        from there, to where its end names a change."""
        t = self.t
        head, _, tail = path.partition("…")
        try:
            hsegs = parse_path(head)
            if hsegs and hsegs[-1][0] == "a":
                hsegs[-1] = ("a<", hsegs[-1][1])  # the cut may have fallen inside this name
        except PathError:
            m = re.match(r"^(.*)\.(\w*)$", head)
            if not m:
                return "unverifiable", "a cut path the oracle cannot read: %s" % path, set()
            try:
                hsegs = parse_path(m.group(1)) + [("a<", m.group(2))]
            except PathError:
                return "unverifiable", "a cut path the oracle cannot read: %s" % path, set()
        m = re.match(r"^(\w*)(.*)$", tail)
        try:
            tsegs = ([("a>", m.group(1))] if m.group(1) else []) + parse_path(m.group(2))
        except PathError:
            return "unverifiable", "a cut path the oracle cannot read: %s" % path, set()
        if not tsegs:
            return "unverifiable", "a cut path the oracle cannot read: %s" % path, set()
        # the objects the start names (same identity before and after)
        starts = [(t.A.vars.get(name), ())]
        for seg in hsegs:
            nxt = []
            for cur, p in starts:
                na, nb = t.A.nodes.get(cur), t.B.nodes.get(cur)
                if na is None or nb is None:
                    continue
                for slot in resolve_slot(na, seg, t.A):
                    ca, cb = child(na, slot), child(nb, slot)
                    if is_obj(ca) and ca == cb:
                        nxt.append((ca, p + (slot,)))
            starts = nxt
        best = []
        truncated = False
        seen = set()
        queue = collections.deque(starts)
        while queue and len(seen) < 5000:
            cur, p = queue.popleft()
            if cur in seen:
                continue
            seen.add(cur)
            results = []
            self._walk(tsegs, 0, cur, p, name, kind, results)
            for r in results:
                if r[0] in ("real", "whole"):
                    return r
            best.extend(r for r in results if r[0] in ("path-across-rebinding", "unverifiable"))
            na, nb = t.A.nodes.get(cur), t.B.nodes.get(cur)
            if na is None or nb is None or na.trunc or nb.trunc:
                truncated = True
            for slot, c, e in stable_edges(cur, t.A, t.B):
                if e and c not in seen:
                    queue.append((c, p + (slot,)))
        best.sort(key=lambda r: r[0] != "path-across-rebinding")
        if best:
            return best[0]
        if truncated or queue:
            return "unverifiable", "the cut path %s leads past the oracle's bounds" % path, set()
        return "not-real", "no change inside %s matches the cut path %s" % (name, path), set()

    def whole_allowed(self, name, path_obj=None):
        """Why a whole-value report of an in-place change is allowed (adi's documented rules), or
        None: the container has more than 8 changed paths, the object is opaque (a C object's
        state), the changes are inside dict keys or set elements (no path names them), or the
        value is past adi's walk bound."""
        t = self.t
        if name in t.bounds:
            return "past adi's walk bound (%s nodes, depth %d)" % _bound_text(t.bounds[name])
        atoms = t.var_atoms(name) if path_obj is None else [
            (i, s, p, e) for i, (p, e, _d) in stable_reach(path_obj, t.A, t.B, t.dirty).items() for s in t.by_obj.get(i, ())]
        if not atoms:
            return None
        per = collections.Counter(i for i, _s, _p, _e in atoms)
        if max(per.values()) > ADI_PATHS:
            return "a container with more than %d changed paths" % ADI_PATHS
        if all(s[0] in ("s", "e", "t") for _i, s, _p, _e in atoms):
            return "a change of state or set elements, which has no finer path"
        if all(not e for _i, _s, _p, e in atoms):
            return "changes inside dict keys or set elements (no path names them)"
        return None


def align(olines, alines):
    """Pairs (oracle step index, adi step index) of the steps aligned by their lines, and a
    description of where the two step sequences differ."""
    if olines == alines:
        return [(i, i) for i in range(len(olines))], []
    sm = difflib.SequenceMatcher(None, olines, alines, autojunk=False)
    pairs, diffs = [], []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            pairs.extend(zip(range(i1, i2), range(j1, j2)))
        else:
            diffs.append({"oracle_steps": [i1 + 1, i2], "oracle_lines": olines[i1:i2][:20],
                          "adi_steps": [j1 + 1, j2], "adi_lines": alines[j1:j2][:20]})
            if tag == "replace" and i2 - i1 == j2 - j1:
                pairs.extend(zip(range(i1, i2), range(j1, j2)))
    return pairs, diffs


def compare(truths, flt):
    """Mismatches between adi's FLT and the truth, step by step:
    (a) every change adi reports at step k is real at step k ("not-real"; "wrong-step" when it
        is real at another step of the frame; "wrong-kind" when the variable or slot changed in
        another way: new/modified/deleted/appended);
    (b) adi never reports a path on a variable the oracle saw rebound ("path-on-rebound"), nor a
        path crossing an object that was replaced ("path-across-rebinding");
    (c) no variable the oracle saw changed in a step is missing from that step ("missing": a
        variable new, deleted or rebound not named, or a change inside a value that no change of
        the step covers) -- except, stated as exemptions: a variable whose value is past adi's
        walk bound (2000 objects, 400 levels), a change inside a dict key or a set element (no path
        names it), a tuple or frozenset rebound to an equal one (no change by the spec), and
        module state (globals the function does not declare global);
    (d) no object changed once is shown more than once in one step ("duplicate": two changes of
        the step cover the same slot of the same object, e.g. one per alias);
    (e) an in-place change shown as a whole value where paths name it ("whole-value"), unless
        adi's rules allow it (more than 8 changed paths in one container, a C object's state,
        changes only inside keys, past the walk bound).
    Returns {"mismatches": [...], "exempt": [...], "unverifiable": [...], "step_diffs": [...]}."""
    steps = flt.get("steps") or []
    olines = [t.line for t in truths]
    alines = [s.get("line") for s in steps]
    pairs, diffs = align(olines, alines)
    out = {"mismatches": [], "whole_value": [], "exempt": [], "unverifiable": [], "step_diffs": diffs,
           "oracle_steps": len(truths), "adi_steps": len(steps)}
    page = flt.get("page") or {}
    if page.get("total") and page["total"] > len(steps):
        out["adi_steps_total"] = page["total"]

    def add(bucket, check, k, t, name, adi, oracle):
        out[bucket].append({"check": check, "step": k + 1, "line": t.line, "name": name,
                            "adi": adi, "oracle": oracle})

    judged = {}
    for oi, ai in pairs:
        t = truths[oi]
        judge = Judge(t)
        changes = steps[ai].get("changes") or []
        covers = collections.defaultdict(list)
        named = set()
        for c in changes:
            verdict, detail, cov = judge.judge(c)
            vname = judge.var_name(c.get("name", "")) or c.get("name")
            named.add(vname)
            judged[(ai, id(c))] = verdict
            for a in cov:
                covers[a].append(c)
            text = adi_text(c)
            if c.get("kind") == "mod" and "old" in c and _reads(c.get("old")) == _reads(c.get("new")):
                add("mismatches", "reads-same", ai, t, vname, text,
                    "old and new read the same; " + t.describe_var(vname))
            if verdict == "real":
                continue
            if verdict == "whole":
                why = judge.whole_allowed(vname, None if not c.get("path") else _path_obj(t, vname, c))
                if why is None:
                    add("whole_value", "whole-value", ai, t, vname, text, t.describe_var(vname))
                continue
            if verdict == "unverifiable":
                add("unverifiable", "unverifiable", ai, t, vname, text, detail)
                continue
            if verdict == "not-real":
                other = _real_elsewhere(truths, oi, c)
                gap = getattr(t, "gap", None)
                if gap is not None and Judge(gap).judge(c)[0] in ("real", "whole"):
                    add("mismatches", "while-suspended", ai, t, vname, text,
                        "nothing in this step changed it: other code did while the generator was suspended "
                        "(before it resumed here): " + gap.describe_var(Judge(gap).var_name(c.get("name", "")) or vname))
                elif other is not None:
                    ot = truths[other]
                    add("mismatches", "wrong-step", ai, t, vname, text,
                        "nothing changed it in this step (%s); it changed in step %d, line %d: %s" % (
                            detail, _adi_index(pairs, other) + 1, ot.line,
                            ot.describe_var(Judge(ot).var_name(c.get("name", "")) or vname)))
                else:
                    add("mismatches", "not-real", ai, t, vname, text, detail)
                continue
            check = {"kind": "wrong-kind", "unknown-var": "not-real"}.get(verdict, verdict)
            add("mismatches", check, ai, t, vname, text, detail)
        # (c): variables new, deleted, rebound
        for name, st in t.status.items():
            if not frame_vars(name):
                if st in ("new", "del", "rebound") or any(True for _ in t.var_atoms(name)):
                    add("exempt", "module-state", ai, t, name, None, t.describe_var(name))
                continue
            if st in ("new", "del", "rebound", "rebound-equal") and name not in named:
                if st == "rebound-equal":
                    node = t.B.nodes.get(t.B.vars[name]) if is_obj(t.B.vars[name]) else None
                    if node is not None and (tuple in _mro_of(node.t) or frozenset in _mro_of(node.t)):
                        continue  # no change by the spec
                other = _named_elsewhere(steps, pairs, oi, name)
                add("mismatches", "missing", ai, t, name, "(nothing)" if other is None else
                    "(nothing here; named in step %d, line %s)" % (other + 1, steps[other].get("line")),
                    t.describe_var(name))
        # (c): atoms inside values, each covered by some change of the step (under any variable);
        # an atom not covered is reported once, under the first variable that reaches it
        by_var = collections.OrderedDict()
        exempt_bound = collections.OrderedDict()
        exempt_key = collections.OrderedDict()
        reached = collections.defaultdict(list)
        for name, st in t.status.items():
            if st != "changed" or not frame_vars(name):
                continue
            for i, slot, path, expr in t.var_atoms(name):
                reached[(i, slot)].append((name, path, expr))
        for atom, ways in reached.items():
            if atom in covers:
                continue
            fits = [w for w in ways if w[2] and w[0] not in t.bounds]
            if fits:
                name, path, _e = fits[0]
                by_var.setdefault(name, []).append((atom, path, [w[0] for w in ways if w[0] != name]))
            elif any(w[2] for w in ways):
                name, path, _e = [w for w in ways if w[2]][0]
                exempt_bound.setdefault(name, []).append((atom, path))
            else:
                name, path, _e = ways[0]
                exempt_key.setdefault(name, []).append((atom, path))
        for name, items in exempt_key.items():
            add("exempt", "inside-key", ai, t, name, None,
                "; ".join(t.describe_atom(a[0], a[1], p, name) for a, p in items[:4]))
        for name, items in exempt_bound.items():
            add("exempt", "past-adi-bound", ai, t, name, None,
                "past adi's walk bound (%s nodes, depth %d): " % _bound_text(t.bounds[name]) +
                "; ".join(t.describe_atom(a[0], a[1], p, name) for a, p in items[:4]))
        for name, items in by_var.items():
            adi_for = [adi_text(c) for c in changes if (judge.var_name(c.get("name", "")) or c.get("name")) == name]
            texts = []
            for a, p, others in items[:6]:
                text = t.describe_atom(a[0], a[1], p, name)
                if others:
                    text += " (also reached from %s)" % ", ".join(dict.fromkeys(others))
                texts.append(text)
            add("mismatches", "missing", ai, t, name, "; ".join(adi_for) if adi_for else "(nothing)",
                "; ".join(texts) + (" … %d more" % (len(items) - 6) if len(items) > 6 else ""))
        # (d): one object's change shown more than once
        dup_groups = {}
        for a, cs in covers.items():
            if len(cs) > 1:
                key = tuple(sorted(id(c) for c in cs))
                dup_groups.setdefault(key, (a, cs))
        for _key, (a, cs) in dup_groups.items():
            i, slot = a
            names = [judge.var_name(c.get("name", "")) or c.get("name") for c in cs]
            add("mismatches", "duplicate", ai, t, ", ".join(dict.fromkeys(names)),
                " | ".join(adi_text(c) for c in cs),
                "one change of object @%d (%s) shown %d times" % (
                    t.namer.tag(i), t.namer.path_text((slot,), t.A) or "its state", len(cs)))
    out["mismatches"].sort(key=lambda m: (m["step"], m["check"]))
    return out


def _reads(v):
    """A value field as its text reads (an int, bool, float or None stands for itself)."""
    return v if type(v) is str else repr(v)


def _path_obj(t, name, c):
    """The object a path names (same identity before and after), or None."""
    try:
        segs = parse_path(c.get("path") or "")
    except PathError:
        return None
    cur = t.A.vars.get(name)
    for seg in segs:
        node_a, node_b = t.A.nodes.get(cur), t.B.nodes.get(cur)
        if node_a is None or node_b is None:
            return None
        slots = resolve_slot(node_a, seg, t.A)
        if len(slots) != 1:
            return None
        ca, cb = child(node_a, slots[0]), child(node_b, slots[0])
        if not (is_obj(ca) and ca == cb):
            return None
        cur = ca
    return cur


def _real_elsewhere(truths, oi, c):
    best = None
    for j, t in enumerate(truths):
        if j == oi:
            continue
        verdict = Judge(t).judge(c)[0]
        if verdict in ("real", "whole") and (best is None or abs(j - oi) < abs(best - oi)):
            best = j
    return best


def _adi_index(pairs, oi):
    for o, a in pairs:
        if o == oi:
            return a
    return oi


def _named_elsewhere(steps, pairs, oi, name):
    ai = _adi_index(pairs, oi)
    for d in (1, -1, 2, -2):
        j = ai + d
        if 0 <= j < len(steps):
            for c in steps[j].get("changes") or []:
                if c.get("name") == name or c.get("name") == "global " + name.replace("global ", ""):
                    if not c.get("path"):
                        return j
    return None


# ---------------------------------------------------------------------------------------------
# Running a target


class Tracer:
    """The global trace function of a run that records several frames (one Oracle each)."""

    def __init__(self, oracles):
        self.oracles = oracles
        for o in oracles:
            o.on_done = self._one_done

    def global_trace(self, frame, event, arg):
        found = None
        for o in self.oracles:  # each counts every call (two frames of one function: both count)
            if not o.done:
                r = o.global_trace(frame, event, arg)
                if r is not None and found is None:
                    found = r
        return found

    def _one_done(self):
        if all(o.done for o in self.oracles):
            sys.settrace(None)
            threading_settrace_none()


def run_target(oracles, argv):
    """Run `argv` (a script and its arguments) as `python3 SCRIPT ARGS` would, traced for
    `oracles` (one Oracle, or a list)."""
    if isinstance(oracles, Oracle):
        oracles = [oracles]
    tracer = Tracer(oracles)
    script = argv[0]
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    status = 0
    import threading  # frames of threads the program starts are traced too
    threading.settrace(tracer.global_trace)
    sys.settrace(tracer.global_trace)
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        status = 1
    finally:
        sys.settrace(None)
        threading.settrace(None)
    return status


def truths_of(oracle):
    """The truth of each step; a step that resumed a generator also gets `gap`: what changed
    while it was suspended (other code ran: no statement of this frame caused it)."""
    namer = Namer()
    steps = [s for s in oracle.steps if s.after is not None]
    out = []
    for k, s in enumerate(steps):
        t = Truth(k + 1, s, namer)
        t.gap = None
        if s.resume and k > 0 and steps[k - 1].after is not None:
            gap = Step(s.line, steps[k - 1].after)
            gap.after = s.before
            t.gap = Truth(k + 1, gap, namer)
        out.append(t)
    return out


def report_text(res, label=""):
    lines = []
    mm = res["mismatches"]
    lines.append("%s%d mismatch(es); oracle steps %d, adi steps %d" % (
        label, len(mm), res["oracle_steps"], res["adi_steps"]))
    for d in res["step_diffs"]:
        lines.append("  steps differ: oracle steps %s lines %s, adi steps %s lines %s" % (
            d["oracle_steps"], d["oracle_lines"], d["adi_steps"], d["adi_lines"]))
    for m in mm:
        lines.append("  [%s] step %d, line %s, %s\n      adi:    %s\n      oracle: %s" % (
            m["check"], m["step"], m["line"], m["name"], m["adi"], m["oracle"]))
    return "\n".join(lines)


def parse_frame(text):
    """FILE:QUALNAME#N -> (file, qualname, index)."""
    m = re.match(r"^(.+?\.py):([\w.<>]+)(?:#(\d+))?$", text)
    if not m:
        raise ValueError("a frame is FILE.py:QUALNAME#N, not %r" % text)
    return m.group(1), m.group(2), int(m.group(3) or 1)


def frame_result(oracle, status, adi_flt):
    result = {"func": oracle.qualname, "file": oracle.file, "index": oracle.index,
              "found": oracle.frame is not None, "invocations": oracle.count, "exit_status": status}
    if oracle.error:
        result["oracle_error"] = oracle.error
    truths = truths_of(oracle) if oracle.frame is not None else []
    result["steps"] = [t.to_json() for t in truths]
    if adi_flt is not None:
        result["comparison"] = compare(truths, adi_flt) if truths else {
            "mismatches": [], "whole_value": [], "exempt": [], "unverifiable": [], "step_diffs": [],
            "oracle_steps": 0, "adi_steps": len(adi_flt.get("steps") or [])}
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="The ΔS oracle: what each statement of a frame really changed, and adi's FLT judged against it.",
        epilog="One frame: --file F --func Q [--index N]; several in one run: --frame F:Q#N (repeated). "
               "--adi takes adi's FLT JSON (a list of them, in frame order, for several frames).")
    ap.add_argument("--file", help="the function's source file")
    ap.add_argument("--func", help="its qualname (Class.method)")
    ap.add_argument("--index", type=int, default=1, help="which invocation (1-based)")
    ap.add_argument("--def-line", type=int, default=None, help="its code object's first line, to pick one of several")
    ap.add_argument("--frame", action="append", default=[], help="FILE.py:QUALNAME#N (repeatable)")
    ap.add_argument("--adi", help="adi's FLT JSON to compare with (-: read from stdin after the run)")
    ap.add_argument("--out", help="write the JSON here (default: stdout)")
    ap.add_argument("--text", action="store_true", help="print the mismatches as text too (stderr)")
    ap.add_argument("target", nargs=argparse.REMAINDER, help="-- SCRIPT ARGS")
    args = ap.parse_args(argv)
    target = args.target[1:] if args.target[:1] == ["--"] else args.target
    if not target:
        ap.error("no target script")
    frames = []
    if args.func:
        if not args.file:
            ap.error("--func needs --file")
        frames.append((args.file, args.func, args.index))
    try:
        frames.extend(parse_frame(f) for f in args.frame)
    except ValueError as e:
        ap.error(str(e))
    if not frames:
        ap.error("no frame: give --file and --func, or --frame")
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)
    oracles = [Oracle(f, q, n, args.def_line if len(frames) == 1 else None) for f, q, n in frames]
    adi_doc = None
    if args.adi and args.adi != "-":
        with open(args.adi) as f:
            adi_doc = json.load(f)
    saved_stdin = None
    if args.adi == "-":  # read after the run (the caller records with adi meanwhile); the target gets /dev/null
        saved_stdin = os.dup(0)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
    stdout = sys.stdout
    status = run_target(oracles, target)
    sys.stdout = stdout
    if saved_stdin is not None:
        with os.fdopen(saved_stdin, encoding="utf-8") as f:
            adi_doc = json.loads(f.read())
    flts = [None] * len(oracles)
    if adi_doc is not None:
        docs = adi_doc if isinstance(adi_doc, list) else [adi_doc]
        if len(docs) != len(oracles):
            sys.stderr.write("oracle: %d FLT(s) for %d frame(s)\n" % (len(docs), len(oracles)))
            return 2
        flts = [find_flt(d) for d in docs]
        if any(f is None for f in flts):
            sys.stderr.write("oracle: an FLT document holds no FLT (an object with frame and steps)\n")
            return 2
    results = [frame_result(o, status, flt) for o, flt in zip(oracles, flts)]
    doc = results[0] if len(results) == 1 else {"frames": results}
    text = json.dumps(doc, indent=1, default=str, ensure_ascii=False)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        stdout.write(text + "\n")
    if args.text:
        for r in results:
            if "comparison" in r:
                sys.stderr.write(report_text(r["comparison"], "%s#%d: " % (r["func"], r["index"])) + "\n")
    for o in oracles:
        o.walker.keep.clear()
    # a frame not found or an error of the oracle is in the JSON ("found", "oracle_error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
