"""Which code objects are user code, and what they are called (``module:qualname``).

Rules (PROTOCOL.md, "What is user code" and "Names"): a code object is user code when its
file is under ``root`` and not in the standard library, ``site-packages``/``dist-packages``,
the probe directory, or a pseudo-file (``<string>``, ``<frozen ...>``); ``include`` globs add
files, ``exclude`` globs remove them. Comprehensions and generator expressions are never user
code (their work belongs to the enclosing frame); lambdas are.
"""

import dis
import fnmatch
import os
import sys

from . import source

_COMPREHENSIONS = frozenset(("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>"))
_HAS_QUALNAME = sys.version_info >= (3, 11)
PROBE_DIR = os.path.dirname(os.path.abspath(__file__))  # the adi_probe package
RUN_SCRIPT = os.path.join(os.path.dirname(PROBE_DIR), "adi_probe_run.py")


def _stdlib_dirs():
    """The standard library's directory, as its real and its absolute path: where ``os`` is
    (sysconfig's stdlib, whose import cost 1.4 ms a run; its platstdlib is the same directory but
    in a venv, where it is the venv's own, which holds site-packages alone)."""
    path = os.path.dirname(os.__file__)
    return tuple(sorted({d.rstrip(os.sep) + os.sep for d in (os.path.realpath(path), os.path.abspath(path)) if d}))


STDLIB_DIRS = _stdlib_dirs()  # the standard library's directories, each ending with a separator


def in_stdlib(path):
    """Whether file `path` is the standard library's: under its directory, and not in the
    site-packages that some layouts keep there (pyenv's, a source build's)."""
    return path.startswith(STDLIB_DIRS) and not _in_packages(path)


def _in_packages(path):
    parts = path.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


class UserCode:
    """Decides, per file, whether code is user code and names it."""

    def __init__(self, root, include=(), exclude=()):
        self.root = os.path.abspath(root).rstrip(os.sep) + os.sep
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self._stdlib = STDLIB_DIRS
        self._probe = PROBE_DIR + os.sep
        self._files = {}  # co_filename -> absolute path, or None when not user code
        # (co_filename, class qualname) -> the names its body loads, or None when they could not
        # be read (note_class)
        self._classes = {}

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
        return path.startswith(self._stdlib) or _in_packages(path)

    def note_class(self, code):
        """A class body of user code runs (before any of its methods can be called): remember
        which names it loads, so that ``qualname`` reads a method's source line only when its
        first decorator may be a property accessor's (``@NAME.setter``), which loads NAME."""
        if not _HAS_QUALNAME:
            return  # (names come from the source's AST)
        key = (code.co_filename, code.co_qualname)
        names = _loaded_names(code)
        seen = self._classes.get(key, ())
        if names is None or seen is None:
            self._classes[key] = None  # not readable: every method of it reads its line
        else:
            self._classes[key] = names if seen == () else seen | names  # (a class defined twice)

    def qualname(self, code):
        """``qualname(code)``, knowing the class bodies seen so far (``note_class``)."""
        return qualname(code, self._classes)

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


def qualname(code, classes=None):
    """The qualified name of a code object (co_qualname, or recovered from the AST).

    Each code object is its own function: a property's setter and deleter, which share their
    getter's qualname, are named ``Class.prop.fset`` and ``Class.prop.fdel`` (``.fget`` for a
    getter replaced with ``@prop.getter``), from the decorator on the definition's first line
    (``co_firstlineno`` is the first decorator's line). `classes` (``UserCode.note_class``):
    the names the class bodies seen so far load; a method whose class body never loads its
    name has no such decorator (``@prop.setter`` loads ``prop``), and its source is not read
    (the same name, without reading: sympy's first run read 41 files for it, 7-14 ms).
    """
    if _HAS_QUALNAME:
        qual = code.co_qualname
        if "." not in qual or not _may_be_decorated(code):
            return qual  # (no source to read: reading a whole file per module costs)
        if classes:
            loaded = classes.get((code.co_filename, qual.rpartition(".")[0]), None)
            if loaded is not None and code.co_name not in loaded:
                return qual
        return qual + source.accessor_suffix(source.source_line(code.co_filename, code.co_firstlineno), code.co_name)
    scope = source.scope_of(code)
    if scope is not None:
        return scope.qualname
    return code.co_name


# The instructions by which a class body loads a name that may be a property of its own
# (``@prop.setter``): the name's index in co_names is their argument (LOAD_GLOBAL's, shifted
# left by one on 3.11+). A name the body reads from an enclosing function (LOAD_CLASSDEREF,
# LOAD_FROM_DICT_OR_DEREF) is one of its free variables.
_NAME_LOADS = tuple(sorted(dis.opmap[n] for n in ("LOAD_NAME", "LOAD_FROM_DICT_OR_GLOBALS") if n in dis.opmap))
_LOAD_GLOBAL = dis.opmap["LOAD_GLOBAL"]
_GLOBAL_SHIFT = 1 if sys.version_info >= (3, 11) else 0


def _loaded_names(code):
    """The names class body `code` may load as a decorator's first name (a set), or None when its
    bytecode cannot be read so (an instruction argument wider than a byte, EXTENDED_ARG, or one
    that is not a name's index): then each of its methods reads its line, as before."""
    b = code.co_code
    if _has_op(b, dis.EXTENDED_ARG):
        return None
    names = code.co_names
    out = set(code.co_freevars) | set(code.co_cellvars)
    try:
        for op in _NAME_LOADS:
            for i in _op_offsets(b, op):
                out.add(names[b[i + 1]])
        for i in _op_offsets(b, _LOAD_GLOBAL):
            out.add(names[b[i + 1] >> _GLOBAL_SHIFT])
    except IndexError:
        return None
    return out


def _op_offsets(b, op):
    """The offsets of opcode `op` in bytecode `b` (two bytes an instruction: even offsets)."""
    one = bytes((op,))
    i = b.find(one)
    while i >= 0:
        if not i & 1:
            yield i
        i = b.find(one, i + 1)


def _has_op(b, op):
    return next(_op_offsets(b, op), None) is not None


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
