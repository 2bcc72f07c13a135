"""End positions for the AST of Python < 3.8, whose nodes have no ``end_lineno`` and
``end_col_offset`` (and whose multi-line strings start on their last line, at column -1).

``add_end_positions`` writes them from the file's tokens, as 3.8 would have: a simple statement
ends at its last token before the NEWLINE or ``;`` that ends it; a compound statement where its
last statement ends; a lambda where its body ends; a comprehension at its closing bracket (on
3.6/3.7 a list comprehension or a generator expression starts at its element, not at its bracket:
it is moved to the bracket; an ``elif`` from its test to its keyword, an ``async`` statement to
``async``). Any other expression is given the end of its statement (source.py
uses it only to bound the lines it looks for lambdas and comprehensions in). Only source.py
calls it, and only before 3.8.
"""

import ast
import bisect
import tokenize

_SKIP = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = (")", "]", "}")
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# an ``elif`` starts at its test, an ``async for``/``with``/``def`` at ``for``/``with``/``def``
_KEYWORDED = {ast.If: "elif", ast.AsyncFor: "async", ast.AsyncWith: "async", ast.AsyncFunctionDef: "async"}
_BRACKET = {ast.ListComp: "[", ast.SetComp: "{", ast.DictComp: "{", ast.GeneratorExp: "("}


class _Tokens:
    """The significant tokens of a file, with UTF-8 byte columns (as the AST's)."""

    def __init__(self, lines):
        self.toks = []  # (type, string, (row, col), (row, col))
        it = iter(lines)
        for tok in tokenize.generate_tokens(lambda: next(it, "")):
            if tok.type in _SKIP:
                continue
            start = self._bytes(lines, tok.start)
            end = self._bytes(lines, tok.end)
            self.toks.append((tok.type, tok.string, start, end))
        self.starts = [t[2] for t in self.toks]
        self.multiline = None  # last line -> start of the multi-line strings (string_start)

    @staticmethod
    def _bytes(lines, pos):
        row, col = pos
        if 1 <= row <= len(lines) and col:
            text = lines[row - 1]
            try:
                text.encode("ascii")
            except UnicodeEncodeError:
                return (row, len(text[:col].encode("utf-8")))
        return pos

    def at(self, pos):
        """The index of the first token starting at or after `pos`."""
        return bisect.bisect_left(self.starts, pos)

    def statement_end(self, i):
        """The end of the simple statement whose first token is token `i`."""
        depth = 0
        last = i
        n = len(self.toks)
        while i < n:
            typ, s, _, _ = self.toks[i]
            if typ == tokenize.OP:
                if s in _OPEN:
                    depth += 1
                elif s in _CLOSE:
                    depth -= 1
                elif s == ";" and depth <= 0:
                    break
            if typ in (tokenize.NEWLINE, tokenize.ENDMARKER) and depth <= 0:
                break
            last = i
            i += 1
        return self.toks[min(last, n - 1)][3]

    def _within(self, i):
        """The tokens from the bracket at token `i` to the one closing it, as (index, type,
        string, depth): depth 1 directly inside it, 0 for the closing bracket, which is last."""
        depth = 0
        for j in range(i, len(self.toks)):
            typ, s, _, _ = self.toks[j]
            if typ == tokenize.OP and s in _OPEN:
                depth += 1
            elif typ == tokenize.OP and s in _CLOSE:
                depth -= 1
            yield j, typ, s, depth
            if depth == 0:
                return

    def bracket_end(self, i):
        """The index of the bracket closing the one at token `i` (the last token if none does)."""
        end = len(self.toks) - 1
        for end, _, _, _ in self._within(i):
            pass
        return end

    def enclosing_comp_bracket(self, i, bracket):
        """The index of the opening `bracket` before token `i` whose contents hold a ``for`` at
        their own depth (the bracket of a comprehension whose element starts at token `i`)."""
        j = i
        while True:
            depth = 0
            j -= 1
            while j >= 0:
                typ, s, _, _ = self.toks[j]
                if typ == tokenize.OP and s in _CLOSE:
                    depth += 1
                elif typ == tokenize.OP and s in _OPEN:
                    if depth == 0:
                        break
                    depth -= 1
                j -= 1
            if j < 0:
                return None
            if self.toks[j][1] == bracket and self._holds_for(j):
                return j

    def _holds_for(self, j):
        return any(depth == 1 and typ == tokenize.NAME and s == "for" for _, typ, s, depth in self._within(j))

    def lambda_end(self, i):
        """The end of the lambda whose ``lambda`` keyword is token `i`."""
        depth = 0
        colons = 0  # the colons still to come of the lambdas started (nested in its defaults)
        last = i
        for j in range(i, len(self.toks)):
            typ, s, _, _ = self.toks[j]
            if typ in (tokenize.NEWLINE, tokenize.ENDMARKER):
                break
            if typ == tokenize.NAME and depth == 0:
                if s == "lambda":
                    colons += 1
                elif s in ("for", "async") and colons == 0:
                    break
            if typ == tokenize.OP:
                if s in _OPEN:
                    depth += 1
                elif s in _CLOSE:
                    depth -= 1
                    if depth < 0:
                        break
                elif depth == 0:
                    if s == ":" and colons > 0:
                        colons -= 1
                    elif colons == 0 and (s in (",", ";", ":") or
                                          s.endswith("=") and s not in ("==", "<=", ">=", "!=")):
                        break
            last = j
        return self.toks[last][3]

    def string_start(self, lineno):
        """The start of the string token that ends on line `lineno` (a multi-line string)."""
        if self.multiline is None:
            self.multiline = {}
            for typ, _, start, end in self.toks:
                if typ == tokenize.STRING and start[0] < end[0]:
                    self.multiline.setdefault(end[0], start)
        return self.multiline.get(lineno)


