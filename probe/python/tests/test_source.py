"""Static facts: statements, texts, loops and qualnames from the AST; user-code rules; names."""

import os
import sys
import sysconfig
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from adi_probe import source, usercode  # noqa: E402

SAMPLE = '''\
import functools


@functools.lru_cache()
def f(a,
      b=lambda z: z + 1):
    x = max(a,
            3)
    for i in range(3):
        if i: y = 1
        while x > 0: x -= 1
        with open("/dev/null") as fh:
            pass
    else:
        done = True
    try:
        pass
    except (ValueError,
            KeyError) as e:
        raise
    return [q for q in range(3)]


class C:
    k = 1

    def m(self):
        g = lambda: 2
        return g
    a = 1; b = 2
'''


def _facts(scope):
    return (scope.qualname, scope.keys, scope.texts, scope.loops, scope.with_bodies, scope.comp_spans,
            scope.globals, scope.tests)


class Index(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        fd, cls.path = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(SAMPLE)
        cls.index = source.file_index(cls.path)

    @classmethod
    def tearDownClass(cls):
        os.unlink(cls.path)

    def test_scopes_and_qualnames(self):
        self.assertEqual({k: s.qualname for k, s in self.index.scopes.items()}, {
            (1, "<module>"): "<module>", (4, "f"): "f", (6, "<lambda>"): "<lambda>", (24, "C"): "C",
            (27, "m"): "C.m", (28, "<lambda>"): "C.m.<locals>.<lambda>"})

    def test_module_statements(self):
        module = self.index.scopes[(1, "<module>")]
        self.assertEqual(module.texts, {
            1: "import functools",
            4: "@functools.lru_cache()\ndef f(a,\n      b=lambda z: z + 1):",
            24: "class C:"})
        self.assertEqual([module.keys[ln] for ln in (4, 5, 6)], [4, 4, 4])

    def test_function_statements(self):
        f = self.index.scopes[(4, "f")]
        self.assertEqual(f.texts, {
            7: "x = max(a,\n        3)", 9: "for i in range(3):", 10: "if i: y = 1", 11: "while x > 0: x -= 1",
            12: 'with open("/dev/null") as fh:', 13: "pass", 15: "done = True", 16: "try:", 17: "pass",
            18: "except (ValueError,\n        KeyError) as e:", 20: "raise", 21: "return [q for q in range(3)]"})
        self.assertEqual(f.keys[8], 7)
        self.assertEqual(f.keys[19], 18)
        self.assertNotIn(14, f.keys)  # `else:` has no statement of its own

    def test_loops(self):
        f = self.index.scopes[(4, "f")]
        self.assertEqual({k: f.loops[k] for k in (7, 9, 10, 11, 12, 13, 15, 21)}, {
            7: (), 9: (9,), 10: (9,), 11: (9, 11), 12: (9,), 13: (9,), 15: (), 21: ()})
        self.assertEqual(f.with_bodies, {12: (13, 13)})

    def test_comprehension_spans(self):
        f = self.index.scopes[(4, "f")]
        self.assertEqual(f.comp_spans, {21: [(21, 11, 21, 32)]})

    def test_class_body(self):
        c = self.index.scopes[(24, "C")]
        self.assertEqual(c.texts, {25: "k = 1", 27: "def m(self):", 30: "a = 1; b = 2"})

    def test_scopes_indexed_when_asked(self):
        """A file's scopes are indexed as they are asked for, inner ones (a method's lambda)
        before the scope around them, with the same facts as the whole file indexed at once."""
        whole = {k: _facts(s) for k, s in self.index.scopes.items()}
        with open(self.path) as f:
            text = f.read()
        lazy = source.FileIndex(text.splitlines(True), __import__("ast").parse(text))
        self.assertEqual(set(lazy._pending), {(4, "f"), (24, "C")}, "only the top level is indexed")
        self.assertEqual(_facts(lazy.scope(28, "<lambda>")), whole[(28, "<lambda>")])
        self.assertEqual(set(lazy._pending), {(4, "f")}, "f's body waits; C's and m's were indexed")
        self.assertIsNone(lazy.scope(5, "nothing"))
        for key in reversed(sorted(whole)):
            self.assertEqual(_facts(lazy.scope(*key)), whole[key], key)
        self.assertEqual({k: _facts(s) for k, s in lazy.scopes.items()}, whole)

    def test_step_scope_parses_the_code_alone(self):
        """A stepped code's Scope comes from its own text (the file is not parsed whole), with the
        facts of the file's index but for the names; a lambda whose line starts a statement too;
        one whose first line is the middle of a statement (f's default) and a module take the
        file's index (every code before Python 3.11, whose code objects do not say where they end)."""
        code = compile(SAMPLE, self.path, "exec")

        def named(c, name):
            return next(k for k in c.co_consts if getattr(k, "co_name", "") == name)
        f, cls = named(code, "f"), named(code, "C")
        m = named(cls, "m")
        whole = {k: _facts(s)[1:] for k, s in self.index.scopes.items()}
        saved = dict(source._cache)
        source._cache.clear()  # the file not indexed whole yet
        try:
            for c, key in ((f, (4, "f")), (m, (27, "m")), (cls, (24, "C")), (named(m, "<lambda>"), (28, "<lambda>"))):
                self.assertEqual(_facts(source.step_scope(c))[1:], whole[key], key)
                if hasattr(code, "co_positions"):  # (before 3.11 a code's last line is unknown)
                    self.assertNotIn(self.path, source._cache, "%s: the file is not indexed whole" % (key,))
            self.assertEqual(_facts(source.step_scope(named(code, "<lambda>")))[1:], whole[(6, "<lambda>")])
            self.assertIn(self.path, source._cache, "f's default lambda takes the file's index")
            self.assertEqual(_facts(source.step_scope(code))[1:], whole[(1, "<module>")])
        finally:
            source._cache.clear()
            source._cache.update(saved)

    def test_scopes_asked_by_threads(self):
        """Threads asking for the scopes of one file at once each get them whole."""
        import ast
        import random
        import threading
        text = "".join("class K%d:\n    def m(self, n):\n        for i in range(n):\n            if i:\n"
                       "                n += [j for j in range(i)][0]\n        return (lambda: n)()\n\n" % k
                       for k in range(150))
        tree = ast.parse(text)
        whole = {k: _facts(s) for k, s in source.FileIndex(text.splitlines(True), tree).scopes.items()}
        lazy = source.FileIndex(text.splitlines(True), tree)
        got, errors = {}, []

        def ask(seed):
            keys = sorted(whole)
            random.Random(seed).shuffle(keys)
            try:
                for key in keys:
                    got.setdefault(key, []).append(_facts(lazy.scope(*key)))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=ask, args=(seed,)) for seed in range(4)]
        interval = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)  # switch threads as often as possible
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            sys.setswitchinterval(interval)
        self.assertEqual(errors, [])
        self.assertEqual(len(whole), 150 * 3 + 1)
        for key, facts in whole.items():
            self.assertEqual(got[key], [facts] * 4, key)

    def test_unreadable_file(self):
        self.assertIsNone(source.file_index("/nonexistent/x.py"))


