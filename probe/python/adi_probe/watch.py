"""Watching functions in a live process (PROTOCOL.md, "Watching in a live process").

adi's live mode runs a program under debugpy; ``watch FUNC [--cond EXPR] [--max N]`` records
the FLT of every following invocation of FUNC without pausing the program, in the record
formats of a recording (calls.bin, flt.bin), through a scoped Recorder (config "scope":
``Recorder._scoped_hooks``, ``scope.Scope``).

- ``start(cfg)`` (a dict or a JSON string; the live launcher calls it in the main thread before
  the target runs, an attach bootstrap evaluates it in every paused thread): the first call
  creates the output files, the scoped Recorder and the engine the process needs
  (``engines.select``: sys.monitoring on 3.12+, the profile hook under pydevd on 3.8-3.11, the
  trace hook otherwise), installs the hooks in this thread and future threads, and starts the
  control server; a later call, in another thread, installs that thread's hooks only. Returns a
  short JSON string and never raises.
- the control server (one thread, started the way pydevd starts its own threads when pydevd
  runs the process, so the debugger never traces, lists or suspends it; a plain daemon thread
  otherwise) serves one JSON object per line on the unix socket ``socket`` (ops ``add``,
  ``remove``, ``list``, ``flush``, ``ping``) and flushes the records every ``FLUSH_EVERY``
  seconds, so invocations in progress are written open.
- ``current()`` (evaluated by a debugger in a paused frame): flushes, and returns the idx of the
  innermost recorded frame of the current thread, or -1.
"""

import atexit
import json
import os
import platform
import select
import socket
import stat
import sys
import threading
import time
import types

from . import compat
from . import config as config_mod
from . import debugger, usercode
from .engines import MonitoringEngine, ProfileEngine, TraceEngine, _noop_trace, select as select_engine
from .output import Output
from .recorder import E_IDX, PROFILE, TRACE, Recorder
from .scope import fits
from .usercode import UserCode
from .values import Values

FLUSH_EVERY = 0.5  # seconds between the server's flushes
_session = None
_lock = threading.Lock()


def start(cfg):
    """Start watching (first call) or install this thread's hooks (later calls); a JSON string."""
    global _session
    try:
        if isinstance(cfg, str):
            cfg = json.loads(cfg)
        with _lock:
            session = _session
            if session is None:
                session = Session(cfg)
                session.start()
                _session = session
                return json.dumps({"ok": True, "pid": os.getpid(), "engine": session.engine.name,
                                   "watches": session.initial})
        return json.dumps({"ok": True, "thread": session.install_thread()})
    except Exception as exc:
        return json.dumps({"error": _one_line(exc)})


def current():
    """idx of the innermost recorded frame of the current thread (-1: none); flushes first."""
    session = _session
    if session is None:
        return -1
    try:
        session.rec.flush()
        ts = session.rec.threads.get(threading.get_ident())
        if ts is None or not ts.stack:
            return -1
        return ts.stack[-1][E_IDX]
    except Exception:
        return -1


def session():
    """The watch session of this process (None before ``start``)."""
    return _session


class Control:
    """The control protocol (PROTOCOL.md, "Watching in a live process"), one implementation for
    the live watch recorder (Session) and an editor's recording run (editwatch.RunControl).
    A subclass has ``rec`` (its Recorder), ``out``, ``engine``, ``server`` (the listening
    socket), ``closed``, and answers ``add(func, cond, max_)`` (a result dict),
    ``remove(wid)`` (removed ids) and ``watch_list()`` (the watches' descriptions)."""

    def handle(self, line):
        """One request line -> one answer dict."""
        try:
            req = json.loads(line)
        except ValueError as exc:
            return {"id": None, "error": "bad request: %s" % _one_line(exc)}
        if not isinstance(req, dict):
            return {"id": None, "error": "bad request: not a JSON object"}
        rid = req.get("id")
        op = req.get("op")
        try:
            if op == "add":
                return {"id": rid, "result": self.add(req.get("func"), req.get("cond"), req.get("max"))}
            if op == "remove":
                return {"id": rid, "result": {"removed": self.remove(req.get("watch"))}}
            if op == "list":
                self.rec.flush()
                return {"id": rid, "result": {"watches": self.watch_list(), "bytes": self.out.bytes}}
            if op == "flush":
                self.rec.flush()
                return {"id": rid, "result": {"bytes": self.out.bytes}}
            if op == "ping":
                return {"id": rid, "result": {"pid": os.getpid(), "python": platform.python_version(),
                                              "engine": self.engine.name if self.engine is not None else None}}
            return {"id": rid, "error": "unknown op %r (add, remove, list, flush, ping)" % (op,)}
        except Exception as exc:
            return {"id": rid, "error": _one_line(exc)}


