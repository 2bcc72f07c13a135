"""adi: force TCP_NODELAY on every TCP socket this process connects or accepts.

pydevd writes each DAP message as two sendall calls (header, body) and nobody sets TCP_NODELAY, so
every request through debugpy's adapter waits ~44 ms for a delayed ACK. adi puts this directory first
on PYTHONPATH for the debugpy adapter and the debuggee; this module patches socket connect/accept and
then runs the sitecustomize that would have run without it (Debian ships one), so nothing is lost.
"""
import os as _os
import socket as _socket
import sys as _sys


def _adi_nodelay(sock):
    try:
        if sock.family in (_socket.AF_INET, _socket.AF_INET6) and sock.type == _socket.SOCK_STREAM:
            sock.setsockopt(_socket.IPPROTO_TCP, _socket.TCP_NODELAY, 1)
    except (OSError, AttributeError):
        pass


def _adi_patch():
    cls = _socket.socket
    if getattr(cls, "_adi_nodelay", False):
        return
    connect, connect_ex, accept = cls.connect, cls.connect_ex, cls.accept

    def adi_connect(self, address):
        result = connect(self, address)
        _adi_nodelay(self)
        return result

    def adi_connect_ex(self, address):
        result = connect_ex(self, address)
        if result == 0:
            _adi_nodelay(self)
        return result

    def adi_accept(self):
        conn, addr = accept(self)
        _adi_nodelay(conn)
        return conn, addr

    cls.connect, cls.connect_ex, cls.accept = adi_connect, adi_connect_ex, adi_accept
    cls._adi_nodelay = True


def _adi_chain():
    """Run the next sitecustomize on sys.path, the one this module shadows."""
    import importlib.machinery
    import importlib.util

    here = _os.path.dirname(_os.path.abspath(__file__))
    path = [p for p in _sys.path if _os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # a broken sitecustomize must not stop the program; python warns too
        _sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n"
                          % (type(exc).__name__, exc))


_adi_patch()
_adi_chain()
