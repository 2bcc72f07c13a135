"""seed: random's unseeded generators draw the same numbers in every run (PROTOCOL.md, Config)."""

import unittest

from .harness import record, script


class Seeding(unittest.TestCase):
    def test_same_numbers_in_every_seeded_run(self):
        a = record(script("random_prog.py"), seed=0)
        b = record(script("random_prog.py"), seed=0)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        self.assertEqual(a.calls_records, b.calls_records)
        self.assertEqual([inv.args for inv in a.order[1:]], [inv.args for inv in b.order[1:]])

    def test_unseeded_runs_differ(self):
        outs = {record(script("random_prog.py")).stdout for _ in range(3)}
        self.assertGreater(len(outs), 1)