def add_end_positions(tree, lines):
    """Give the statements, lambdas and comprehensions of `tree` (parsed from `lines`) the end
    positions Python 3.8 would give them; see the module docstring."""
    try:
        toks = _Tokens(lines)
        _fix_starts(tree, toks)
        _body_ends(tree.body, toks)
    except Exception:  # (tokenize disagreeing with the parser): each node ends where its last child starts
        _rough_ends(tree, lines)


def _rough_ends(node, lines):
    """End positions that are at least not before the last line of each node."""
    last = getattr(node, "lineno", 1)
    for child in ast.iter_child_nodes(node):
        last = max(last, _rough_ends(child, lines))
    if hasattr(node, "lineno") and not hasattr(node, "end_lineno"):
        text = lines[last - 1] if 1 <= last <= len(lines) else ""
        node.end_lineno, node.end_col_offset = last, len(text.rstrip("\r\n").encode("utf-8"))
    return last


def _fix_starts(tree, toks):
    """Move the starts at column -1 (multi-line strings, and the nodes that start with one) to
    the string's first line."""
    for node in ast.walk(tree):
        if getattr(node, "col_offset", 0) == -1:
            start = toks.string_start(node.lineno)
            if start is not None:
                node.lineno, node.col_offset = start
        elif type(node) in _KEYWORDED:  # 3.8 starts them at the keyword before
            i = toks.at((node.lineno, node.col_offset))
            word = _KEYWORDED[type(node)]
            if i > 0 and toks.toks[i - 1][1] == word and toks.toks[i - 1][2][0] == node.lineno:
                node.col_offset = toks.toks[i - 1][2][1]


def _body_ends(body, toks):
    for stmt in body:
        _stmt_end(stmt, toks)


def _stmt_end(node, toks):
    children = []
    for field in ("body", "orelse", "finalbody"):
        sub = getattr(node, field, None)
        if isinstance(sub, list):
            children.extend(sub)
    for handler in getattr(node, "handlers", None) or ():
        children.extend(handler.body)
    if children:
        _body_ends(children, toks)
        last = max(children, key=lambda c: (c.end_lineno, c.end_col_offset))
        end = (last.end_lineno, last.end_col_offset)
        for handler in getattr(node, "handlers", None) or ():
            h = max(handler.body, key=lambda c: (c.end_lineno, c.end_col_offset))
            handler.end_lineno, handler.end_col_offset = h.end_lineno, h.end_col_offset
    else:
        end = toks.statement_end(toks.at((node.lineno, node.col_offset)))
    node.end_lineno, node.end_col_offset = end
    for field, value in ast.iter_fields(node):
        if field in ("body", "orelse", "finalbody", "handlers"):
            continue
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, ast.AST):
                _expr_ends(v, end, toks)
    for handler in getattr(node, "handlers", None) or ():
        if handler.type is not None:
            _expr_ends(handler.type, end, toks)


def _expr_ends(node, end, toks):
    for n in ast.walk(node):
        if not hasattr(n, "lineno") or isinstance(n, ast.stmt):
            continue
        n.end_lineno, n.end_col_offset = end
        if isinstance(n, ast.Lambda):
            n.end_lineno, n.end_col_offset = toks.lambda_end(toks.at((n.lineno, n.col_offset)))
        elif isinstance(n, _COMPS):
            bracket = _BRACKET[type(n)]
            i = toks.at((n.lineno, n.col_offset))
            if i >= len(toks.toks) or toks.toks[i][1] != bracket or not toks._holds_for(i):
                i = toks.enclosing_comp_bracket(i, bracket)
                if i is None:
                    continue
                n.lineno, n.col_offset = toks.toks[i][2]
            n.end_lineno, n.end_col_offset = toks.toks[toks.bracket_end(i)][3]
