"""Static facts about a source file, read from its AST (cached per file).

For every scope (module, class body, function, lambda) of a file this module knows:

- ``qualname``: the scope's qualified name (``Class.method``, ``f.<locals>.g``, a property's
  setter ``Class.prop.fset``), used on Python < 3.11 where code objects have no ``co_qualname``;
- ``keys``: line -> statement key. The key of a statement is its first line (for a decorated
  definition, its first decorator's line). Every line of a simple statement maps to its key,
  so continuation lines of a multi-line statement belong to the same step; for a compound
  statement only its header lines map to it (``for i in range(n):``, ``with a as b:``,
  ``except E:``). Statements that start on the same line share that line's key.
- ``texts``: key -> the source text of the statements starting on that line (headers only for
  compound statements), dedented to the statement's own indentation;
- ``loops``: key -> the enclosing loops inside the scope as a tuple of header keys, outermost
  first. A loop header is inside its own loop; the ``else`` clause of a loop is not;
- ``with_bodies``: key of a ``with`` header -> (first, last) line of its body, so the stepper
  can tell a ``with`` exit (which revisits the header line) from a new loop iteration;
- ``comp_spans``: key -> source spans of the list/set/dict comprehensions of that statement
  (on 3.12+ they are inlined into the enclosing code and jump backwards inside the statement);
- ``globals``: the names the scope declares with a ``global`` statement (its writes to them
  are changes of the frame's state, which ``frame.f_locals`` does not show).
- ``tests``: key of a statement that tests a condition -> the (first, last) lines of the body
  its test enters: ``if``/``elif``, ``while`` and ``case`` clauses whose body starts on a line
  after the header (the stepper tells the outcome from the next statement executed); for an
  ``assert``, ``ASSERT`` (it passed unless it raised AssertionError).

Scopes are found by ``(co_firstlineno, co_name)``, which is how code objects identify them.
"""

import ast
import linecache
import sys
import threading
import tokenize

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_WITHS = (ast.With, ast.AsyncWith)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMP_NAMES = {ast.ListComp: "<listcomp>", ast.SetComp: "<setcomp>",
               ast.DictComp: "<dictcomp>", ast.GeneratorExp: "<genexpr>"}
_INLINED_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp)
_BODY_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")
_MATCH_CASE = getattr(ast, "match_case", None)
ASSERT = (0, -1)  # ``tests`` value of an assert statement: no body
_OLD_AST = sys.version_info < (3, 8)  # no end positions in the AST (oldast.py adds them)
if _OLD_AST:
    from . import oldast


def _isascii(text):
    """``str.isascii`` (3.7+)."""
    try:
        text.encode("ascii")
    except UnicodeEncodeError:
        return False
    return True


if hasattr(str, "isascii"):
    _isascii = str.isascii  # noqa: F811


class Scope:
    """What is known about one scope (one code object) of a file; see the module docstring."""

    __slots__ = ("qualname", "keys", "texts", "loops", "with_bodies", "comp_spans", "globals", "tests", "_spans")

    def __init__(self, qualname):
        self.qualname = qualname
        self.globals = []  # names the scope declares ``global`` (in the order first declared)
        self.keys = {}
        self.texts = {}
        self.loops = {}
        self.with_bodies = {}
        self.comp_spans = {}
        self.tests = {}
        self._spans = {}  # key -> [start, end] positions of the text, merged per line


