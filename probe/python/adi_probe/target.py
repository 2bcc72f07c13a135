"""Starting the target exactly as ``python <target>`` would.

``target`` is the config's target object: ``{"mode": "script" | "module" | "code", "path",
"module", "code", "argv": [...], "stdin": path or None}``. The probe's runner and adi's live-mode
launcher (live/python/adi_live_run.py) both start a target through this module, so a program
sees the same process in a recording, under exec and in live mode:

- script: ``sys.argv[0]`` is the path as given, ``sys.path[0]`` the script's real directory,
  ``__file__`` absolute (as given on 3.8), ``__loader__`` a SourceFileLoader; the code runs in a
  fresh ``__main__`` module that stays in ``sys.modules``;
- module (``python -m``): ``sys.path[0]`` is the cwd and runpy's own functions find and run the
  module (``sys.argv[0]`` becomes its file);
- code (``python -c``): ``sys.argv[0]`` is ``-c`` and ``sys.path[0]`` is ``''``.

Stdin, when given, is the file dup'ed onto fd 0. Standard library only.
"""

import builtins
import importlib.machinery
import os
import runpy
import sys
import types


class LaunchError(Exception):
    """The target could not be started (message: one line for the user)."""


def prepare(target):
    """Set stdin, sys.argv, sys.path[0] and a fresh __main__ for `target`; return the runnable
    ``(kind, what, filename, main)`` that ``load`` takes. Raises LaunchError."""
    if target["stdin"] is not None:
        redirect_stdin(target["stdin"])
    argv = target["argv"]
    mode = target["mode"]
    main = _fresh_main()
    if mode == "script":
        path = target["path"]
        if not os.path.isfile(path):
            what = "is a directory" if os.path.isdir(path) else "no such file"
            raise LaunchError("cannot run %s: %s" % (path, what))
        try:
            with open(path, "rb") as f:
                source = f.read()
        except OSError as exc:
            raise LaunchError("cannot run %s: %s" % (path, exc.strerror or exc)) from None
        sys.argv[:] = [path] + argv
        sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
        main.__file__ = path if sys.version_info < (3, 9) else os.path.abspath(path)
        main.__cached__ = None
        main.__loader__ = importlib.machinery.SourceFileLoader("__main__", path)
        _set_orig_argv([path] + argv)
        return ("source", source, main.__file__, main)
    if mode == "code":
        sys.argv[:] = ["-c"] + argv
        sys.path.insert(0, "")
        main.__loader__ = importlib.machinery.BuiltinImporter
        _set_orig_argv(["-c", target["code"]] + argv)
        return ("source", target["code"], "<string>", main)
    sys.argv[:] = ["-m"] + argv
    sys.path.insert(0, os.getcwd())
    _set_orig_argv(["-m", target["module"]] + argv)
    return ("module", target["module"], None, main)


def load(runnable):
    """Compile the runnable's code; returns ``(code, spec)`` (spec None for source). A syntax
    error raises as python's would; a module that cannot be found raises ImportError."""
    kind, what, filename, main = runnable
    if kind == "source":
        return compile(what, filename, "exec", dont_inherit=True), None
    _, spec, code = runpy._get_module_details(what)
    sys.argv[0] = spec.origin
    return code, spec


def run(code, spec, main):
    """Run loaded code in the __main__ module `main`; whatever it raises goes to the caller."""
    if spec is None:
        exec(code, main.__dict__)
    else:
        runpy._run_code(code, main.__dict__, None, "__main__", spec)


def redirect_stdin(path):
    """Make `path` the process's standard input (fd 0 and sys.stdin). Raises LaunchError."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as exc:
        raise LaunchError("cannot read stdin file %s: %s" % (path, exc.strerror or exc)) from None
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)
    if sys.stdin is None:
        sys.stdin = sys.__stdin__ = open(0, "r", closefd=False)


def exit_status(code):
    """The process exit status for SystemExit(code) when python prints nothing (an int or None)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1


def _fresh_main():
    """A new __main__ module, as the interpreter creates it, installed in sys.modules."""
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    main.__annotations__ = {}
    main.__spec__ = None
    main.__package__ = None
    sys.modules["__main__"] = main
    return main


def _set_orig_argv(args):
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = [sys.executable] + args
