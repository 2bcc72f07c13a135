"""trace_all: eager FLTs of every invocation until a step budget is spent (PROTOCOL.md, Config)."""

import unittest

from .harness import ENGINES, record, script


class TraceAll(unittest.TestCase):
    def test_every_invocation_has_its_flt(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("loops.py"), engine=engine, trace_all={"max_steps": 100000})
                self.assertEqual(rec.returncode, 0, rec.stderr)
                # every invocation but the module body (eager FLTs never trace module bodies)
                self.assertEqual(sorted(rec.flts), [inv.idx for inv in rec.order if ":<module>#" not in inv.fid])
                for inv in rec.order[1:]:
                    self.assertEqual(rec.end(inv.fid)[0], "return", inv.fid)
                # the same FLT as a selector records
                one = record(script("loops.py"), engine=engine, trace=[{"func": "loops:early", "index": 2}])
                self.assertEqual(rec.steps("loops:early#2"), one.steps("loops:early#2"))
                # T is the same as without eager FLTs
                plain = record(script("loops.py"), engine=engine)
                self.assertEqual(plain.calls_records, rec.calls_records)

    def test_budget_stops_new_flts_but_finishes_running_ones(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                # main > loop (the module body is not traced): each tiny() call is 1 step, each
                # loop iteration 2 steps of loop#1; the budget runs out inside loop#1
                rec = record(script("many_calls.py"), engine=engine, trace_all={"max_steps": 30})
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(rec.stdout, "1225\n")
                traced = [rec.fid(i) for i in sorted(rec.flts)]
                self.assertEqual(traced[:3], ["many_calls:main#1", "many_calls:loop#1", "many_calls:tiny#1"])
                tinies = [f for f in traced if f.startswith("many_calls:tiny#")]
                self.assertEqual(tinies, ["many_calls:tiny#%d" % k for k in range(1, len(tinies) + 1)])
                self.assertLess(len(tinies), 50)
                # frames running when the budget ran out end their FLT normally (all 103 steps)
                self.assertEqual(len(rec.steps("many_calls:loop#1")), 103)
                self.assertEqual(rec.end("many_calls:loop#1"), ["return", 0])
                self.assertEqual(rec.end("many_calls:main#1")[0], "return")
                total = sum(len(f["steps"]) for f in rec.flts.values())
                self.assertGreaterEqual(total, 30)
                # until the budget ran out every new invocation was traced: a prefix of T (after
                # the module body, T[0])
                self.assertEqual(sorted(rec.flts), list(range(1, len(rec.flts) + 1)))
                self.assertEqual(len(rec.order), 53)  # T is complete

    def test_overdrawn_budget_abandons_running_flts(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                # heavy#1 starts within the 100 ms budget, but each of its steps compares 300
                # objects (about 1 ms): its FLT passes the budget by more than
                # stepper.EAGER_OVERDRAFT (50 ms) and is abandoned, and so is main#1's, whose next line comes after;
                # light#1 ended before; light#2 starts after the budget
                rec = record(script("slow_steps.py"), engine=engine, trace_all={"max_steps": 100000, "max_ms": 100})
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(rec.stdout, "1124550\n")
                ends = {rec.fid(i): f["end"] for i, f in rec.flts.items()}
                self.assertEqual(ends["slow_steps:light#1"], ["return", 0])
                self.assertEqual(ends["slow_steps:heavy#1"], ["abandoned", 0])
                self.assertEqual(ends["slow_steps:main#1"], ["abandoned", 0])
                self.assertNotIn("slow_steps:light#2", ends)
                self.assertLess(len(rec.steps("slow_steps:heavy#1")), 4501)
                # T is complete
                self.assertEqual([inv.fid for inv in rec.order if "Node.__init__" not in inv.fid],
                                 ["slow_steps:<module>#1", "slow_steps:Node#1", "slow_steps:main#1", "slow_steps:light#1",
                                  "slow_steps:heavy#1", "slow_steps:light#2"])

    def test_per_frame_limit_still_applies(self):
        rec = record(script("many_calls.py"), trace_all={"max_steps": 1000}, limits={"max_steps": 7})
        self.assertEqual(len(rec.steps("many_calls:loop#1")), 7)
        self.assertEqual(rec.end("many_calls:loop#1"), ["return", 96])

    def test_exit_selectors_keep_their_flt(self):
        rec = record(script("conditions.py"), trace_all={"max_steps": 100000},
                     trace=[{"func": "conditions:f", "cond": "_return == 2", "at": "exit"}])
        self.assertEqual(sorted(rec.flts), [inv.idx for inv in rec.order if ":<module>#" not in inv.fid])

    def test_bad_config(self):
        rec = record(script("loops.py"), trace_all={"max_steps": -1})
        self.assertEqual(rec.returncode, 2)
        self.assertIn("trace_all.max_steps", rec.stderr)


if __name__ == "__main__":
    unittest.main()


class NotDuringImports(unittest.TestCase):
    def test_imported_modules_and_their_calls_get_no_eager_flt(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("import_work.py"), engine=engine, trace_all={"max_steps": 100000})
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual([inv.fid for inv in rec.order],
                                 ["import_work:<module>#1", "import_work_mod:<module>#1", "import_work_mod:during#1",
                                  "import_work_mod:during#2", "import_work_mod:during#3", "import_work:after#1"])
                traced = sorted(rec.order[i].fid for i in rec.flts)
                self.assertEqual(traced, ["import_work:after#1"])


class TimeBudget(unittest.TestCase):
    def test_no_eager_flt_starts_once_the_time_budget_is_spent(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                # max_ms 0: starting the first eager FLT (main#1's) spends the budget, so loop#1
                # and every later invocation run untraced; T is unchanged
                rec = record(script("many_calls.py"), engine=engine, trace_all={"max_steps": 100000, "max_ms": 0})
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(sorted(rec.order[i].fid for i in rec.flts), ["many_calls:main#1"])
                plain = record(script("many_calls.py"), engine=engine)
                self.assertEqual(plain.calls_records, rec.calls_records)
