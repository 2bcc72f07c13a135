"""Running the target exactly as ``python <target>`` would, and ending the run.

The target is started by ``target`` (shared with adi's live-mode launcher): it sees the
``sys.argv``, ``sys.path[0]``, ``__main__`` module and exit behaviour plain python gives it;
the fresh ``__main__`` stays in ``sys.modules`` (so pickling classes defined in it works, also
from atexit handlers).

Stdin comes from the config's file (dup'ed onto fd 0). An uncaught exception prints its
traceback through ``sys.excepthook`` without the probe's frames and exits with 1 (under pydevd
it is re-raised after being recorded, so that the debugger's "uncaught" filter sees it as in a
plain debugpy run, and python prints it, through a hook that leaves the probe's frames out);
``SystemExit`` codes are kept (a non-int code is printed and gives 1). The result is written
by an ``atexit`` handler registered before the target runs, so it runs last: after the
target's non-daemon threads were joined and its own atexit handlers ran. ``os._exit`` is
patched to write it first. A forked child never writes the parent's files. SIGTERM, which the
bridge sends when the run's time is up, ends the run at once with what was recorded so far
(``stop``; result.json then says ``"stopped": "timeout"``).

Launch problems (bad config, missing script/module/stdin file) print one ``adi: ...`` line,
exit with 2 and still write result.json with an ``error`` field when the output dir is known.
"""

import atexit
import io
import json
import os
import sys
import threading
import time

from . import compat
from . import config as config_mod
from . import debugger
from . import seeding
from . import target as target_mod
from .depth import RecursionGuard, _depth
from .engines import EngineError, select as select_engine
from .output import Output, write_result
from .recorder import E_IDX, Recorder
from .stop import STOP_EXIT, Stopper
from .stepper import exc_message, exc_type_name
from .target import LaunchError
from .usercode import PROBE_DIR, RUN_SCRIPT, UserCode
from .values import Values, set_values_mode

LAUNCH_ERROR = 2


def _flush_std():
    """Flush the standard streams' buffers, as the interpreter's teardown would a moment later:
    the bridge answers once result.json is written, taking the output written until then (the
    teardown goes on meanwhile). Only the standard library's own stream objects are flushed (a
    stream the target put in their place may run its code: the teardown flushes it)."""
    seen = set()
    for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if type(s) is io.TextIOWrapper and id(s) not in seen:
            seen.add(id(s))
            try:
                s.flush()
            except Exception:
                pass


