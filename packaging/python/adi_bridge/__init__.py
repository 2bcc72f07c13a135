"""adi: see a Python run one function invocation at a time.

This package is the Python face of the adi-bridge wheel. The wheel's real content is two static
binaries, ``adi`` and ``adi-server``, which pip installs into the environment's scripts directory
(``bin/``, on PATH when the environment is). ``python -m adi_bridge ARGS`` runs ``adi ARGS`` (same
arguments, same exit status); :func:`find_adi_bin` returns the path of either binary.

The import name is ``adi_bridge``, not ``adi``: PyPI's pyadi-iio already installs a package
named ``adi``.
"""

import csv
import os
import shutil
import sys
import sysconfig

from ._version import __version__

__all__ = ["__version__", "find_adi_bin"]


def find_adi_bin(name="adi"):
    """Return the path of the binary ``name`` ("adi" or "adi-server") installed with this package.

    It is looked up in this installation's own RECORD (where pip wrote it), then in the
    scripts directories of the interpreter's default and user schemes, then on PATH.
    """
    for path in _recorded(name):
        if _runnable(path):
            return path
    schemes = [sysconfig.get_default_scheme() if hasattr(sysconfig, "get_default_scheme") else None]
    if hasattr(sysconfig, "get_preferred_scheme"):
        schemes.append(sysconfig.get_preferred_scheme("user"))
    else:
        schemes.append("osx_framework_user" if sys.platform == "darwin" and sys._framework else "posix_user")
    for scheme in schemes:
        try:
            scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        path = os.path.join(scripts, name)
        if _runnable(path):
            return path
    path = shutil.which(name)
    if path:
        return path
    raise FileNotFoundError(
        "cannot find the %s binary of adi-bridge %s; reinstall it: python -m pip install --force-reinstall adi-bridge"
        % (name, __version__)
    )


def _recorded(name):
    """The paths of the installed files called name, from this installation's RECORD."""
    site = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    record = os.path.join(site, "adi_bridge-%s.dist-info" % __version__, "RECORD")
    try:
        with open(record, newline="") as f:
            rows = list(csv.reader(f))
    except OSError:
        return []
    return [
        os.path.normpath(os.path.join(site, row[0]))
        for row in rows
        if row and os.path.basename(row[0]) == name and not row[0].startswith("adi_bridge")
    ]


def _runnable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)
