"""Where a statement can change state: which of a frame's roots it may change in place.

A step's ΔS compares every root's binding (one ``is`` each) but walks a root's value only where
the step could have changed it (changes.Tracker), so that a frame holding a big graph does not
pay for the graph at every line. ``Effects`` is what one statement's text says, read from its
AST once per statement:

- ``touched``: roots it may change in place: the context of a ``with`` (a lock acquired), the
  base of a subscript or attribute it assigns,
  augments or deletes (``d[k] = v``, ``p.n += 1``, ``xs += [1]``), the receiver of a method
  call that is not one of the read-only ones (``xs.append(1)``; ``d.get(k)`` reads), and the
  roots inside the arguments of a call that is not a pure builtin (``heappush(fringe, x)``,
  ``f(p)``; ``len(xs)`` reads);
- ``called``: names it calls (a local ``add = out.append`` changes ``out``: the step resolves
  what each name holds, ``Effects.resolve``);
- ``indexed``: roots it subscripts (a ``defaultdict`` inserts on a read; plain data does not);
- ``everything``: the statement can reach anything (``exec``, ``eval``, ``locals()``, an
  import, a text that does not parse).

What the text cannot show, the stepper takes from the run: a step during which the program's
own code ran (a callee whose code is not ``pure``, or calls below it, or a generator resumed),
and the first step after the frame resumed, compare every root. ``pure(code)`` is true for a
function whose body only reads (no stores but to its own locals, only pure builtins and
read-only methods called): a ``lambda u, v, d: d.get(w, 1)`` called for every edge costs
nothing. A thread that changes the frame's objects while it runs is not seen (documented).
"""

import ast
import builtins
import dis
import sys
import textwrap


PURE_BUILTINS = frozenset((
    "len", "isinstance", "issubclass", "type", "id", "hash", "abs", "min", "max", "sum", "any",
    "all", "sorted", "reversed", "enumerate", "zip", "range", "map", "filter", "iter", "repr",
    "str", "int", "float", "bool", "complex", "tuple", "list", "dict", "set", "frozenset", "bytes",
    "round", "divmod", "pow", "ord", "chr", "hex", "oct", "bin", "format", "getattr", "hasattr",
    "callable", "print", "ascii", "slice", "object", "super", "bytearray"))
READONLY_METHODS = frozenset((
    "get", "items", "keys", "values", "copy", "index", "count", "find", "rfind", "startswith",
    "endswith", "split", "rsplit", "splitlines", "join", "strip", "lstrip", "rstrip", "lower",
    "upper", "title", "capitalize", "casefold", "format", "replace", "encode", "decode",
    "isdigit", "isalpha", "isalnum", "isspace", "isidentifier", "isupper", "islower",
    "issubset", "issuperset", "union", "intersection", "difference", "symmetric_difference",
    "isdisjoint", "tolist", "astype", "reshape", "partition", "rpartition", "zfill",
    "ljust", "rjust", "center", "expandtabs", "hex", "bit_length", "conjugate", "is_integer",
    "as_integer_ratio", "fromkeys", "__contains__", "__getitem__", "__len__", "__eq__",
    "__hash__", "__repr__", "__str__"))
_REACH_ALL = frozenset(("exec", "eval", "locals", "globals", "vars", "__import__", "compile"))


class Effects:
    """What one statement may change (see the module docstring)."""

    __slots__ = ("touched", "called", "indexed", "everything")

    def __init__(self, touched=(), called=(), indexed=(), everything=False):
        self.touched = frozenset(touched)
        self.called = tuple(called)
        self.indexed = frozenset(indexed)
        self.everything = everything


EVERYTHING = Effects(everything=True)
NOTHING = Effects()


def of_statement(text):
    """The Effects of a statement's source text (a compound statement's header alone)."""
    if not text:
        return EVERYTHING
    src = textwrap.dedent(text).rstrip()
    head = src.split(None, 1)[0] if src.split() else ""
    if head == "elif":
        src = "if" + src[4:]
    elif head in ("else:", "finally:", "try:"):
        return NOTHING
    elif head == "except" or head.startswith("except:"):
        src = "try:\n    pass\n" + src
    for attempt in (src, src + "\n    pass"):
        try:
            tree = ast.parse(attempt)
        except SyntaxError:
            continue
        break
    else:
        return EVERYTHING
    v = _Visitor()
    for stmt in tree.body:
        v.statement(stmt)
    if v.everything:
        return EVERYTHING
    return Effects(v.touched, v.called, v.indexed)


_pure_codes = {}


def pure_code(code):
    """``pure(code)``, remembered per code object."""
    r = _pure_codes.get(code)
    if r is None:
        r = _pure_codes[code] = pure(code)
    return r


def pure(code):
    """True when function `code` only reads what it is given (see the module docstring)."""
    try:
        return _pure(code)
    except Exception:
        return False


_STORES = frozenset((
    "STORE_ATTR", "DELETE_ATTR", "STORE_SUBSCR", "DELETE_SUBSCR", "STORE_GLOBAL", "DELETE_GLOBAL",
    "STORE_DEREF", "DELETE_DEREF", "STORE_NAME", "DELETE_NAME", "IMPORT_NAME", "IMPORT_FROM",
    "YIELD_VALUE", "STORE_SLICE", "BEFORE_WITH", "SETUP_WITH", "RAISE_VARARGS", "CALL_FUNCTION_EX",
    "LIST_APPEND", "SET_ADD", "MAP_ADD"))


