#!/usr/bin/env python3
"""Builds adi's release files into dist/ (make dist), with the Python standard library only.

For each platform it cross-compiles the two static binaries (CGO_ENABLED=0, GOOS/GOARCH) and
writes
  adi-VERSION-OS-ARCH.tar.gz     the binaries in a directory of that name,
  adi_bridge-VERSION-py3-none-TAGS.whl
                                 a wheel (as ruff and uv ship theirs): the binaries in
                                 adi_bridge-VERSION.data/scripts/, which pip puts in the
                                 environment's bin/, and the pure-Python package adi_bridge
                                 (python -m adi_bridge ARGS runs adi ARGS),
then SHA256SUMS over all of them (sha256sum -c reads it).

The version comes from the file VERSION at the repository's root (the release tag is v$VERSION);
--version overrides it. Wheels and tarballs are reproducible: entries sorted, times fixed
(SOURCE_DATE_EPOCH, else 2020-01-01), binaries built with -trimpath and without VCS stamps.

  scripts/dist.py [--out DIR] [--version V] [--platforms linux/amd64,darwin/arm64,...]
"""

import argparse
import base64
import csv
import gzip
import hashlib
import io
import os
import re
import subprocess
import sys
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "packaging", "python")
NAME = "adi-bridge"  # the distribution's name on PyPI
DIST = "adi_bridge"  # its normalized form, in file names; also the import name
BINARIES = ("adi", "adi-server")

# The platform tags of each wheel. A static Go binary needs no libc, so one Linux wheel serves
# glibc (manylinux2014) and musl (musllinux_1_1) systems; Go 1.26 links macOS binaries for
# macOS 12 and later (their LC_BUILD_VERSION), so the macOS wheels say 12_0.
PLATFORMS = {
    "linux/amd64": "manylinux2014_x86_64.musllinux_1_1_x86_64",
    "linux/arm64": "manylinux2014_aarch64.musllinux_1_1_aarch64",
    "darwin/amd64": "macosx_12_0_x86_64",
    "darwin/arm64": "macosx_12_0_arm64",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "dist"))
    ap.add_argument("--version", default=None, help="default: the VERSION file")
    ap.add_argument("--platforms", default=",".join(PLATFORMS), help="comma-separated GOOS/GOARCH")
    ap.add_argument("--go", default=os.environ.get("GO", "go"))
    a = ap.parse_args()
    version = a.version or read_version()
    if not re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", version):
        sys.exit("dist: version %r is not a release version (PEP 440, e.g. 0.1.0 or 0.2.0rc1)" % version)
    platforms = [p for p in a.platforms.split(",") if p]
    for p in platforms:
        if p not in PLATFORMS:
            sys.exit("dist: unknown platform %r; use some of %s" % (p, ", ".join(PLATFORMS)))
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "1577836800"))
    os.makedirs(a.out, exist_ok=True)
    written = []
    for p in platforms:
        goos, goarch = p.split("/")
        bindir = os.path.join(a.out, "build", "%s-%s" % (goos, goarch))
        build(a.go, goos, goarch, version, bindir)
        written.append(tarball(a.out, bindir, version, goos, goarch, epoch))
        written.append(wheel(a.out, bindir, version, PLATFORMS[p], epoch))
    sums = os.path.join(a.out, "SHA256SUMS")
    with open(sums, "w") as f:
        for path in sorted(written):
            f.write("%s  %s\n" % (sha256_file(path), os.path.basename(path)))
    for path in written + [sums]:
        print(os.path.relpath(path, ROOT) if path.startswith(ROOT + os.sep) else path)


def read_version():
    with open(os.path.join(ROOT, "VERSION")) as f:
        return f.read().strip()


def build(go, goos, goarch, version, bindir):
    os.makedirs(bindir, exist_ok=True)
    env = dict(os.environ, CGO_ENABLED="0", GOOS=goos, GOARCH=goarch)
    ldflags = "-s -w -X github.com/adi-bridge/adi/cli.Version=%s" % version
    cmd = [go, "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", bindir + os.sep]
    cmd += ["./cmd/" + b for b in BINARIES]
    print("dist: GOOS=%s GOARCH=%s %s" % (goos, goarch, " ".join(cmd)), file=sys.stderr)
    subprocess.run(cmd, env=env, cwd=ROOT, check=True)


