"""A program that recurses until RecursionError (issue 13): same depth and message as under plain
python on every engine, and the recording goes on after it."""

import os
import subprocess
import sys
import unittest

from .harness import ENGINES, FIXTURES, record, script


class RecursionLimit(unittest.TestCase):
    def test_same_depth_and_message_and_the_recording_goes_on(self):
        plain = subprocess.run([sys.executable, os.path.join(FIXTURES, "recursion_limit.py")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=FIXTURES, check=True)
        expected = plain.stdout.decode()
        self.assertEqual(expected, "maximum recursion depth exceeded 997 42 1000\n")
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("recursion_limit.py"), engine=engine)
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(rec.stdout, expected)
                by_func = {}
                for inv in rec.order:
                    by_func.setdefault(inv.func, []).append(inv)
                downs = by_func["recursion_limit:down"]
                counts = by_func["recursion_limit:reached.<locals>.count"]
                self.assertEqual(len(downs), 997)  # with <module>, main and depth: 1000 frames
                self.assertEqual(len(counts), 997)
                for inv in downs + counts:
                    self.assertEqual(inv.outcome[:3], ("exc", "RecursionError", "maximum recursion depth exceeded"))
                self.assertEqual(by_func["recursion_limit:depth"][0].outcome, ("ret", "'maximum recursion depth exceeded'"))
                self.assertEqual(by_func["recursion_limit:after"][0].outcome, ("ret", "42"))
                self.assertEqual(by_func["recursion_limit:main"][0].outcome, ("ret", "None"))
                self.assertTrue(all(inv.outcome is not None for inv in rec.order))
                self.assertTrue(rec.result["complete"])

    def test_the_target_sets_its_own_limit(self):
        path = os.path.join(FIXTURES, "recursion_setlimit.py")
        plain = subprocess.run([sys.executable, path], stdout=subprocess.PIPE, cwd=FIXTURES, check=True)
        self.assertEqual(plain.stdout.decode(), "maximum recursion depth exceeded 200\n")
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("recursion_setlimit.py"), engine=engine)
                self.assertEqual(rec.stdout, plain.stdout.decode(), rec.stderr)
                self.assertEqual(len([i for i in rec.order if i.func == "recursion_setlimit:f"]), 198)


if __name__ == "__main__":
    unittest.main()
