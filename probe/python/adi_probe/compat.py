"""What the probe needs from Python 3.7+ that Python 3.6 lacks."""

import os

_before = []
_after_in_child = []


def register_at_fork(before=None, after_in_child=None):
    """``os.register_at_fork`` (3.7+); on 3.6, the same hooks run around ``os.fork`` (which
    is wrapped the first time a hook is registered: ``multiprocessing`` forks through it)."""
    if hasattr(os, "register_at_fork"):
        kw = {}
        if before is not None:
            kw["before"] = before
        if after_in_child is not None:
            kw["after_in_child"] = after_in_child
        os.register_at_fork(**kw)
        return
    if not _before and not _after_in_child:
        _wrap_fork()
    if before is not None:
        _before.append(before)
    if after_in_child is not None:
        _after_in_child.append(after_in_child)


def _wrap_fork():
    real = os.fork

    def fork():
        for hook in reversed(_before):  # (as 3.7 runs them: the last registered first)
            hook()
        pid = real()
        if pid == 0:
            for hook in _after_in_child:
                hook()
        return pid

    os.fork = fork
