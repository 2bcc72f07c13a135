"""adi live mode's launcher: debugpy runs this file, and it runs the target as python would.

It takes one argument, a JSON object: {"mode": "script"|"module"|"code", "path", "module",
"code", "argv": [...], "stdin": path or "", "dump": path, "token": str}. It:

- reopens standard input from the command's "< file", or from /dev/null, so that a read gets end
  of file instead of waiting forever;
- arranges sys.argv, sys.path[0] and a fresh __main__ the way the interpreter does;
- makes SIGUSR1 suspend the main thread where it is, with the interrupted frame on top (adi's
  watchdog sends it when a DAP pause does not land: `while True: pass` makes no line event, a
  sleep none until it returns);
- registers a faulthandler dump of every thread on SIGUSR2 (adi asks for it when even that fails);
- imports adi_live, the helper interact calls, and runs the target.

Exceptions and SystemExit reach debugpy as they would without it. On the way the launcher notes the
exit status, and an atexit handler registered before the target's (so it runs after them, once the
program's threads are done) writes it to stderr as one marker, "\0adi-live-TOKEN exit STATUS\0",
which adi takes out of the output: adi learns that the program finished without waiting for the
interpreter's teardown under the debugger (most of a second). adi's launch rules hide this
directory, so none of its frames shows in a stack. Standard library only (and pydevd, which runs
it).
"""

import atexit
import builtins
import faulthandler
import json
import os
import runpy
import signal
import sys
import threading
import types


def _stdin(path):
    fd = os.open(path or os.devnull, os.O_RDONLY)
    if fd != 0:
        os.dup2(fd, 0)
        os.close(fd)
    if sys.stdin is None:
        sys.stdin = sys.__stdin__ = open(0, "r", closefd=False)


def _dump(path):
    if not path or not hasattr(signal, "SIGUSR2"):
        return
    f = open(path, "w")
    f.write("main 0x%016x\n" % threading.main_thread().ident)
    f.flush()
    faulthandler.register(signal.SIGUSR2, file=f, all_threads=True)


def _pause_on_signal():
    if not hasattr(signal, "SIGUSR1"):
        return

    def pause(signum, frame):
        # Suspend this thread with the interrupted frame on top, as pydevd does at a breakpoint
        # (debugpy.breakpoint() would step to the caller's next line event, which a loop like
        # `while True: pass` never makes).
        try:
            import pydevd
            from _pydevd_bundle.pydevd_comm_constants import CMD_THREAD_SUSPEND
            py_db = pydevd.get_global_debugger()
            thread = threading.current_thread()
            py_db.set_suspend(thread, CMD_THREAD_SUSPEND, suspend_other_threads=True, is_pause=True)
            py_db.do_wait_suspend(thread, frame, "line", None)
        except Exception:
            try:
                import debugpy
                debugpy.breakpoint()
            except Exception:
                pass

    signal.signal(signal.SIGUSR1, pause)


def _fresh_main():
    main = types.ModuleType("__main__")
    main.__builtins__ = builtins
    main.__annotations__ = {}
    main.__spec__ = None
    main.__package__ = None
    sys.modules["__main__"] = main
    return main


def _orig_argv(args):
    if hasattr(sys, "orig_argv"):
        sys.orig_argv = [sys.executable] + args


def _exit_status(code):
    """The process exit status for SystemExit(code), as the interpreter computes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    return 1


def _report(token, status):
    try:
        os.write(2, ("\0adi-live-%s exit %d\0" % (token, status[0])).encode("ascii"))
    except OSError:
        pass


def main():
    cfg = json.loads(sys.argv[1])
    status = [1]
    if cfg.get("token"):
        atexit.register(_report, cfg["token"], status)
    try:
        _run(cfg)
        status[0] = 0
    except SystemExit as exc:
        status[0] = _exit_status(exc.code)
        raise
    except KeyboardInterrupt:
        status[0] = 130
        raise


def _run(cfg):
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]
    sys.path.insert(0, here)
    import adi_live  # interact calls adi_live.interact by name
    sys.path.remove(here)
    adi_live.hide_launcher_frames(here)
    _stdin(cfg.get("stdin", ""))
    _dump(cfg.get("dump", ""))
    _pause_on_signal()
    argv = cfg.get("argv") or []
    mode = cfg["mode"]
    if mode == "script":
        path = cfg["path"]
        sys.argv[:] = [path] + argv
        _orig_argv([path] + argv)
        if os.path.isdir(path):
            runpy.run_path(path, run_name="__main__")
            return
        sys.path.insert(0, os.path.dirname(os.path.realpath(path)))
        with open(path, "rb") as f:
            source = f.read()
        mod = _fresh_main()
        mod.__file__ = path
        mod.__cached__ = None
        code = compile(source, path, "exec", dont_inherit=True)
        del f, source
        exec(code, mod.__dict__)
    elif mode == "code":
        sys.argv[:] = ["-c"] + argv
        sys.path.insert(0, "")
        _orig_argv(["-c", cfg["code"]] + argv)
        mod = _fresh_main()
        exec(compile(cfg["code"], "<string>", "exec", dont_inherit=True), mod.__dict__)
    else:
        sys.argv[:] = ["-m"] + argv
        sys.path.insert(0, os.getcwd())
        _orig_argv(["-m", cfg["module"]] + argv)
        try:
            name, spec, code = runpy._get_module_details(cfg["module"])
        except ImportError as exc:  # what python -m prints
            sys.stderr.write("%s: %s\n" % (sys.executable, exc))
            sys.exit(1)
        mod = _fresh_main()
        sys.argv[0] = spec.origin
        runpy._run_code(code, mod.__dict__, None, "__main__", spec)


if __name__ == "__main__":
    main()