class FileIndex:
    """The scopes of one source file, keyed by ``(first line, code name)``.

    A file is indexed scope by scope, as its scopes are asked for (``scope``): a module's
    top-level statements at once, the body of a class or function the first time it or a scope
    inside it is asked for. An FLT steps one function of a file that may define hundreds (2,464
    lines of networkx's weighted.py took 18 ms to index whole, and every re-run recording an
    FLT paid it; the file is still parsed whole, which ``step_scope`` avoids); ``scopes`` indexes
    the rest. Threads stepping frames of one file share its
    index: a lock keeps one from reading a scope another is still indexing.
    """

    def __init__(self, lines, tree):
        if _OLD_AST:
            oldast.add_end_positions(tree, lines)
        self.lines = lines
        self._lock = threading.RLock()  # (a signal handler run inside the hook must not deadlock)
        self._scopes = {}
        self._pending = {}  # (first line, name) -> (scope, body, prefix, last line): not indexed yet
        self._made = []  # scopes made since the last _finish
        module = self._scope("<module>", 1, "<module>")
        self._body(module, tree.body, "", ())
        self._finish()

    @property
    def scopes(self):
        """Every scope of the file, by ``(first line, code name)`` (the whole file indexed)."""
        with self._lock:
            while self._pending:
                self._index(next(iter(self._pending)))
            return self._scopes

    def scope(self, first_line, name):
        """The Scope of the code object that starts at `first_line` named `name`, or None."""
        with self._lock:
            return self._find((first_line, name))

    def _find(self, key):
        """``scope``, under the lock."""
        first_line = key[0]
        while True:
            if key in self._pending:
                self._index(key)
            scope = self._scopes.get(key)
            if scope is not None:
                return scope
            # inside a class or function not indexed yet (a nested function, a lambda)?
            outer = [k for k, p in self._pending.items() if k[0] <= first_line <= p[3]]
            if not outer:
                return None
            self._index(max(outer))

    def _index(self, key):
        """Index the body of pending scope `key`."""
        scope, body, prefix, _ = self._pending.pop(key)
        if scope._spans is None:  # (written by the pass that found its definition)
            scope._spans = {}
        self._made.append(scope)
        self._body(scope, body, prefix, ())
        self._finish()

    def _finish(self):
        """Write the texts of the scopes indexed since the last call."""
        made, self._made = self._made, []
        for scope in made:
            if scope._spans is None:
                continue
            for key, (start, end) in scope._spans.items():
                scope.texts[key] = self.segment(start, end)
            scope._spans = None

    def line(self, lineno):
        """The raw text of a line ('' past the end)."""
        if 1 <= lineno <= len(self.lines):
            return self.lines[lineno - 1]
        return ""

    def _char_col(self, lineno, byte_col):
        """Convert an AST column (a UTF-8 byte offset) to a character offset."""
        text = self.line(lineno)
        if _isascii(text):
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def segment(self, start, end):
        """Source text between two (line, byte column) positions, dedented by the start column."""
        (l1, c1), (l2, c2) = start, end
        c1 = self._char_col(l1, c1)
        c2 = self._char_col(l2, c2)
        if l1 == l2:
            return self.line(l1)[c1:c2].rstrip()
        parts = [self.line(l1)[c1:].rstrip()]
        for ln in range(l1 + 1, l2 + 1):
            text = self.line(ln).rstrip("\r\n")
            if ln == l2:
                text = text[:c2]
            indent = len(text) - len(text.lstrip(" \t"))
            parts.append(text[min(indent, c1):].rstrip())
        while len(parts) > 1 and not parts[-1]:
            parts.pop()
        return "\n".join(parts)

    # -- walking --------------------------------------------------------------------------

    def _scope(self, qualname, first_line, name):
        scope = self._scopes.get((first_line, name))
        if scope is None:
            scope = self._scopes[(first_line, name)] = Scope(qualname)
        if scope._spans is None:  # (two scopes on one line: lambdas, the second indexed later)
            scope._spans = {}
        self._made.append(scope)
        return scope

    def _body(self, scope, body, prefix, loops):
        for stmt in body:
            self._stmt(scope, stmt, prefix, loops)

    def _header(self, scope, start, body, loops):
        """Claim the header lines of a compound statement (or clause) whose body is `body`."""
        key = start[0]
        body_start = self._case_start(body[0]) if _MATCH_CASE and isinstance(body[0], _MATCH_CASE) \
            else _start(body[0])
        last = body_start[0] - 1 if body_start[0] > key else key
        self._claim(scope, key, key, last, loops, start, self._header_end(key, body_start))
        return key

    def _header_end(self, key, body_start):
        """Where the text of a header starting on line `key` ends: at the end of its last line
        that holds code, before the comment-only and blank lines between it and its body
        (``while keys != [1]:`` then ``# Reuse any 1's.``: the comment is not the header's); at
        the body's start when the body is on the header's line (``if i: y = 1``)."""
        ln = body_start[0] - 1
        if ln < key:
            return body_start
        while ln > key and self.line(ln).strip()[:1] in ("", "#"):
            ln -= 1
        text = self.line(ln).rstrip("\r\n")
        return (ln, len(text.encode("utf-8")))

    def _stmt(self, scope, node, prefix, loops):
        start = _start(node)
        key = start[0]
        own_loops = loops + (key,) if isinstance(node, _LOOPS) else loops
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            body = getattr(node, "cases", None)  # match
        if isinstance(body, list) and body:
            self._header(scope, start, body, own_loops)
        else:
            self._claim(scope, key, key, node.end_lineno, own_loops, start,
                        (node.end_lineno, node.end_col_offset))
        for expr in _own_expressions(node):
            self._expr(scope, expr, prefix, key)
        if isinstance(node, ast.Global):
            scope.globals.extend(n for n in node.names if n not in scope.globals)

        if isinstance(node, (ast.ClassDef,) + _FUNCS):
            suffix = _decorator_accessor(node) if isinstance(node, _FUNCS) else ""
            inner = self._scope(prefix + node.name + suffix, key, node.name)
            sep = "." if isinstance(node, ast.ClassDef) else ".<locals>."
            self._pending[(key, node.name)] = (inner, node.body, prefix + node.name + sep, node.end_lineno)
            return
        if isinstance(node, _WITHS):
            scope.with_bodies[key] = (_start(node.body[0])[0], node.body[-1].end_lineno)
        if isinstance(node, (ast.If, ast.While)):
            _test_body(scope, key, node.body)
        elif isinstance(node, ast.Assert):
            scope.tests.setdefault(key, ASSERT)
        if isinstance(node, _LOOPS):
            self._body(scope, node.body, prefix, own_loops)
            self._body(scope, node.orelse, prefix, loops)
            return
        for field in ("body", "orelse", "finalbody"):
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                self._body(scope, sub, prefix, loops)
        for handler in getattr(node, "handlers", None) or ():
            hkey = self._header(scope, (handler.lineno, handler.col_offset), handler.body, loops)
            if handler.type is not None:
                self._expr(scope, handler.type, prefix, hkey)
            self._body(scope, handler.body, prefix, loops)
        for case in getattr(node, "cases", None) or ():
            ckey = self._header(scope, self._case_start(case), case.body, loops)
            _test_body(scope, ckey, case.body)
            if case.guard is not None:
                self._expr(scope, case.guard, prefix, ckey)
            self._body(scope, case.body, prefix, loops)

    def _may_nest(self, first, last):
        """Whether lines first..last may hold a lambda or a comprehension: their text has the
        keyword's letters (walking an expression's nodes to find none took most of the time of
        indexing a function)."""
        for text in self.lines[first - 1:last]:
            if "lambda" in text or "for" in text:
                return True
        return False

    def _case_start(self, case):
        """Where a ``case`` clause starts: the start of its line (the AST has no position)."""
        pline = case.pattern.lineno
        text = self.line(pline)
        indent = len(text) - len(text.lstrip())
        return (pline, len(text[:indent].encode("utf-8")))

    def _claim(self, scope, key, first, last, loops, start, end):
        """Map lines first..last to `key` (first claim wins) and extend the key's text span."""
        for ln in range(first, last + 1):
            scope.keys.setdefault(ln, key)
        scope.loops.setdefault(key, loops)
        if start[0] != key:
            return
        span = scope._spans.get(key)
        if span is None:
            scope._spans[key] = [start, end]
        else:
            span[0] = min(span[0], start)
            span[1] = max(span[1], end)

    def _expr(self, scope, node, prefix, key):
        """Register the lambdas (new scopes) and comprehensions inside an expression."""
        first = getattr(node, "lineno", None)
        if first is not None and not self._may_nest(first, node.end_lineno):
            return
        stack = [(node, prefix)]
        while stack:
            n, pre = stack.pop()
            if isinstance(n, ast.Lambda):
                inner = self._scope(pre + "<lambda>", n.lineno, "<lambda>")
                start, end = (n.lineno, n.col_offset), (n.end_lineno, n.end_col_offset)
                self._claim(inner, n.lineno, n.lineno, n.end_lineno, (), start, end)
                self._expr(inner, n.body, pre + "<lambda>.<locals>.", n.lineno)
                stack.extend((d, pre) for d in n.args.defaults + n.args.kw_defaults if d is not None)
                continue
            comp = _COMP_NAMES.get(type(n))
            if comp is not None:
                if isinstance(n, _INLINED_COMPS):
                    scope.comp_spans.setdefault(key, []).append(
                        (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset))
                # the first iterable is evaluated outside the comprehension's own scope
                inner_pre = pre if (sys.version_info >= (3, 12) and comp != "<genexpr>") \
                    else pre + comp + "."
                stack.append((n.generators[0].iter, pre))
                for child in ast.iter_child_nodes(n):
                    if child is not n.generators[0]:
                        stack.append((child, inner_pre))
                gen0 = n.generators[0]
                stack.extend((c, inner_pre) for c in [gen0.target] + gen0.ifs)
                continue
            stack.extend((c, pre) for c in ast.iter_child_nodes(n))


