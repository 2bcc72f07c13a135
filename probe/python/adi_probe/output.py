"""The run's output files: calls.jsonl and flt.jsonl (batched), result.json (atomic).

Recorders append records to ``Output.calls`` (each already JSON text) and ``Output.flt``
(tuples, encoded at flush time). Both are plain lists: appending is atomic under the GIL, so
every thread appends to the same list and the records keep the order in which they happened.
``flush()`` takes what is there, writes it as one JSON array per line (one ``write`` per
batch) and counts the bytes; once ``max_bytes`` is reached ``over_limit`` turns true and the
recorder stops recording new calls and FLTs.
"""

import json
import os
import threading
from json.encoder import encode_basestring_ascii

encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode
esc = encode_basestring_ascii  # a str as a JSON string literal


class Output:
    """Batched writers for the two record files plus the result file."""

    def __init__(self, out_dir, max_bytes):
        os.makedirs(out_dir, exist_ok=True)
        self.dir = out_dir
        self.max_bytes = max_bytes
        self.calls = []
        self.flt = []
        self.bytes = 0
        self.over_limit = False
        self.closed = False
        self._lock = threading.Lock()
        # unbuffered: each batch is one write, and a forked child has no buffer to flush twice
        self._calls_file = open(os.path.join(out_dir, "calls.jsonl"), "wb", buffering=0)
        self._flt_file = open(os.path.join(out_dir, "flt.jsonl"), "wb", buffering=0)

    def flush(self):
        """Write everything recorded so far (safe from any thread; no-op once closed)."""
        if not self._lock.acquire(blocking=False):
            return  # another thread is flushing; the records stay queued for the next flush
        try:
            if self.closed:
                return
            self._drain(self.calls, self._calls_file, True)
            self._drain(self.flt, self._flt_file, False)
        finally:
            self._lock.release()

    def _drain(self, queue, f, is_text):
        n = len(queue)
        if not n:
            return
        batch = queue[:n]
        del queue[:n]  # records appended meanwhile sit after index n and stay
        if is_text:
            data = ("[" + ",".join(batch) + "]\n").encode("ascii")
        else:
            data = (encode(batch) + "\n").encode("ascii")
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
            self._drain(self.calls, self._calls_file, True)
            self._drain(self.flt, self._flt_file, False)
            self.closed = True
            for f in (self._calls_file, self._flt_file):
                try:
                    f.close()
                except OSError:
                    pass

    def write_result(self, result):
        """Write result.json atomically."""
        write_result(self.dir, result)


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
