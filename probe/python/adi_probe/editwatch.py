"""Watching functions in an editor's recording run (PROTOCOL.md, "Watching in an editor's run").

An editor debugs the program through ``adi dap``; the run is a full recording (runner.Run) whose
config names a control socket (``"control"``). ``RunControl`` serves the control protocol of
live watching on it (watch.Control, watch._serve: one implementation), but on the full
recording: ``add {func, cond?, max?}`` puts an entry selector in the running Recorder
(``Recorder.add_watch``), so every following invocation of the function whose cond holds at
entry gets its FLT recorded as it runs (written to flt.bin, flushed when it returns); ``remove``,
``list`` (with the caught invocations' fids), ``flush`` and ``ping`` as in watch mode. The
records' idx and fids are T's: ``func#n`` is the n-th call of func in the run.
"""

import os

from . import watch


class RunControl(watch.Control):
    """The control server of one recording run."""

    def __init__(self, run, path):
        self.run = run
        self.rec = run.rec
        self.out = run.out
        self.users = run.rec.users
        self.path = path
        self.pid = os.getpid()
        self.server = None
        self.thread = None
        self.closed = False

    @property
    def engine(self):
        return self.run.engine

    def start(self):
        self.server = watch._listen(self.path)
        self.thread = watch.start_server(self)

    def close(self):
        """At the end of the run (and in a forked child: the parent's socket stays)."""
        if self.closed:
            return
        self.closed = True
        if os.getpid() != self.pid:
            return
        try:
            self.server.close()
            os.unlink(self.path)
        except (OSError, AttributeError):
            pass

    def add(self, func, cond, max_):
        lw = self.rec.add_watch(func, cond, max_)
        return {"watch": lw.id, "matches": watch.matches(self.rec, self.users, lw.func)}

    def remove(self, wid):
        return self.rec.remove_watch(wid)

    def watch_list(self):
        return [lw.describe() for lw in list(self.rec.live_watches.values())]
