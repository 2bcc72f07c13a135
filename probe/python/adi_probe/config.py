"""The run configuration (PROTOCOL.md, "Config"): loading, defaults and validation.

Every problem is a ``ConfigError`` whose message is one line saying what is wrong.
"""

import json
import os


class ConfigError(Exception):
    """The config file is missing, unreadable or invalid."""


DEFAULT_RENDER_CALLS = 16  # calls of each function whose values T renders (then summaries)
# trace_tests_ms: the stepping time of the tests' FLTs in all. Stepping a test costs little
# unless its frame holds big objects (a TestCase, a fixture's graph), each compared at every
# step: 53 networkx tests took 1.9 s of a 1 s pytest run to step.
DEFAULT_TRACE_TESTS_MS = 250
DEFAULT_LIMITS = {"max_calls": 2000000, "max_steps": 200000, "max_bytes": 536870912}


class Selector:
    """A `trace` entry: which invocations of `func` get an FLT."""

    __slots__ = ("func", "index", "cond", "at", "max", "code", "taken", "live", "errors")

    def __init__(self, func, index=None, cond=None, at="entry", max_=None):
        self.func = func
        self.index = index
        self.cond = cond
        self.at = at
        self.max = max_
        self.code = None  # compiled cond
        self.taken = 0    # invocations traced (entry) or kept (exit) so far
        self.live = None  # the recorder.LiveWatch an editor added it for (editwatch.py), or None
        self.errors = None  # a list for the first 5 exceptions of its cond (a LiveWatch's), or None


class Condition:
    """A `conditions` entry: evaluated on every invocation of `func`, at its entry, its exit, or
    (at "line") each time a step starts at statement `line`, with the locals of that moment."""

    __slots__ = ("id", "func", "cond", "at", "line", "code", "hits", "visits", "evaluated", "errors")

    def __init__(self, id_, func, cond, at, line=None):
        self.id = id_
        self.func = func
        self.cond = cond
        self.at = at
        self.line = line
        self.code = None
        self.hits = []
        self.visits = []  # at "line": [statement line, visit] of each hit, where it held
        self.evaluated = 0
        self.errors = []


class Expect:
    """An `expect` entry: the replay check for invocation func#index."""

    __slots__ = ("func", "index", "chain", "args_fp", "seen")

    def __init__(self, func, index, chain, args_fp):
        self.func = func
        self.index = index
        self.chain = chain
        self.args_fp = args_fp
        self.seen = False


class Stop:
    """A `stops` entry: used by ``adi_probe.hit`` (a debugger's breakpoint condition), or, when
    it has an ``exec`` statement, by the probe itself (``execute.arm``: run it there and end)."""

    __slots__ = ("id", "func", "index", "line", "visit", "arrivals", "exec", "timeout")

    def __init__(self, id_, func, index, line, visit, exec_=None, timeout=0):
        self.id = id_
        self.func = func
        self.index = index
        self.line = line
        self.visit = visit
        self.arrivals = 0
        self.exec = exec_
        self.timeout = timeout  # seconds the exec statement may run (0: no limit)