_ACCESSORS = {"setter": ".fset", "deleter": ".fdel", "getter": ".fget"}


def accessor_suffix(line, name):
    """``.fset``/``.fdel``/``.fget`` when `line` (a definition's first line) is a property
    accessor's decorator for function `name` (``@name.setter``), else ``""``."""
    text = line.strip()
    if not text.startswith("@") or not text[1:].startswith(name + "."):
        return ""
    attr = text[len(name) + 2:].split("(", 1)[0].split("#", 1)[0].strip()
    return _ACCESSORS.get(attr, "")


def _decorator_accessor(node):
    """The accessor suffix of a function definition from its first decorator (as
    ``accessor_suffix`` reads it from the source line on 3.11+)."""
    if not node.decorator_list:
        return ""
    d = min(node.decorator_list, key=lambda d: (d.lineno, d.col_offset))
    if isinstance(d, ast.Attribute) and isinstance(d.value, ast.Name) and d.value.id == node.name:
        return _ACCESSORS.get(d.attr, "")
    return ""


def _test_body(scope, key, body):
    """Record the body a test at `key` enters, when the body starts on a later line."""
    first = _start(body[0])[0]
    if first > key:
        scope.tests.setdefault(key, (first, body[-1].end_lineno))


def _start(node):
    """(line, byte column) where a statement starts, counting its decorators."""
    decos = getattr(node, "decorator_list", None)
    if decos:
        first = min(decos, key=lambda d: (d.lineno, d.col_offset))
        return (first.lineno, max(first.col_offset - 1, 0))  # the '@' precedes the expression
    return (node.lineno, node.col_offset)


