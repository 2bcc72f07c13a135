"""Limits and their honest markers: max_calls, max_steps, max_bytes."""

import unittest

from .harness import record, script


class MaxCalls(unittest.TestCase):
    def test_trunc_record_and_unrecorded_count(self):
        rec = record(script("many_calls.py"), limits={"max_calls": 10})
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.stdout, "1225\n")  # the target still finishes
        self.assertEqual(rec.trunc, 10)
        self.assertEqual(len(rec.order), 10)
        self.assertEqual(rec.result["calls"], 10)
        self.assertEqual(rec.result["unrecorded_calls"], 43)
        self.assertEqual(rec.result["limit"], "max_calls")
        self.assertFalse(rec.result["complete"])
        # frames recorded before the limit still report how they ended
        self.assertEqual(rec.get("many_calls:loop#1").outcome, ("ret", "1225"))
        self.assertEqual(rec.get("many_calls:tiny#7").outcome, ("ret", "6"))
        # the three frames still live at the limit end after it: their records follow it
        tags = [r[0] for r in rec.calls_records]
        self.assertEqual(tags[tags.index("trunc") + 1:], ["callret", "callret", "callret"])


class MaxSteps(unittest.TestCase):
    def test_dropped_steps(self):
        rec = record(script("many_calls.py"), limits={"max_steps": 7},
                     trace=[{"func": "many_calls:loop", "index": 1}])
        self.assertEqual(rec.lines("many_calls:loop#1"), [9, 10, 11, 10, 11, 10, 11])
        self.assertEqual(rec.end("many_calls:loop#1"), ["return", 96])  # 103 steps in all


class MaxBytes(unittest.TestCase):
    def test_stops_recording_calls(self):
        # the size is checked each time a batch is written (every 2048 calls)
        rec = record(script("many_calls.py", ["5000"]), limits={"max_bytes": 1000})
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.stdout, "12497500\n")
        self.assertEqual(rec.result["limit"], "max_bytes")
        self.assertEqual(rec.trunc, 2048)
        self.assertEqual(rec.result["calls"], 2048)
        self.assertEqual(rec.result["calls"] + rec.result["unrecorded_calls"], 5003)
        self.assertEqual(len(rec.order), 2048)

    def test_small_runs_are_not_cut(self):
        rec = record(script("many_calls.py"), limits={"max_bytes": 100})
        self.assertIsNone(rec.result["limit"])
        self.assertGreater(rec.result["bytes"], 100)


if __name__ == "__main__":
    unittest.main()