class Run:
    """One recording run: config, output, recorder, engine and the target's exit."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.pid = os.getpid()
        self.out = Output(cfg.out, cfg.max_bytes, discard=cfg.stops_only)
        set_values_mode(cfg.values)
        self.values = Values(cfg.repr_limit, cfg.repr_time_ms)
        self.rec = Recorder(cfg, self.out, self.values, UserCode(cfg.root, cfg.include, cfg.exclude))
        self.engine = None
        self.exit = {"kind": "exit", "code": 0, "exception": None}
        self.error = None
        self.started = None
        self.finished = False
        self.control = None  # the control server of an editor's run (editwatch.RunControl)
        self.stopped = None  # why the run ended early: "exec" (execute.arm) or "timeout" (stop.py)
        self._lock = threading.Lock()

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self):
        """Prepare the process, install the recorder and run the target; returns the exit code."""
        debugger.set_run(self)
        atexit.register(self.finalize)
        compat.register_at_fork(before=self._forking, after_in_child=self._forked)
        _patch_os_exit(self)
        Stopper(self).install()
        target = self.cfg.target
        try:
            runnable = target_mod.prepare(target)
        except LaunchError as exc:
            return self.launch_failed(str(exc))
        if self.cfg.seed is not None:
            seeding.seed(self.cfg.seed)
        self.rec.announce(self.rec.thread_state())
        try:
            self.engine = select_engine(self.rec)
        except EngineError as exc:
            return self.launch_failed(str(exc))
        if self.engine.name == "monitoring":
            self.rec.only = None  # (config "only": sys.monitoring records every function, as fast)
        self.rec.guard = RecursionGuard(self.rec)
        self.started = time.perf_counter()
        self.engine.start()
        if self.cfg.control:  # an editor's run: watches added while it runs (editwatch.py)
            try:
                from .editwatch import RunControl
                control = RunControl(self, self.cfg.control)
                control.start()
                self.control = control
            except Exception as exc:
                sys.stderr.write("adi: watch: cannot serve %s: %s\n" % (self.cfg.control, exc))
        code = self._run(runnable)
        return code

    def launch_failed(self, message):
        """Report a launch problem: one line on stderr, result.json with `error`, code 2."""
        self.error = message
        self.exit = {"kind": "exit", "code": LAUNCH_ERROR, "exception": None}
        sys.stderr.write("adi: %s\n" % message)
        sys.stderr.flush()
        return LAUNCH_ERROR

    def _forking(self):
        """The target forks (os.fork: multiprocessing's default on Linux, a fork before exec):
        write a ``fork`` record naming the recorded frame it forks in, since the child's calls
        are not recorded (``_forked``) and answers say so."""
        if self.finished or os.getpid() != self.pid:
            return
        try:
            stack = self.rec.thread_state().stack
            self.out.calls.append(("fork", stack[-1][E_IDX] if stack else -1))
        except Exception as exc:
            self.rec.internal_error("noting a fork", exc)

    def _forked(self):
        """In a forked child: stop recording and never touch the parent's files."""
        self.finished = True
        self.out.closed = True
        if self.control is not None:
            self.control.close()
        if self.engine is not None:
            try:
                self.engine.stop()
            except Exception:
                pass

    def silence(self):
        """Stop recording the calling thread's calls (the stopper's wait ran out: the end goes on
        in another thread, whose engine.stop() cannot remove this thread's hooks)."""
        if self.engine is not None:
            try:
                self.engine.silence()
            except Exception:
                pass

    def finalize(self, os_exit_code=None, stopped=None):
        """Stop recording, flush, and write result.json (once, in the process that started).

        `stopped` names why the run is being stopped before the target ended ("timeout"; an
        exec stop sets ``self.stopped`` to "exec" before it exits). Returns whether this call
        ended the run (False: another one did or is doing it).
        """
        with self._lock:
            if self.finished or os.getpid() != self.pid:
                return False
            self.finished = True
        duration = (time.perf_counter() - self.started) * 1000.0 if self.started else 0.0
        if os_exit_code is not None:
            self.exit = {"kind": "os_exit", "code": os_exit_code, "exception": None}
        if stopped is not None:
            self.stopped = stopped
            self.exit = {"kind": "stopped", "code": STOP_EXIT, "exception": None}
        if self.control is not None:
            self.control.close()
        if self.engine is not None:
            try:
                self.engine.stop()
            except Exception:
                pass
        if self.rec.guard is not None:
            self.rec.guard.uninstall()
        rec = self.rec
        rec.finish_unfinished(closing=os_exit_code is None and self.stopped is None)
        rec.missing_expectations()
        try:
            self.out.close()
        except OSError as exc:
            rec.internal_error("writing %s" % self.out.dir, exc)
        result = {
            "version": 1,
            "complete": rec.truncated is None and self.error is None and self.stopped is None,
            "exit": self.exit,
            "calls": rec.calls_recorded(),
            "unrecorded_calls": rec.unrecorded_calls,
            "bytes": self.out.bytes,
            "limit": rec.truncated,
            "conditions": [dict({"id": c.id, "hits": c.hits, "evaluated": c.evaluated, "errors": c.errors},
                                **({"visits": c.visits} if c.at == "line" else {}))
                           for c in self.cfg.conditions],
            "divergence": rec.divergence,
            "duration_ms": round(duration, 3),
            "engine": self.engine.name if self.engine is not None else None,
        }
        if self.error is not None:
            result["error"] = self.error
        if self.stopped is not None:
            result["stopped"] = self.stopped
        if rec.internal_errors:
            result["internal_errors"] = rec.internal_errors
        if rec.live_watches:  # an editor's watches (editwatch.py), as `list` gives them
            result["watches"] = [lw.describe() for lw in list(rec.live_watches.values())]
        _flush_std()  # what the target printed is in the pipes before result.json says "done"
        self.out.write_result(result)
        rec.release()
        return True

    # -- the target --------------------------------------------------------------------------

    def _run(self, runnable):
        """Run the target; returns the process exit code (and sets self.exit)."""
        kind, what, _, main = runnable
        try:
            try:
                code, spec = target_mod.load(runnable)
            except ImportError as exc:
                if kind != "module":
                    raise
                return self.launch_failed("cannot run module %s: %s" % (what, exc))
            self.rec.main_code = code
            # the frames below the target's first one that python -m / python FILE does not have:
            # target_mod.run's, and ours and our callers' but for runpy's _run_module_as_main
            self.rec.guard.install(_depth(sys._getframe()) + (0 if spec is not None else 1))
            target_mod.run(code, spec, main)
        except SystemExit as exc:
            return self._system_exit(exc)
        except BaseException as exc:
            debugged = debugger.pydevd_debugger() is not None
            code = self._uncaught(exc, show=not debugged)
            if debugged:
                # Under a debugger (pydevd, under debugpy) the exception goes on to the top, as in
                # a plain run: the debugger's "uncaught" exception filter stops there, then python
                # prints it (without the probe's frames) and exits with 1. Records are flushed so
                # that what the run did so far is readable while the debugger holds it.
                self.rec.flush()
                sys.excepthook = _hiding_probe_frames(sys.excepthook)
                raise
            return code
        return 0

    def _system_exit(self, exc):
        code = exc.code
        if code is None or isinstance(code, int):
            status = target_mod.exit_status(code)  # what the process's status will be: sys.exit(256) is 0
        else:
            try:
                sys.stderr.write("%s\n" % (code,))
                sys.stderr.flush()
            except Exception:
                pass
            status = 1
        self.exit = {"kind": "exit", "code": status, "exception": None}
        return status

    def _uncaught(self, exc, show=True):
        """Record how the target ended; `show`: print the traceback as python does."""
        tb = _strip_probe_frames(exc.__traceback__)
        exc.__traceback__ = tb
        import traceback
        text = "".join(traceback.format_exception(type(exc), exc, tb))
        if show:
            try:
                sys.excepthook(type(exc), exc, tb)
            except Exception:
                sys.stderr.write(text)
            try:
                sys.stderr.flush()
            except Exception:
                pass
        file, line = _where(exc, tb)
        limit = self.values.limit
        self.exit = {"kind": "exception", "code": 130 if isinstance(exc, KeyboardInterrupt) else 1,
                     "exception": {"type": exc_type_name(type(exc)), "message": exc_message(exc, limit),
                                   "file": file, "line": line, "traceback": text}}
        return self.exit["code"]


def main(config_path):
    """Entry point called by adi_probe_run.py; returns the process exit code."""
    try:
        cfg = config_mod.load(config_path)
    except config_mod.ConfigError as exc:
        return _config_failed(config_path, str(exc))
    try:
        run = Run(cfg)
    except OSError as exc:
        sys.stderr.write("adi: cannot write the output directory %s: %s\n" % (cfg.out, exc.strerror or exc))
        return LAUNCH_ERROR
    return run.start()


def _config_failed(path, message):
    sys.stderr.write("adi: %s\n" % message)
    out = None
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
        out = data.get("out") if isinstance(data, dict) else None
    except Exception:
        pass
    if isinstance(out, str) and out:
        try:
            write_result(out, {
                "version": 1, "complete": False,
                "exit": {"kind": "exit", "code": LAUNCH_ERROR, "exception": None},
                "calls": 0, "unrecorded_calls": 0, "bytes": 0, "limit": None, "conditions": [],
                "divergence": None, "duration_ms": 0.0, "error": message})
        except OSError:
            pass
    return LAUNCH_ERROR


def _patch_os_exit(run):
    real_exit = os._exit

    def _exit(status):
        try:
            run.finalize(os_exit_code=status)
        finally:
            real_exit(status)

    _exit.__doc__ = real_exit.__doc__
    os._exit = _exit


def _probe_frame(tb):
    """Whether a traceback entry is in the probe's own code."""
    fname = tb.tb_frame.f_code.co_filename
    return fname.startswith(PROBE_DIR + os.sep) or fname == RUN_SCRIPT


def _strip_probe_frames(tb):
    """Drop the probe's own frames from the head of a traceback."""
    while tb is not None and _probe_frame(tb):
        tb = tb.tb_next
    return tb


def _hiding_probe_frames(hook):
    """sys.excepthook `hook`, printing tracebacks without the probe's frames (anywhere in them)."""
    def excepthook(exc_type, exc, tb):
        tb = _without_probe_frames(tb)
        try:
            exc.__traceback__ = tb
        except Exception:
            pass
        return hook(exc_type, exc, tb)
    return excepthook


def _without_probe_frames(tb):
    """The traceback without the probe's frames, wherever they are in it."""
    head = prev = None
    while tb is not None:
        if not _probe_frame(tb):
            if prev is None:
                head = tb
            else:
                prev.tb_next = tb
            prev = tb
        tb = tb.tb_next
    if prev is not None:
        prev.tb_next = None
    return head


def _where(exc, tb):
    """(file, line) where the exception was raised (a SyntaxError's own position)."""
    if isinstance(exc, SyntaxError) and tb is None:
        return exc.filename, exc.lineno
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return None, None
    return last.tb_frame.f_code.co_filename, last.tb_lineno
