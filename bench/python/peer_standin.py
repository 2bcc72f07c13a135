"""A small stand-in for the method of the ADI paper's artifact (GhabiX/ADI, src/ADI): every
command re-runs the program with a tracer that finds one frame and records it.

    python peer_standin.py --out OUT.json MODE FILE:FUNC#N [--line L] [--stmt S] -- \
        (-m MODULE | SCRIPT) [ARGS...]

MODE is what one command of the artifact costs:
  flt       the FLT of FILE:FUNC#N. break, continue, prev, step-in, step-out and flt each re-run
            the program to the frame they name and record it this way.
  calltree  the calls below FILE:FUNC#N, three levels deep, with arguments and return values.
  exec      run STMT in FILE:FUNC#N at its first arrival at line L, printing what it prints.

How it works, as the artifact does (this is a re-implementation of the method for measuring it,
not the artifact's code): a sys.setprofile hook follows every call of every thread (a call stack
and a count of invocations per code object) and filters, by file and then by name, the calls
that may be FILE:FUNC; at the N-th such call the hook is swapped for sys.settrace, and that
frame's f_trace records each line it runs with the frame's locals (reprs bounded to 200
characters) and what changed; when the frame returns, profiling resumes to count the program's
calls to its end. calltree keeps the profile hook and records the calls below the frame. The
result is written at exit. Standard library only.
"""

import argparse
import atexit
import contextlib
import io
import json
import os
import sys
import threading
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pyrun  # noqa: E402

del sys.path[0]

MAX_REPR = 200
TREE_DEPTH = 3


def short_repr(value):
    """A repr bounded to MAX_REPR characters, cut in the middle (as PySnooper does)."""
    try:
        s = repr(value)
    except Exception as e:  # noqa: BLE001 - a target's __repr__ may raise anything
        return "<repr failed: %s>" % type(e).__name__
    if len(s) > MAX_REPR:
        half = MAX_REPR // 2
        s = s[:half - 3] + "..." + s[-half:]
    return s


def qualname(code):
    return getattr(code, "co_qualname", code.co_name)


def arg_names(code):
    n = code.co_argcount + code.co_kwonlyargcount
    n += bool(code.co_flags & 0x04) + bool(code.co_flags & 0x08)  # *args, **kwargs
    return code.co_varnames[:n]


class Standin:
    def __init__(self, mode, target, line, stmt, out):
        where, _, index = target.rpartition("#")
        path, _, func = where.rpartition(":")
        self.file = os.path.abspath(path)
        self.func, self.index = func, int(index)
        self.short = func.split(".")[-1]
        self.mode, self.line, self.stmt, self.out = mode, line, stmt, out
        self.calls = {}      # code object -> invocations so far (every code, as the artifact)
        self.matches = 0     # invocations of FILE:FUNC so far
        self.in_file = {}    # co_filename -> whether it is FILE
        self.local = threading.local()
        self.focus = None
        self.focus_depth = 0
        self.snapshot = {}
        self.result = {"mode": mode, "target": target, "found": False, "steps": [], "tree": [],
                       "calls": 0}
        self.open = {}       # calltree: frame -> its row
        atexit.register(self.write)

    # The profile stage.
    def stack(self):
        s = getattr(self.local, "stack", None)
        if s is None:
            s = self.local.stack = []
        return s

    def is_file(self, filename):
        v = self.in_file.get(filename)
        if v is None:
            v = not filename.startswith("<") and os.path.abspath(filename) == self.file
            self.in_file[filename] = v
        return v

    def profile(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            self.calls[code] = self.calls.get(code, 0) + 1
            self.result["calls"] += 1
            stack = self.stack()
            stack.append(frame)
            if self.open:
                self.tree_call(frame, len(stack))
            if (self.focus is None and code.co_name == self.short and self.is_file(code.co_filename)
                    and qualname(code) == self.func):
                self.matches += 1
                if self.matches == self.index:
                    self.found(frame, len(stack))
        elif event in ("return", "exception"):
            stack = self.stack()
            if stack and stack[-1] is frame:
                stack.pop()
            else:
                for i in range(len(stack) - 1, -1, -1):
                    if stack[i] is frame:
                        del stack[i:]
                        break
            row = self.open.pop(frame, None)
            if row is not None and event == "return":
                row["return"] = short_repr(arg)
            if frame is self.focus and self.mode == "calltree":
                self.focus = None
                self.open.clear()

    def found(self, frame, depth):
        self.result["found"] = True
        self.result["args"] = {n: short_repr(frame.f_locals.get(n)) for n in arg_names(frame.f_code)}
        self.focus, self.focus_depth = frame, depth
        if self.mode == "calltree":
            self.tree_call(frame, depth)
            return
        # Swap profiling for line tracing of this frame (sys.settrace must be on for f_trace).
        sys.setprofile(None)
        threading.setprofile(None)
        sys.settrace(self.trace_call)
        threading.settrace(self.trace_call)
        self.snapshot = {}
        frame.f_trace = self.trace_line

    def tree_call(self, frame, depth):
        d = depth - self.focus_depth
        if d > TREE_DEPTH:
            return
        code = frame.f_code
        row = {"depth": d, "fid": "%s#%d" % (qualname(code), self.calls[code]),
               "args": {n: short_repr(frame.f_locals.get(n)) for n in arg_names(code)}}
        self.result["tree"].append(row)
        self.open[frame] = row

    # The trace stage.
    def trace_call(self, frame, event, arg):
        return None  # only the focus frame is traced (its f_trace was set directly)

    def trace_line(self, frame, event, arg):
        if frame is not self.focus:
            return None
        self.record_changes(frame)
        if event == "line":
            if self.mode == "exec" and (self.line in (0, frame.f_lineno)):
                self.execute(frame)
                self.line = -1
            self.result["steps"].append({"line": frame.f_lineno, "changes": []})
        elif event == "return":
            self.result["return"] = short_repr(arg)
            self.resume_profile()
            return None
        return self.trace_line

    def record_changes(self, frame):
        now = {k: short_repr(v) for k, v in frame.f_locals.items()}
        changes = []
        for k, v in now.items():
            old = self.snapshot.get(k)
            if old != v:
                changes.append([k, old, v])
        self.snapshot = now
        if self.result["steps"]:
            self.result["steps"][-1]["changes"] = changes

    def execute(self, frame):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
            try:
                exec(compile(self.stmt, "<adi-exec>", "exec"), frame.f_globals, frame.f_locals)
            except BaseException:  # noqa: BLE001 - report whatever the statement raised
                traceback.print_exc()
        self.result["exec"] = buf.getvalue()

    def resume_profile(self):
        sys.settrace(None)
        threading.settrace(None)
        self.focus = None
        sys.setprofile(self.profile)
        threading.setprofile(self.profile)

    def write(self):
        sys.setprofile(None)
        sys.settrace(None)
        with open(self.out, "w") as f:
            json.dump(self.result, f)


def main():
    opts, target = pyrun.split_args(sys.argv[1:])
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--line", type=int, default=0)
    p.add_argument("--stmt", default="")
    p.add_argument("mode", choices=("flt", "calltree", "exec"))
    p.add_argument("target")
    a = p.parse_args(opts)
    s = Standin(a.mode, a.target, a.line, a.stmt, a.out)
    threading.setprofile(s.profile)
    sys.setprofile(s.profile)
    code = pyrun.run(target)
    sys.exit(code)


if __name__ == "__main__":
    main()