class MatchStatement(unittest.TestCase):
    @unittest.skipIf(sys.version_info < (3, 10), "match needs 3.10")
    def test_case_clauses(self):
        code = textwrap.dedent('''\
            def f(v):
                match v:
                    case [1, x] if x > 0:
                        return x
                    case _:
                        return 0
            ''')
        fd, path = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as fh:
            fh.write(code)
        try:
            f = source.file_index(path).scopes[(1, "f")]
        finally:
            os.unlink(path)
        self.assertEqual(f.texts, {2: "match v:", 3: "case [1, x] if x > 0:", 4: "return x", 5: "case _:",
                                   6: "return 0"})


    def test_header_text_stops_before_comment_lines(self):
        code = textwrap.dedent('''\
            def f(keys):
                while keys != [1]:
                    # Reuse any 1's.

                    keys.pop()
                if (keys and  # the first
                        # the second
                        keys[0]):  # the third
                    # only the body's
                    return keys
                for k in keys:  # trailing
                    pass
                return []
            ''')
        fd, path = tempfile.mkstemp(suffix=".py")
        with os.fdopen(fd, "w") as fh:
            fh.write(code)
        try:
            f = source.file_index(path).scopes[(1, "f")]
        finally:
            os.unlink(path)
        self.assertEqual(f.texts, {
            2: "while keys != [1]:", 5: "keys.pop()",
            6: "if (keys and  # the first\n        # the second\n        keys[0]):  # the third",
            10: "return keys", 11: "for k in keys:  # trailing", 12: "pass", 13: "return []"})
        self.assertEqual([f.keys[ln] for ln in (2, 3, 4, 6, 7, 8, 9)], [2, 2, 2, 6, 6, 6, 6])