def _own_expressions(node):
    """The expressions a statement evaluates itself (not the statements of its bodies)."""
    out = []
    for field, value in ast.iter_fields(node):
        if field in _BODY_FIELDS:
            continue
        if isinstance(value, ast.AST):
            out.append(value)
        elif isinstance(value, list):
            out.extend(v for v in value if isinstance(v, ast.AST))
    return out


_cache = {}  # filename -> its FileIndex, or None
_lines = {}  # filename -> its lines, or None when it cannot be read
_code_cache = {}  # (filename, first line, name) -> the Scope of a code object parsed alone

_ERRORS = (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError)


def file_lines(filename):
    """The lines of a source file (read as Python reads it), or None when it cannot be read
    (cached)."""
    try:
        return _lines[filename]
    except KeyError:
        pass
    try:
        with tokenize.open(filename) as f:
            lines = f.read().splitlines(True)
    except _ERRORS:
        lines = None
    _lines[filename] = lines
    return lines


def file_index(filename):
    """The FileIndex of a file, or None when its source cannot be read or parsed (cached)."""
    try:
        return _cache[filename]
    except KeyError:
        pass
    index = None
    lines = file_lines(filename)
    try:
        if lines is not None:
            index = FileIndex(lines, ast.parse("".join(lines), filename))
    except _ERRORS:
        index = None
    _cache[filename] = index
    return index