def tarball(out, bindir, version, goos, goarch, epoch):
    top = "adi-%s-%s-%s" % (version, goos, goarch)
    path = os.path.join(out, top + ".tar.gz")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name in sorted(BINARIES):
            data = read(os.path.join(bindir, name))
            ti = tarfile.TarInfo("%s/%s" % (top, name))
            ti.size, ti.mode, ti.mtime = len(data), 0o755, epoch
            ti.uname = ti.gname = ""
            tf.addfile(ti, io.BytesIO(data))
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=epoch) as gz:
            gz.write(buf.getvalue())
    return path


def wheel(out, bindir, version, tags, epoch):
    """Writes the wheel (PEP 427, binary distribution format 1.0) and returns its path."""
    info = "%s-%s.dist-info" % (DIST, version)
    data = "%s-%s.data" % (DIST, version)
    files = []  # (archive name, bytes, executable)
    for name in sorted(os.listdir(os.path.join(PKG, DIST))):
        if name.endswith(".py"):
            files.append(("%s/%s" % (DIST, name), read(os.path.join(PKG, DIST, name)), False))
    files.append(("%s/_version.py" % DIST, ('__version__ = "%s"\n' % version).encode(), False))
    for name in BINARIES:
        files.append(("%s/scripts/%s" % (data, name), read(os.path.join(bindir, name)), True))
    files.sort()
    files.append(("%s/METADATA" % info, metadata(version), False))
    wheel_file = "Wheel-Version: 1.0\nGenerator: adi scripts/dist.py\nRoot-Is-Purelib: false\n"
    for plat in tags.split("."):
        wheel_file += "Tag: py3-none-%s\n" % plat
    files.append(("%s/WHEEL" % info, wheel_file.encode(), False))
    record = io.StringIO()
    w = csv.writer(record, lineterminator="\n")
    for name, content, _ in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
        w.writerow([name, "sha256=" + digest, len(content)])
    w.writerow(["%s/RECORD" % info, "", ""])
    files.append(("%s/RECORD" % info, record.getvalue().encode(), False))

    path = os.path.join(out, "%s-%s-py3-none-%s.whl" % (DIST, version, tags))
    stamp = zip_time(epoch)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content, executable in files:
            zi = zipfile.ZipInfo(name, stamp)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3  # unix: external_attr holds the mode, which pip keeps (+x)
            zi.external_attr = (0o100755 if executable else 0o100644) << 16
            zf.writestr(zi, content, compresslevel=9)
    return path


def metadata(version):
    """The core metadata (version 2.1, which every pip since 2018 reads)."""
    with open(os.path.join(PKG, "README.md")) as f:
        readme = f.read()
    head = [
        "Metadata-Version: 2.1",
        "Name: " + NAME,
        "Version: " + version,
        "Summary: adi: see a Python run one function invocation at a time (for debugging agents)",
        "Home-page: https://github.com/adi-bridge/adi",
        "Project-URL: Source, https://github.com/adi-bridge/adi",
        "Keywords: debugger,debugpy,dap,mcp,agents,tracing",
        "Classifier: Development Status :: 4 - Beta",
        "Classifier: Topic :: Software Development :: Debuggers",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Operating System :: MacOS",
        "Classifier: Programming Language :: Python :: 3",
        "Requires-Python: >=3.8",
        "Provides-Extra: debugpy",
        'Requires-Dist: debugpy; extra == "debugpy"',
        "Description-Content-Type: text/markdown",
    ]
    return ("\n".join(head) + "\n\n" + readme).encode()


def zip_time(epoch):
    t = time.gmtime(max(epoch, 315532800))  # a zip's times start in 1980
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec // 2 * 2)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


if __name__ == "__main__":
    main()
