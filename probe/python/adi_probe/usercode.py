"""Which code objects are user code, and what they are called (``module:qualname``).

Rules (PROTOCOL.md, "What is user code" and "Names"): a code object is user code when its
file is under ``root`` and not in the standard library, ``site-packages``/``dist-packages``,
the probe directory, or a pseudo-file (``<string>``, ``<frozen ...>``); ``include`` globs add
files, ``exclude`` globs remove them. Comprehensions and generator expressions are never user
code (their work belongs to the enclosing frame); lambdas are.
"""

import fnmatch
import os
import sys
import sysconfig

from . import source

_COMPREHENSIONS = frozenset(("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"))
_HAS_QUALNAME = sys.version_info >= (3, 11)
PROBE_DIR = os.path.dirname(os.path.abspath(__file__))  # the adi_probe package
RUN_SCRIPT = os.path.join(os.path.dirname(PROBE_DIR), "adi_probe_run.py")


def _stdlib_dirs():
    dirs = set()
    for key in ("stdlib", "platstdlib"):
        try:
            path = sysconfig.get_paths()[key]
        except KeyError:
            continue
        dirs.add(os.path.realpath(path))
        dirs.add(os.path.abspath(path))
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs if d)


STDLIB_DIRS = _stdlib_dirs()  # the standard library's directories, each ending with a separator


class UserCode:
    """Decides, per file, whether code is user code and names it."""

    def __init__(self, root, include=(), exclude=()):
        self.root = os.path.abspath(root).rstrip(os.sep) + os.sep
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self._stdlib = STDLIB_DIRS
        self._probe = PROBE_DIR + os.sep
        self._files = {}  # co_filename -> absolute path, or None when not user code

    def user_file(self, filename):
        """The absolute path of a user-code file, or None (cached per co_filename)."""
        try:
            return self._files[filename]
        except KeyError:
            pass
        path = self._classify(filename)
        self._files[filename] = path
        return path

    def _classify(self, filename):
        if not filename or filename.startswith("<") or filename.endswith(">"):
            return None
        path = os.path.abspath(filename)
        if path.startswith(self._probe) or path == RUN_SCRIPT:
            return None
        user = path.startswith(self.root) and not self._library(path)
        if not user and self.include:
            user = any(fnmatch.fnmatch(path, g) for g in self.include)
        if user and self.exclude:
            user = not any(fnmatch.fnmatch(path, g) for g in self.exclude)
        return path if user else None

    def _library(self, path):
        if path.startswith(self._stdlib):
            return True
        parts = path.split(os.sep)
        return "site-packages" in parts or "dist-packages" in parts

    def is_user(self, code):
        """True when `code` is user code (a file rule plus the comprehension rule)."""
        return code.co_name not in _COMPREHENSIONS and self.user_file(code.co_filename) is not None

    def module_name(self, path, module_globals):
        """`module` part of a func name: the path relative to root, or the module's __name__."""
        if path.startswith(self.root):
            rel = path[len(self.root):]
            if rel.endswith(".py"):
                rel = rel[:-3]
            elif rel.endswith(".pyw"):
                rel = rel[:-4]
            name = rel.replace(os.sep, ".")
            if name.endswith(".__init__"):
                name = name[: -len(".__init__")]
            return name or "__init__"
        name = module_globals.get("__name__") if module_globals else None
        return name if isinstance(name, str) and name else os.path.splitext(os.path.basename(path))[0]


def qualname(code):
    """The qualified name of a code object (co_qualname, or recovered from the AST).

    Each code object is its own function: a property's setter and deleter, which share their
    getter's qualname, are named ``Class.prop.fset`` and ``Class.prop.fdel`` (``.fget`` for a
    getter replaced with ``@prop.getter``), from the decorator on the definition's first line
    (``co_firstlineno`` is the first decorator's line).
    """
    if _HAS_QUALNAME:
        qual = code.co_qualname
        if "." not in qual or not _may_be_decorated(code):
            return qual  # (no source to read: reading a whole file per module costs)
        return qual + source.accessor_suffix(source.source_line(code.co_filename, code.co_firstlineno), code.co_name)
    scope = source.scope_of(code)
    if scope is not None:
        return scope.qualname
    return code.co_name


def _may_be_decorated(code):
    """Whether a decorator line can precede the ``def`` of `code`: its body starts two or more
    lines below ``co_firstlineno`` (the first decorator's line when there is one). A docstring or
    a signature on several lines also leaves such a gap; an undecorated one-line ``def`` never."""
    first = code.co_firstlineno
    for _, _, line in code.co_lines():
        if line is not None and line != first:
            return line >= first + 2
    return False


def argnames(code):
    """Parameter names in order; ``*args``/``**kwargs`` keep their stars."""
    n = code.co_argcount + code.co_kwonlyargcount
    names = list(code.co_varnames[:n])
    flags = code.co_flags
    if flags & 0x04:  # CO_VARARGS
        names.insert(code.co_argcount, "*" + code.co_varnames[n])
        n += 1
    if flags & 0x08:  # CO_VARKEYWORDS
        names.append("**" + code.co_varnames[n])
    return names