def _pure(code):
    """Read from the bytecode (3.11+, where a call's target is marked): no store but to its own
    locals, and every call's target a pure builtin or a read-only method. Comprehensions count as
    stores (their list is the function's own, but their code is not read here)."""
    if sys.version_info < (3, 11):
        return False
    targets = calls = 0
    for ins in dis.get_instructions(code):
        op = ins.opname
        if op in _STORES:
            return False
        if op == "BINARY_OP" and ins.argrepr.endswith("="):
            return False  # an augmented assignment, in place on a list
        if op == "CALL" or op == "CALL_KW":
            calls += 1
        elif op == "LOAD_GLOBAL" and ins.argrepr.startswith("NULL + "):
            if ins.argrepr[7:] not in PURE_BUILTINS:
                return False
            targets += 1
        elif op == "LOAD_METHOD" or (op == "LOAD_ATTR" and ins.argrepr.startswith("NULL|self + ")):
            name = ins.argrepr.rsplit(" ", 1)[-1]
            if name not in READONLY_METHODS:
                return False
            targets += 1
    if calls != targets:
        return False  # a call of something it was given
    return not any(type(c) is type(code) for c in code.co_consts)


class _Visitor:
    def __init__(self):
        self.touched = set()
        self.called = []
        self.indexed = set()
        self.everything = False

    def statement(self, node):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.everything = True
            return
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                self.target(t)
            if node.value is not None:
                self.expr(node.value)
            return
        if isinstance(node, ast.AugAssign):
            if isinstance(node.target, ast.Name):
                self.touched.add(node.target.id)  # ``xs += [1]`` changes a list in place
            else:
                self.target(node.target)
            self.expr(node.value)
            return
        if isinstance(node, ast.Delete):
            for t in node.targets:
                self.target(t)
            return
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self.target(node.target)
            self.expr(node.iter)
            return
        if isinstance(node, (ast.While, ast.If)):
            self.expr(node.test)
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:  # __enter__ and __exit__ may change it (a lock's state)
                self.touched.update(_roots(item.context_expr))
                self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.target(item.optional_vars)
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for d in node.decorator_list:
                self.expr(d)
            if isinstance(node, ast.ClassDef):
                for b in node.bases:
                    self.expr(b)
            else:
                for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                    self.expr(d)
            return
        if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            for h in node.handlers:  # ``except E as e:``: E is evaluated
                if h.type is not None:
                    self.expr(h.type)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal, ast.Pass, ast.Break, ast.Continue)):
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child)
            elif isinstance(child, ast.stmt):
                self.statement(child)
            else:
                for sub in ast.walk(child):
                    if isinstance(sub, ast.expr):
                        self.expr(sub)
                        break

    def target(self, t):
        if isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                self.target(e)
        elif isinstance(t, ast.Starred):
            self.target(t.value)
        elif isinstance(t, (ast.Subscript, ast.Attribute)):
            self.touched.update(_roots(t.value))
            self.expr(t.value)
            if isinstance(t, ast.Subscript):
                self.expr(t.slice)

    def expr(self, e):
        for node in ast.walk(e):
            if isinstance(node, ast.Call):
                self.call(node)
            elif isinstance(node, ast.Subscript):
                self.indexed.update(_roots(node.value))

    def call(self, node):
        f = node.func
        args = list(node.args) + [k.value for k in node.keywords]
        if isinstance(f, ast.Name):
            if f.id in _REACH_ALL:
                self.everything = True
                return
            self.called.append(f.id)
            if f.id in PURE_BUILTINS:
                return
        elif isinstance(f, ast.Attribute):
            if f.attr in READONLY_METHODS:
                return
            self.touched.update(_roots(f.value))
        else:
            self.everything = True  # ``fs[0](x)``, ``(lambda: ...)()``: what it calls is not named
            return
        for a in args:
            self.touched.update(_roots(a))


def _roots(e):
    """The names an expression starts from (``a`` in ``a.b[c].d``, every name in ``f(a, b)``)."""
    return [n.id for n in ast.walk(e) if isinstance(n, ast.Name)]


def resolve(eff, loc, g):
    """The roots a step of a statement with Effects `eff` may have changed through the names it
    called: a bound method held in a variable changes its receiver (returned as the object, to be
    found among the roots); a name that holds anything but a function, a builtin or a class
    reaches anything (None). `loc`, `g`: the frame's locals and globals."""
    out = []
    for name in eff.called:
        if name in loc:
            v = loc[name]
        elif name in g:
            v = g[name]
        else:
            continue  # a builtin: what it may change is in its arguments (``touched``)
        t = type(v)
        if t is _FUNCTION or issubclass(t, type):
            continue  # its arguments are in `touched`; its own code is a callee of the step
        if t is _BUILTIN:
            owner = getattr(v, "__self__", None)
            if owner is None or type(owner) is _MODULE:
                continue
            out.append(owner)
            continue
        if t is _METHOD:
            out.append(v.__self__)
            continue
        return None
    return out


_FUNCTION = type(resolve)
_BUILTIN = type(len)
_METHOD = type(_Visitor().call)
_MODULE = type(builtins)