def start_server(control):
    """Start the thread serving `control` (its socket bound already): as pydevd starts its own
    when pydevd runs the process (never traced, listed or suspended by the debugger), else a
    daemon thread. Returns the thread."""
    py_db = debugger.pydevd_debugger()
    if py_db is not None:
        from _pydevd_bundle.pydevd_daemon_thread import run_as_pydevd_daemon_thread
        return run_as_pydevd_daemon_thread(py_db, _serve, control)
    thread = threading.Thread(target=_serve, args=(control,), name="adi-watch", daemon=True)
    thread.start()
    return thread


def matches(rec, users, pattern):
    """The names (`module:qualname`) of the user functions loaded so far that `pattern` names:
    code objects the recorder has seen, and functions in loaded user modules' namespaces
    (classes' methods included). Looking runs none of the program's code."""
    names = set()
    for info in list(rec.codes.values()):
        if info and fits(pattern, info.func):
            names.add(info.func)
    last = pattern.rpartition(":")[2].rpartition(".")[2]
    for mod in list(sys.modules.values()):
        if type(mod) is not types.ModuleType:
            continue
        d = mod.__dict__
        f = d.get("__file__")
        if type(f) is not str or users.user_file(f) is None:
            continue
        for fn in _functions(d, set()):
            code = fn.__code__
            if code.co_name != last and last not in ("fget", "fset", "fdel"):
                continue
            if not users.is_user(code):
                continue
            try:
                path = users.user_file(code.co_filename)
                name = users.module_name(path, fn.__globals__) + ":" + usercode.qualname(code)
            except Exception:
                continue
            if fits(pattern, name):
                names.add(name)
    return sorted(names)


class Session(Control):
    """The scoped recording of one live process, its engine and its control server."""

    def __init__(self, cfg):
        if not isinstance(cfg, dict):
            raise ValueError("the watch config must be a JSON object")
        for key in ("out", "socket"):
            if not isinstance(cfg.get(key), str) or not cfg.get(key):
                raise ValueError("the watch config needs %r (a path)" % key)
        limits = {"max_steps": cfg.get("max_steps", config_mod.DEFAULT_LIMITS["max_steps"]),
                  "max_calls": cfg.get("max_calls", config_mod.DEFAULT_LIMITS["max_calls"]),
                  "max_bytes": cfg.get("max_bytes", config_mod.DEFAULT_LIMITS["max_bytes"])}
        data = {"version": 1, "out": cfg["out"], "target": {"mode": "code", "code": ""},
                "root": cfg.get("root") or os.getcwd(), "include": cfg.get("include") or [],
                "exclude": cfg.get("exclude") or [], "repr_limit": cfg.get("repr_limit", 200),
                "repr_time_ms": cfg.get("repr_time_ms", 20),
                "render_calls": 1 << 62,  # every recorded call's values in full
                "limits": limits, "scope": True}
        try:
            self.cfg = config_mod.Config(data)
        except config_mod.ConfigError as exc:
            raise ValueError(str(exc)) from None
        self.socket_path = cfg["socket"]
        self.watches = cfg.get("watches") or []
        self.pid = os.getpid()
        self.out = Output(self.cfg.out, self.cfg.max_bytes)
        self.values = Values(self.cfg.repr_limit, self.cfg.repr_time_ms)
        self.users = UserCode(self.cfg.root, self.cfg.include, self.cfg.exclude)
        self.rec = Recorder(self.cfg, self.out, self.values, self.users)
        self.scope = self.rec.scope
        self.engine = None
        self.server = None
        self.thread = None
        self.initial = []
        self.closed = False

    def start(self):
        for w in self.watches:  # checked before anything is installed
            if not isinstance(w, dict):
                raise ValueError("each of 'watches' must be an object {func, cond, max}")
            self.initial.append(self.scope.add(w.get("func"), w.get("cond"), w.get("max")).id)
        self.server = _listen(self.socket_path)
        if threading.current_thread() is threading.main_thread():
            self.rec.announce(self.rec.thread_state())  # the main thread is tid 0
        self.engine = select_engine(self.rec)
        self.engine.start()
        if isinstance(self.engine, MonitoringEngine):
            self.scope.set_idle_callback(self.engine.set_idle)
        atexit.register(self.close)
        compat.register_at_fork(after_in_child=self._forked)
        self.thread = start_server(self)

    def install_thread(self):
        """Install the hooks in the current thread (an attach bootstrap's other threads)."""
        rec = self.rec
        ts = rec.threads.get(threading.get_ident())
        if ts is not None and ts.hooks is not None:
            return "installed before"
        engine = self.engine
        if isinstance(engine, MonitoringEngine):
            return "monitoring"  # sys.monitoring covers every thread
        if isinstance(engine, ProfileEngine):
            hooks = rec.thread_hooks(rec.thread_state(fresh=True), PROFILE)
            if engine._own_trace and engine._real_gettrace() is None:
                engine._real_settrace(_noop_trace)  # frame tracers need a global one
            sys.setprofile(hooks.profile)
            return "profile"
        if isinstance(engine, TraceEngine):
            hooks = rec.thread_hooks(rec.thread_state(fresh=True), TRACE)
            engine._real_settrace(hooks.call)
            return "trace"
        return "none"

    def _forked(self):
        """A forked child records nothing and never touches the parent's files."""
        self.closed = True
        self.out.closed = True
        try:
            self.scope.remove(None)
        except Exception:
            pass

    def close(self):
        """At exit: stop recording, end the FLTs still running ("unfinished") and the suspended
        generators (GeneratorExit), write it all."""
        if self.closed or os.getpid() != self.pid:
            return
        self.closed = True
        try:
            self.scope.remove(None)
            self.engine.stop()
        except Exception:
            pass
        try:
            # (the interpreter's exit closes the suspended generators after this: written so)
            self.rec.finish_unfinished(closing=True)
            self.out.close()
        except Exception:
            pass
        try:
            self.server.close()
            os.unlink(self.socket_path)
        except OSError:
            pass

    # -- the control protocol (Control) ------------------------------------------------------

    def add(self, func, cond, max_):
        w = self.scope.add(func, cond, max_)
        return {"watch": w.id, "matches": matches(self.rec, self.users, w.func)}

    def remove(self, wid):
        return self.scope.remove(wid)

    def watch_list(self):
        return [w.describe() for w in list(self.scope.watches.values())]

    def matches(self, pattern):
        return matches(self.rec, self.users, pattern)


