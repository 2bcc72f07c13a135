"""The run's output files: calls.bin and flt.bin (batched), result.json (atomic).

Recorders append records to ``Output.calls`` and ``Output.flt``, both as tuples. Both queues
are plain lists: appending is atomic under the GIL, so every thread appends to the same list.
``flush()`` takes what is there and writes it as one batch (one ``write``), and counts the
bytes; once ``max_bytes`` is reached ``over_limit`` turns true and the recorder stops
recording new calls and FLTs.

- calls.bin and flt.bin: after a header (``CALLS_MAGIC``, ``FLT_MAGIC``), each batch is a
  4-byte little-endian length and ``marshal.dumps(records, 2)`` of that many bytes: a list of
  tuples holding str, int, float, bool, None, bytes, and tuples, lists and dicts of those.
  marshal is the cheapest serialisation the standard library has (about a fifth of the cost
  of formatting the same record as JSON), and version 2 writes no back-references, so equal
  records give equal bytes and the Go reader stays small. Values (arguments, returns, ΔS) may
  be the value itself when it is an int, bool or None (``RAW_TYPES``; the reader writes its
  repr), so the hot path does not format them.
"""

import json
import marshal
import os
import threading

CALLS_MAGIC = b"adi-calls 1\n"
FLT_MAGIC = b"adi-flt 1\n"
MARSHAL_VERSION = 2
RAW_TYPES = frozenset((bool, type(None)))  # besides int: values written as themselves
RAW_ARG_BOUND = 10 ** 63  # a raw int argument's repr fits the 64 characters of an "=..." fingerprint


class Output:
    """Batched writers for the two record files plus the result file."""

    def __init__(self, out_dir, max_bytes, discard=False):
        os.makedirs(out_dir, exist_ok=True)
        self.dir = out_dir
        self.max_bytes = max_bytes
        # discard: records are dropped, not written (config "stops_only"); the files hold
        # their magic only
        self.discard = discard
        self.calls = []
        self.flt = []
        self.bytes = 0
        self.over_limit = False
        self.closed = False
        self._lock = threading.Lock()
        # unbuffered: each batch is one write, and a forked child has no buffer to flush twice
        self._calls_file = open(os.path.join(out_dir, "calls.bin"), "wb", buffering=0)
        self._flt_file = open(os.path.join(out_dir, "flt.bin"), "wb", buffering=0)
        self._write(self._calls_file, CALLS_MAGIC)
        self._write(self._flt_file, FLT_MAGIC)

    def flush(self, wait=False):
        """Write everything recorded so far (safe from any thread; no-op once closed). Without
        `wait`, a flush while another thread writes returns at once (the records stay queued)."""
        if not self._lock.acquire(blocking=wait):
            return  # another thread is flushing; the records stay queued for the next flush
        try:
            if self.closed:
                return
            self._drain_calls()
            self._drain_flt()
        finally:
            self._lock.release()

    def _drain_calls(self):
        self._drain(self.calls, self._calls_file)

    def _drain_flt(self):
        self._drain(self.flt, self._flt_file)

    def _drain(self, queue, f):
        n = len(queue)
        if not n:
            return
        if self.discard:
            del queue[:n]
            return
        batch = queue[:n]
        del queue[:n]  # records appended meanwhile sit after index n and stay
        try:
            payload = marshal.dumps(batch, MARSHAL_VERSION)
        except ValueError:  # a bug put an object marshal cannot write in a record
            payload = marshal.dumps([_marshalable(r) for r in batch], MARSHAL_VERSION)
        self._write(f, len(payload).to_bytes(4, "little") + payload)

    def _write(self, f, data):
        view = memoryview(data)
        while view:
            view = view[f.write(view):]
        self.bytes += len(data)
        if self.bytes >= self.max_bytes:
            self.over_limit = True

    def close(self):
        """Flush and close the record files (later records are discarded)."""
        with self._lock:
            if self.closed:
                return
            self._drain_calls()
            self._drain_flt()
            self.closed = True
            for f in (self._calls_file, self._flt_file):
                try:
                    f.close()
                except OSError:
                    pass

    def write_result(self, result):
        """Write result.json atomically."""
        write_result(self.dir, result)


def _marshalable(v):
    """`v` with every value marshal cannot write replaced by its repr (a safety net)."""
    t = type(v)
    if t in (str, int, bool, float, bytes) or v is None:
        return v
    if t is tuple or t is list:
        return tuple(_marshalable(x) for x in v)
    if t is dict:
        return {_marshalable(k): _marshalable(x) for k, x in v.items()}
    try:
        return "%s" % (repr(v),)
    except Exception:
        return "<unwritable>"


def write_result(out_dir, result):
    """Write `result` as out_dir/result.json atomically."""
    os.makedirs(out_dir, exist_ok=True)
    write_json(os.path.join(out_dir, "result.json"), result)


def write_json(path, data):
    """Write `data` as JSON to `path` atomically (a temp file renamed into place)."""
    tmp = path + ".tmp.%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    os.replace(tmp, path)