class UserCode(unittest.TestCase):
    def test_rules(self):
        with tempfile.TemporaryDirectory() as root:
            users = usercode.UserCode(root, include=["/opt/lib/*.py"], exclude=["*/skip_*.py"])
            self.assertEqual(users.user_file(os.path.join(root, "pkg", "m.py")), os.path.join(root, "pkg", "m.py"))
            self.assertIsNone(users.user_file(os.path.join(root, "pkg", "skip_me.py")))
            self.assertIsNone(users.user_file(os.path.join(root, "venv", "lib", "site-packages", "x.py")))
            self.assertIsNone(users.user_file(os.path.join(root, "dist-packages", "x.py")))
            self.assertEqual(users.user_file("/opt/lib/extra.py"), "/opt/lib/extra.py")
            self.assertIsNone(users.user_file("<string>"))
            self.assertIsNone(users.user_file("<frozen importlib._bootstrap>"))
            self.assertIsNone(users.user_file(os.path.join(sysconfig.get_paths()["stdlib"], "json", "x.py")))
            self.assertIsNone(users.user_file(usercode.__file__))
            self.assertIsNone(users.user_file(usercode.RUN_SCRIPT))

    def test_comprehensions_are_never_user_code(self):
        here = os.path.dirname(os.path.abspath(__file__))
        users = usercode.UserCode(here)
        code = compile("[x for x in y]\n(lambda: 1)", os.path.join(here, "t.py"), "exec")
        inner = {c.co_name: c for c in code.co_consts if hasattr(c, "co_name")}
        self.assertTrue(users.is_user(code))
        self.assertTrue(users.is_user(inner["<lambda>"]))
        if "<listcomp>" in inner:  # before 3.12
            self.assertFalse(users.is_user(inner["<listcomp>"]))

    def test_stdlib_dirs_are_sysconfigs(self):
        """The standard library's directory, found where ``os`` is, is sysconfig's (and so is its
        platstdlib but in a venv, whose own holds site-packages alone); the site-packages that
        some layouts keep in it are not the standard library."""
        keys = ("stdlib",) if sys.prefix != sys.base_prefix else ("stdlib", "platstdlib")
        for key in keys:
            path = os.path.realpath(sysconfig.get_paths()[key]) + os.sep
            self.assertIn(path, usercode.STDLIB_DIRS, key)
        lib = usercode.STDLIB_DIRS[0]
        self.assertTrue(usercode.in_stdlib(lib + "json/decoder.py"))
        self.assertFalse(usercode.in_stdlib(lib + "site-packages/pkg/mod.py"))
        self.assertFalse(usercode.in_stdlib("/elsewhere/json/decoder.py"))

    def test_accessor_names_read_only_the_class_bodies_that_load_them(self):
        """A method is named from its class body's bytecode when that body never loads its name
        (no ``@name.setter`` can precede it): the same names as from the source, whose file is
        read only for a method whose name the body loads (a property's accessors)."""
        text = textwrap.dedent('''\
            class P:
                def __init__(self):
                    """Two lines
                    of docstring."""
                    self._v = 0

                @property
                def v(self):
                    """The value."""
                    return self._v

                @v.setter
                def v(self, x):
                    """Set it."""
                    self._v = x

                w = property(lambda self: 1)

                @w.deleter
                def w(self):
                    """A deleter whose getter is not a def."""
                    self._v = None

                @staticmethod
                def s(
                        a):
                    return a
            ''')
        with tempfile.TemporaryDirectory() as root:
            path = os.path.join(root, "acc.py")
            with open(path, "w") as f:
                f.write(text)
            code = compile(text, path, "exec")
            body = next(c for c in code.co_consts if getattr(c, "co_name", "") == "P")
            methods = [c for c in body.co_consts if getattr(c, "co_name", "") in ("__init__", "v", "w", "s")]
            users = usercode.UserCode(root)
            users.note_class(body)
            source._lines.pop(path, None)
            if sys.version_info >= (3, 11):
                for c in methods:
                    if c.co_name in ("__init__", "s"):
                        self.assertEqual(users.qualname(c), "P." + c.co_name)
                self.assertNotIn(path, source._lines, "a method whose name P's body never loads reads no source")
            want = ["P.__init__", "P.v", "P.v.fset", "P.w.fdel", "P.s"]
            self.assertEqual([users.qualname(c) for c in methods], want)
            self.assertEqual([usercode.qualname(c) for c in methods], want)
            source._lines.pop(path, None)

    def test_module_names(self):
        users = usercode.UserCode("/proj")
        self.assertEqual(users.module_name("/proj/pkg/mod.py", {}), "pkg.mod")
        self.assertEqual(users.module_name("/proj/t.py", {"__name__": "__main__"}), "t")
        self.assertEqual(users.module_name("/proj/pkg/__init__.py", {}), "pkg")
        self.assertEqual(users.module_name("/elsewhere/lib.py", {"__name__": "lib"}), "lib")

    def test_argnames_keep_stars(self):
        def f(a, b=1, *args, c, d=2, **kw):
            pass
        self.assertEqual(usercode.argnames(f.__code__), ["a", "b", "*args", "c", "d", "**kw"])

        if sys.version_info >= (3, 8):  # (positional-only parameters: a syntax error before)
            space = {}
            exec("def g(x, /, y):\n    pass\n", space)
            self.assertEqual(usercode.argnames(space["g"].__code__), ["x", "y"])


if __name__ == "__main__":
    unittest.main()