class Config:
    """A validated config (attribute names follow the JSON keys)."""

    def __init__(self, data):
        if not isinstance(data, dict):
            raise ConfigError("the config must be a JSON object")
        version = data.get("version", 1)
        if version != 1:
            raise ConfigError("unsupported config version %r (this probe speaks version 1)" % (version,))
        self.out = _str(data, "out", required=True)
        self.target = _target(data.get("target"))
        self.root = os.path.abspath(_str(data, "root", default=os.getcwd()))
        self.include = _str_list(data, "include")
        self.exclude = _str_list(data, "exclude")
        self.repr_limit = _int(data, "repr_limit", 200, minimum=8)
        self.repr_time_ms = _num(data, "repr_time_ms", 20)
        # how values of types with a __repr__ of the program's are shown (values.set_values_mode)
        self.values = _str(data, "values", default="repr") or "repr"
        if self.values not in ("repr", "attrs"):
            raise ConfigError("values must be repr or attrs, not %r" % (self.values,))
        self.render_calls = _int(data, "render_calls", DEFAULT_RENDER_CALLS)
        self.light = bool(data.get("light", False))
        # bare calls (a first run's, PROTOCOL.md "bare"): past the first `bare_after` calls, a
        # plain call deeper than `bare_depth` whose caller is not stepped is recorded without
        # values or caller line (0: every call has them)
        self.bare_after = _int(data, "bare_after", 0)
        self.bare_depth = _int(data, "bare_depth", 3)
        # the invocations whose values a light run records in full (PROTOCOL.md): func -> {n}
        self.values_of = _invocations(data, "values_of")
        # the run answers with its stops alone (an exec's run): it writes no T and no FLT, and
        # does not build T's records (PROTOCOL.md)
        self.stops_only = bool(data.get("stops_only", False))
        # a re-run that records the invocations of these functions only, and module bodies
        # (PROTOCOL.md "only"); None: every function's
        only = data.get("only")
        if only is not None and (not isinstance(only, list) or not all(isinstance(f, str) for f in only)):
            raise ConfigError("'only' must be a list of function names or null")
        self.only = frozenset(only) if only is not None else None
        self.trace_tests = bool(data.get("trace_tests", False))
        # the stepping time, in ms, the tests' FLTs may take in all: a test that starts after it
        # is spent is not stepped (PROTOCOL.md, trace_tests)
        self.trace_tests_ms = _num(data, "trace_tests_ms", DEFAULT_TRACE_TESTS_MS)
        # scoped recording (watch.py): only the caught invocations of watched functions and
        # what they call are recorded, each with its FLT
        self.scope = bool(data.get("scope", False))
        # an editor's run (editwatch.py): the unix socket of the control server that adds
        # watches to the running recording ("" or absent: none)
        self.control = _str(data, "control", default="") or None
        self.seed = data.get("seed")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(self.seed, int)):
            raise ConfigError("'seed' must be an integer or null")
        limits = data.get("limits") or {}
        if not isinstance(limits, dict):
            raise ConfigError("'limits' must be an object")
        self.max_calls = _int(limits, "max_calls", DEFAULT_LIMITS["max_calls"], prefix="limits.")
        self.max_steps = _int(limits, "max_steps", DEFAULT_LIMITS["max_steps"], prefix="limits.")
        self.max_bytes = _int(limits, "max_bytes", DEFAULT_LIMITS["max_bytes"], prefix="limits.")
        self.trace = [_selector(i, s) for i, s in enumerate(_list(data, "trace"))]
        self.trace_all, self.trace_all_ms = _trace_all(data.get("trace_all"))
        self.conditions = [_condition(i, c) for i, c in enumerate(_list(data, "conditions"))]
        self.expect = [_expect(i, e) for i, e in enumerate(_list(data, "expect"))]
        self.stops = {}
        for i, s in enumerate(_list(data, "stops")):
            stop = _stop(i, s)
            self.stops[stop.id] = stop