def scope_of(code):
    """The Scope of a code object, or None when its source is unknown."""
    index = file_index(code.co_filename)
    if index is None:
        return None
    return index.scope(code.co_firstlineno, code.co_name)


def step_scope(code):
    """``scope_of`` for stepping a frame of `code`: its Scope from the code's own source text
    when that parses alone, so that an FLT of one function of a big file parses that function,
    not the file (networkx's weighted.py, 2,464 lines: 7 ms to read and index whole, the most of
    what starting the FLT of a function in it cost). The text runs from the code's first line (its
    first decorator's) to the last line any of its instructions or its nested code's ends on, and
    is parsed as it stands: an indented one under an ``if 1:``, so that columns stay the file's,
    and its lines moved to the file's. Its statements, loops and texts are those of the file's
    index; only the names of the scopes inside it lack the enclosing ones' (``scope_of`` gives
    those). A module, a file already indexed whole, or a text that does not parse alone (a
    lambda's line is the middle of a statement) takes the file's index."""
    filename = code.co_filename
    if filename in _cache or code.co_name == "<module>" or not hasattr(code, "co_positions"):
        return scope_of(code)
    key = (filename, code.co_firstlineno, code.co_name)
    try:
        return _code_cache[key]
    except KeyError:
        pass
    scope = None
    lines = file_lines(filename)
    first = code.co_firstlineno
    last = _last_line(code)
    segment = lines[first - 1:last] if lines is not None and 1 <= first <= last <= len(lines) else None
    indented = bool(segment) and segment[0][:1] in (" ", "\t")
    if segment and not (indented and first < 2):
        try:
            # blank lines before it give its nodes the file's line numbers (moving them after
            # parsing walked every node: more than the parse cost; a blank line costs 10 ns)
            pad = "\n" * (first - 2) + "if 1:\n" if indented else "\n" * (first - 1)
            tree = ast.parse(pad + "".join(segment), filename)
            scope = FileIndex(lines, tree).scope(first, code.co_name)
        except _ERRORS:
            scope = None
    if scope is None:
        return scope_of(code)
    _code_cache[key] = scope
    return scope


def _last_line(code):
    """The last line the instructions of `code` and of the code nested in it end on (0: none)."""
    last = 0
    stack = [code]
    while stack:
        c = stack.pop()
        for _, end, _, _ in c.co_positions():
            if end is not None and end > last:
                last = end
        stack.extend(k for k in c.co_consts if type(k) is type(code))
    return last


def source_line(filename, lineno):
    """One stripped source line (the text of a line that no statement claims)."""
    lines = file_lines(filename)
    if lines is None:
        return linecache.getline(filename, lineno).strip()
    return lines[lineno - 1].strip() if 1 <= lineno <= len(lines) else ""


def positions(code):
    """offset -> (line, end line, col, end col) of each instruction; empty before 3.11."""
    if not hasattr(code, "co_positions"):
        return {}
    return {i * 2: p for i, p in enumerate(code.co_positions())}