def _functions(ns, seen, depth=0):
    """The functions of a namespace: its functions (and what they wrap), and its classes'
    methods, static and class methods and property accessors, nested classes included."""
    out = []
    for v in list(ns.values()):
        if id(v) in seen:
            continue
        seen.add(id(v))
        t = type(v)
        if t is staticmethod or t is classmethod:
            v = v.__func__
            t = type(v)
        if t is property:
            out.extend(x for x in (v.fget, v.fset, v.fdel) if type(x) is types.FunctionType)
        elif t is types.FunctionType:
            while type(v) is types.FunctionType:
                out.append(v)
                v = v.__dict__.get("__wrapped__")
        elif issubclass(t, type) and depth < 8:
            try:
                cls_ns = type.__dict__["__dict__"].__get__(v)
            except Exception:
                continue
            out.extend(_functions(cls_ns, seen, depth + 1))
    return out


def _listen(path):
    """A unix socket listening at path, mode 0600 whatever the process's umask, so that no other
    user can connect to it: its directory is made with mode 0700 when it does not exist; in a
    directory only this user can enter (the bridge's) the socket is bound and then made 0600,
    elsewhere it is bound under a umask of 0o177 (no moment with more permissions)."""
    private = _private_dir(os.path.dirname(os.path.abspath(path)))
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        if private:
            sock.bind(path)
        else:
            old = os.umask(0o177)  # the process's umask: set for the bind only
            try:
                sock.bind(path)
            finally:
                os.umask(old)
        os.chmod(path, 0o600)
        sock.listen(4)
    except OSError:
        sock.close()
        raise
    return sock


def _private_dir(d):
    """Make directory d with mode 0700 (whatever the umask) when it does not exist; report whether
    it is this user's and no one else's (owned by this user, no permission for others)."""
    try:
        os.makedirs(d, 0o700)
    except FileExistsError:
        pass
    else:
        os.chmod(d, 0o700)  # makedirs' mode is cut by the umask
    st = os.stat(d)
    return st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o077 == 0


def _serve(session):
    """The control server's loop: answer requests, flush every FLUSH_EVERY seconds."""
    me = threading.current_thread()
    server = session.server
    conns = {}  # connection -> bytes received and not yet a full line
    last = time.monotonic()
    while not session.closed and not getattr(me, "_kill_received", False):
        try:
            ready, _, _ = select.select([server] + list(conns), [], [], FLUSH_EVERY)
        except (OSError, ValueError):
            if session.closed:
                return
            ready = []
            for c in list(conns):
                if c.fileno() < 0:
                    conns.pop(c, None)
        for s in ready:
            if s is server:
                try:
                    c, _ = server.accept()
                    conns[c] = b""
                except OSError:
                    pass
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                conns.pop(s, None)
                s.close()
                continue
            buf = conns[s] + data
            lines = buf.split(b"\n")
            conns[s] = lines.pop()
            for line in lines:
                if not line.strip():
                    continue
                answer = session.handle(line.decode("utf-8", "replace"))
                try:
                    s.sendall(json.dumps(answer).encode("utf-8") + b"\n")
                except OSError:
                    conns.pop(s, None)
                    s.close()
                    break
        now = time.monotonic()
        if now - last >= FLUSH_EVERY:
            last = now
            try:
                session.rec.flush()
            except Exception:
                pass


def _one_line(exc):
    text = str(exc) if isinstance(exc, ValueError) else "%s: %s" % (type(exc).__name__, exc)
    return " ".join(text.split())