def load(path):
    """Read and validate the config at `path`."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise ConfigError("config file %s does not exist" % path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError("cannot read config %s: %s" % (path, exc)) from None
    except ValueError as exc:
        raise ConfigError("config %s is not valid JSON: %s" % (path, exc)) from None
    return Config(data)


def _compile(text):
    try:
        return compile(text, "<adi condition>", "eval")
    except SyntaxError as exc:
        raise ConfigError("condition %r is not a Python expression: %s" % (text, exc.msg)) from None


def _target(t):
    if not isinstance(t, dict):
        raise ConfigError("'target' must be an object with a 'mode'")
    mode = t.get("mode")
    target = {"mode": mode, "argv": _str_list(t, "argv", prefix="target."),
              "stdin": _str(t, "stdin", prefix="target.")}
    if mode == "script":
        target["path"] = _str(t, "path", required=True, prefix="target.")
    elif mode == "module":
        target["module"] = _str(t, "module", required=True, prefix="target.")
    elif mode == "code":
        target["code"] = _str(t, "code", required=True, prefix="target.")
    else:
        raise ConfigError("target.mode must be 'script', 'module' or 'code', not %r" % (mode,))
    return target


def _func(d, where):
    func = d.get("func")
    if not isinstance(func, str) or ":" not in func:
        raise ConfigError("%s: 'func' must be a string like 'module:qualname'" % where)
    return func


def _at(d, where, line=False):
    at = d.get("at") or "entry"
    allowed = ("entry", "exit", "line") if line else ("entry", "exit")
    if at not in allowed:
        raise ConfigError("%s: 'at' must be %s, not %r" % (where, " or ".join("'%s'" % a for a in allowed), at))
    return at


def _selector(i, s):
    where = "trace[%d]" % i
    if not isinstance(s, dict):
        raise ConfigError("%s must be an object" % where)
    sel = Selector(_func(s, where), at=_at(s, where))
    if s.get("index") is not None:
        sel.index = _int(s, "index", None, minimum=1, prefix=where + ".")
    if s.get("cond") is not None:
        sel.cond = _str(s, "cond", prefix=where + ".")
        sel.code = _compile(sel.cond)
    if sel.index is None and sel.cond is None:
        sel.cond = "True"
        sel.code = _compile("True")
    if s.get("max") is not None:
        sel.max = _int(s, "max", None, minimum=0, prefix=where + ".")
    return sel


def _trace_all(t):
    """`trace_all`: the step budget of eager FLTs and their time budget in ms (None: off / none)."""
    if t is None:
        return None, None
    if not isinstance(t, dict):
        raise ConfigError("'trace_all' must be an object like {\"max_steps\": 20000}, or null")
    ms = None
    if t.get("max_ms") is not None:
        ms = _int(t, "max_ms", None, prefix="trace_all.")
    return _int(t, "max_steps", None, prefix="trace_all."), ms


def _condition(i, c):
    where = "conditions[%d]" % i
    if not isinstance(c, dict):
        raise ConfigError("%s must be an object" % where)
    cond = Condition(_int(c, "id", i, prefix=where + "."), _func(c, where),
                     _str(c, "cond", required=True, prefix=where + "."), _at(c, where, line=True))
    if cond.at == "line":
        cond.line = _int(c, "line", None, minimum=1, prefix=where + ".")
    elif c.get("line") is not None:
        raise ConfigError("%s: 'line' needs 'at': 'line'" % where)
    cond.code = _compile(cond.cond)
    return cond


def _expect(i, e):
    where = "expect[%d]" % i
    if not isinstance(e, dict):
        raise ConfigError("%s must be an object" % where)
    chain = _str_list(e, "chain", prefix=where + ".")
    return Expect(_func(e, where), _int(e, "index", None, minimum=1, prefix=where + "."),
                  chain, _str(e, "args_fp", prefix=where + "."))


def _stop(i, s):
    where = "stops[%d]" % i
    if not isinstance(s, dict):
        raise ConfigError("%s must be an object" % where)
    p = where + "."
    return Stop(_int(s, "id", i, prefix=p), _func(s, where), _int(s, "index", None, minimum=1, prefix=p),
                _int(s, "line", None, minimum=1, prefix=p), _int(s, "visit", 1, minimum=1, prefix=p),
                _str(s, "exec", prefix=p), _num(s, "timeout", 0, prefix=p))


def _str(d, key, default=None, required=False, prefix=""):
    v = d.get(key, default)
    if v is None:
        if required:
            raise ConfigError("'%s%s' is required" % (prefix, key))
        return None
    if not isinstance(v, str):
        raise ConfigError("'%s%s' must be a string" % (prefix, key))
    return v


def _str_list(d, key, prefix=""):
    v = d.get(key) or []
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise ConfigError("'%s%s' must be a list of strings" % (prefix, key))
    return v


def _invocations(d, key):
    """A list of {"func": F, "index": N} as a dict F -> set of N."""
    out = {}
    for i, s in enumerate(_list(d, key)):
        if not isinstance(s, dict) or not isinstance(s.get("func"), str) or type(s.get("index")) is not int \
                or s["index"] < 1:
            raise ConfigError("'%s[%d]' must be {\"func\": NAME, \"index\": N} with N from 1" % (key, i))
        out.setdefault(s["func"], set()).add(s["index"])
    return out


def _list(d, key):
    v = d.get(key) or []
    if not isinstance(v, list):
        raise ConfigError("'%s' must be a list" % key)
    return v


def _int(d, key, default, minimum=0, prefix=""):
    v = d.get(key, default)
    if v is None:
        raise ConfigError("'%s%s' is required" % (prefix, key))
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise ConfigError("'%s%s' must be an integer >= %d" % (prefix, key, minimum))
    return v


def _num(d, key, default, prefix=""):
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
        raise ConfigError("'%s%s' must be a non-negative number" % (prefix, key))
    return v
