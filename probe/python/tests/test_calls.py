"""T, the call records: fids, callers, call lines, arguments, outcomes, generators, threads."""

import sys
import unittest

from .harness import ENGINES, record, script


def outcome_table(rec):
    """fid -> (caller fid, args, outcome) for every invocation."""
    return {inv.fid: (rec.caller_of(inv.fid), inv.args, inv.outcome) for inv in rec.order}


class LoopsAndReturns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rec = record(script("loops.py"))

    def test_exit_code_and_result(self):
        self.assertEqual(self.rec.returncode, 0, self.rec.stderr)
        result = self.rec.result
        self.assertEqual(result["exit"], {"kind": "exit", "code": 0, "exception": None})
        self.assertTrue(result["complete"])
        self.assertEqual(result["calls"], 7)
        self.assertEqual(result["unrecorded_calls"], 0)
        self.assertIsNone(result["limit"])

    def test_invocations(self):
        self.assertEqual(outcome_table(self.rec), {
            "loops:<module>#1": (None, [], ("ret", "None")),
            "loops:main#1": ("loops:<module>#1", [], ("ret", "None")),
            "loops:nested#1": ("loops:main#1", [("n", "3")], ("ret", "1")),
            "loops:early#1": ("loops:main#1", [("xs", "[5, 7, 9]"), ("target", "7")], ("ret", "1")),
            "loops:early#2": ("loops:main#1", [("xs", "[5]"), ("target", "1")], ("ret", "-1")),
            "loops:skipping#1": ("loops:main#1", [("xs", "[1, 2, 3, 4, 8, 10]")], ("ret", "[2, 4]")),
            "loops:countdown#1": ("loops:main#1", [("n", "2")], ("ret", "0")),
        })

    def test_order_and_call_lines(self):
        self.assertEqual([(i.idx, i.fid, i.call_line) for i in self.rec.order], [
            (0, "loops:<module>#1", 0), (1, "loops:main#1", 42), (2, "loops:nested#1", 34),
            (3, "loops:early#1", 35), (4, "loops:early#2", 36), (5, "loops:skipping#1", 37),
            (6, "loops:countdown#1", 38)])

    def test_code_records(self):
        path = self.rec.codes[self.rec.get("loops:early#1").cid][1]
        self.assertTrue(path.endswith("/fixtures/loops.py"))
        self.assertEqual(self.rec.codes[self.rec.get("loops:early#1").cid],
                         ("loops:early", path, 9, ["xs", "target"]))
        self.assertEqual(self.rec.threads, {0: "MainThread"})

    def test_fingerprints(self):
        self.assertEqual(self.rec.get("loops:nested#1").fp, "=3")
        self.assertEqual(self.rec.get("loops:main#1").fp, "=")
        fp = self.rec.get("loops:early#1").fp
        self.assertRegex(fp, r"^#[0-9a-f]{16}$")
        self.assertNotEqual(fp, self.rec.get("loops:early#2").fp)


class Exceptions(unittest.TestCase):
    def test_raised_caught_and_escaping(self):
        rec = record(script("exceptions.py"))
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(outcome_table(rec), {
            "exceptions:<module>#1": (None, [], ("ret", "None")),
            "exceptions:AppError#1": ("exceptions:<module>#1", [], ("ret", "class AppError")),
            "exceptions:main#1": ("exceptions:<module>#1", [], ("ret", "None")),
            "exceptions:caught_inside#1": ("exceptions:main#1", [("x", "0")], ("ret", "-1")),
            "exceptions:caught_inside#2": ("exceptions:main#1", [("x", "5")], ("ret", "2")),
            "exceptions:top#1": ("exceptions:main#1", [], ("ret", "['ValueError', 'AppError']")),
            "exceptions:middle#1": ("exceptions:top#1", [("kind", "'value'")],
                                    ("exc", "ValueError", "bad value 3", 20)),
            "exceptions:raiser#1": ("exceptions:middle#1", [("kind", "'value'")],
                                    ("exc", "ValueError", "bad value 3", 15)),
            "exceptions:middle#2": ("exceptions:top#1", [("kind", "'app'")],
                                    ("exc", "AppError", "custom", 20)),
            "exceptions:raiser#2": ("exceptions:middle#2", [("kind", "'app'")],
                                    ("exc", "AppError", "custom", 16)),
        })


class Recursion(unittest.TestCase):
    def test_each_level_is_its_own_fid(self):
        rec = record(script("recursion.py"))
        self.assertEqual(rec.tree("recursion:main#1"),
                         ("recursion:main#1", [("recursion:fact#1", [("recursion:fact#2", [("recursion:fact#3", [])])])]))
        self.assertEqual([(i.fid, i.args, i.outcome, i.call_line) for i in rec.order[2:]], [
            ("recursion:fact#1", [("n", "3")], ("ret", "6"), 8),
            ("recursion:fact#2", [("n", "2")], ("ret", "2"), 4),
            ("recursion:fact#3", [("n", "1")], ("ret", "1"), 4)])


class MethodsClosuresLambdas(unittest.TestCase):
    def test_names_and_callers(self):
        rec = record(script("methods.py"))
        obj = "<__main__.Counter object at 0x\u2026>"
        self.assertEqual(outcome_table(rec), {
            "methods:<module>#1": (None, [], ("ret", "None")),
            "methods:Counter#1": ("methods:<module>#1", [], ("ret", "class Counter")),
            "methods:main#1": ("methods:<module>#1", [], ("ret", "([3, 2, 1], 49)")),
            "methods:Counter.make#1": ("methods:main#1", [("cls", "<class '__main__.Counter'>"), ("start", "1")],
                                       ("ret", "Counter(value=1)")),
            "methods:Counter.__init__#1": ("methods:Counter.make#1", [("self", obj), ("start", "1")],
                                           ("ret", "None")),
            "methods:Counter.double#1": ("methods:main#1", [("x", "2")], ("ret", "4")),
            "methods:Counter.add#1": ("methods:main#1", [("self", "Counter(value=1)"), ("k", "4")], ("ret", "5")),
            "methods:make_adder#1": ("methods:main#1", [("n", "3")],
                                     ("ret", "<function make_adder.<locals>.adder at 0x\u2026>")),
            "methods:make_adder.<locals>.adder#1": ("methods:main#1", [("x", "4")], ("ret", "7")),
            "methods:main.<locals>.<lambda>#1": ("methods:main#1", [("v", "3")], ("ret", "-3")),
            "methods:main.<locals>.<lambda>#2": ("methods:main#1", [("v", "1")], ("ret", "-1")),
            "methods:main.<locals>.<lambda>#3": ("methods:main#1", [("v", "2")], ("ret", "-2")),
            "methods:main.<locals>.<lambda>#4": ("methods:main#1", [("v", "7")], ("ret", "49")),
        })


class Comprehensions(unittest.TestCase):
    def test_not_in_T_and_calls_belong_to_enclosing_frame(self):
        rec = record(script("comprehensions.py"))
        self.assertEqual(rec.fids(), ["comprehensions:<module>#1", "comprehensions:main#1"]
                         + ["comprehensions:sq#%d" % k for k in range(1, 8)])
        for k in range(1, 8):
            self.assertEqual(rec.caller_of("comprehensions:sq#%d" % k), "comprehensions:main#1")
        self.assertEqual([rec.get("comprehensions:sq#%d" % k).call_line for k in range(1, 8)],
                         [6, 6, 6, 7, 7, 8, 8])


class Generators(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rec = record(script("generators.py"))

    def test_one_fid_per_generator_with_yields_and_resumes(self):
        rec = self.rec
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.fids(), ["generators:<module>#1", "generators:main#1", "generators:numbers#1",
                                      "generators:outer#1", "generators:inner#1", "generators:thrower#1",
                                      "generators:coro#1"])
        numbers = rec.get("generators:numbers#1")
        self.assertEqual(numbers.args, [("n", "2")])
        self.assertEqual(numbers.events, [("yield", "0", 3), ("resume",), ("yield", "1", 3), ("resume",)])
        self.assertEqual(numbers.outcome, ("ret", "'done'"))

    def test_yield_from(self):
        rec = self.rec
        self.assertEqual(rec.caller_of("generators:inner#1"), "generators:outer#1")
        self.assertEqual(rec.get("generators:inner#1").events,
                         [("yield", "1", 10), ("resume",), ("yield", "2", 11), ("resume",)])
        self.assertEqual(rec.get("generators:inner#1").outcome, ("ret", "3"))
        self.assertEqual(rec.get("generators:outer#1").events,
                         [("yield", "1", 16), ("resume",), ("yield", "2", 16), ("resume",),
                          ("yield", "3", 17), ("resume",)])
        self.assertEqual(rec.get("generators:outer#1").outcome, ("ret", "None"))

    def test_throw_and_close(self):
        thrower = self.rec.get("generators:thrower#1")
        self.assertEqual(thrower.events, [("yield", "1", 22), ("resume",), ("yield", "'caught'", 24), ("resume",)])
        self.assertEqual(thrower.outcome, ("exc", "GeneratorExit", "", 24))

    def test_coroutine_driven_by_send(self):
        coro = self.rec.get("generators:coro#1")
        self.assertEqual(coro.events, [("yield", "0", 31), ("resume",), ("yield", "5", 31), ("resume",)])
        self.assertEqual(coro.outcome, ("ret", "5"))
        self.assertEqual(self.rec.get("generators:main#1").outcome,
                         ("ret", "(0, 1, [], [1, 2, 3], 'caught', 5)"))


class Coroutines(unittest.TestCase):
    @unittest.skipIf(sys.version_info < (3, 7), "the fixture uses asyncio.run (3.7+)")
    def test_asyncio(self):
        rec = record(script("async_prog.py"))
        self.assertEqual(rec.stdout, "(12, [0, 1])\n")
        table = {inv.fid: (rec.caller_of(inv.fid), inv.outcome, inv.events) for inv in rec.order}
        self.assertEqual(table["async_prog:gather_all#1"], (
            "async_prog:main#1", ("ret", "12"),
            [("yield", "None", 10), ("resume",), ("yield", "<_GatheringFuture pending>", 11), ("resume",)]))
        self.assertEqual(table["async_prog:fetch#1"],
                         ("async_prog:gather_all#1", ("ret", "2"), [("yield", "None", 5), ("resume",)]))
        # fetch(2) and fetch(3) are first run by the event loop, called from main; sys.monitoring
        # numbers them where gather_all creates them
        creator = "async_prog:gather_all#1" if rec.result["engine"] == "monitoring" else "async_prog:main#1"
        self.assertEqual(table["async_prog:fetch#2"][:2], (creator, ("ret", "4")))
        self.assertEqual(table["async_prog:agen#1"][:2], ("async_prog:consume#1", ("ret", "None")))
        self.assertEqual(len(table["async_prog:agen#1"][2]), 8)


class Threads(unittest.TestCase):
    def test_concurrent_threads_write_every_invocation_once(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("threads_busy.py"), engine=engine)
                self.assertEqual(rec.returncode, 0, rec.stderr)
                # every invocation is written once (the harness checks that idx has no gap and
                # numbers n in idx order); outcomes only name invocations that are written
                starts = {}
                for r in rec.calls_records:
                    if r[0] in ("call", "callret", "callexc"):
                        starts.setdefault(r[1], []).append(r[0])
                self.assertEqual(sorted(starts), list(range(len(starts))))
                self.assertEqual(len(starts), 2 + 4 + 4 * 3000)
                for idx, tags in starts.items():
                    # twice only when a flush in one thread raced the end in another (PROTOCOL.md)
                    if len(tags) > 1:
                        self.assertEqual(sorted(tags), ["call", "callret"], idx)
                for r in rec.calls_records:
                    if r[0] in ("ret", "exc", "yield", "resume"):
                        self.assertIn(r[1], rec.invocations)
                for inv in rec.order:
                    self.assertIsNotNone(inv.outcome, inv.fid)
                spins = [i for i in rec.order if i.func == "threads_busy:spin"]
                self.assertEqual(sorted(i.tid for i in spins), [1, 2, 3, 4])
                for inv in rec.order:
                    if inv.func == "threads_busy:leaf":
                        self.assertEqual(rec.invocations[inv.caller].tid, inv.tid)

    def test_separate_tids_and_callers(self):
        rec = record(script("threads_prog.py"))
        self.assertEqual(rec.threads, {0: "MainThread", 1: "worker-a", 2: "worker-b"})
        self.assertEqual([(i.fid, i.tid, rec.caller_of(i.fid)) for i in rec.order], [
            ("threads_prog:<module>#1", 0, None),
            ("threads_prog:main#1", 0, "threads_prog:<module>#1"),
            ("threads_prog:main.<locals>.run#1", 1, None),
            ("threads_prog:work#1", 1, "threads_prog:main.<locals>.run#1"),
            ("threads_prog:step#1", 1, "threads_prog:work#1"),
            ("threads_prog:main.<locals>.run#2", 2, None),
            ("threads_prog:work#2", 2, "threads_prog:main.<locals>.run#2"),
            ("threads_prog:step#2", 2, "threads_prog:work#2"),
            ("threads_prog:step#3", 0, "threads_prog:main#1"),
        ])
        self.assertEqual(rec.get("threads_prog:work#2").outcome, ("ret", "21"))


if __name__ == "__main__":
    unittest.main()


class Light(unittest.TestCase):
    def test_values_only_for_named_functions(self):
        from .harness import record, script
        full = record(script("methods.py"))
        rec = record(script("methods.py"), light=True, trace=[{"func": "methods:main.<locals>.<lambda>", "index": 2}])
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual([i.fid for i in rec.order], [i.fid for i in full.order], "the same T")
        self.assertEqual([i.caller for i in rec.order], [i.caller for i in full.order], "the same callers")
        for inv, ref in zip(rec.order, full.order):
            if inv.fid.startswith("methods:main.<locals>.<lambda>#"):
                self.assertEqual(inv.args, ref.args, inv.fid)
            else:
                self.assertEqual(inv.args, [], inv.fid)
            # a light run's T is only compared with the recording: it writes no call lines
            self.assertEqual(inv.call_line, 0, inv.fid)
        self.assertTrue(any(i.call_line > 0 for i in full.order))
        self.assertEqual(rec.steps("methods:main.<locals>.<lambda>#2"), record(
            script("methods.py"), trace=[{"func": "methods:main.<locals>.<lambda>", "index": 2}]).steps("methods:main.<locals>.<lambda>#2"))


class LightHook(unittest.TestCase):
    """A light run's call hook (``call_light``) takes the common call itself: its T has the same
    invocations, callers and endings as a full run's on programs with generators, coroutines,
    exceptions, threads, recursion, methods and classes."""

    def test_same_calls_as_a_full_run(self):
        from .harness import record, script
        for name in ("generators.py", "async_prog.py", "exceptions.py", "threads_prog.py", "recursion.py",
                     "methods.py", "truth.py", "comprehensions.py", "import_work.py"):
            with self.subTest(name):
                if name == "async_prog.py" and sys.version_info < (3, 7):
                    continue  # (the fixture uses asyncio.run, 3.7+)
                full = record(script(name))
                light = record(script(name), light=True)
                self.assertEqual(light.returncode, full.returncode, light.stderr)
                self.assertEqual(light.stdout, full.stdout)
                self.assertGreater(len(full.order), 3)
                self.assertEqual([i.fid for i in light.order], [i.fid for i in full.order])
                self.assertEqual([i.caller for i in light.order], [i.caller for i in full.order])
                self.assertEqual([i.outcome[0] for i in light.order], [i.outcome[0] for i in full.order])
                self.assertEqual([len(i.events) for i in light.order], [len(i.events) for i in full.order])
                for inv in light.order:
                    # a light run's T is only compared with the recording: no values, no call lines
                    self.assertEqual((inv.args, inv.call_line), ([], 0), inv.fid)


class OnlyFunctions(unittest.TestCase):
    """Config "only" (a re-run that records some functions): their invocations and module
    bodies are recorded, numbered as in a run that records everything; one whose nearest user
    caller is a function not recorded gets a "gap" record, and a stepped invocation that calls
    such a function a "stray" record. sys.monitoring records every function (it ignores "only")."""

    def test_only(self):
        from .harness import record, script
        for engine in (None, "profile"):
            with self.subTest(engine=engine):
                full = record(script("only_prog.py"), engine=engine)
                rec = record(script("only_prog.py"), engine=engine, light=True,
                             only=["only_prog:work", "only_prog:leaf"])
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(rec.stdout, full.stdout)
                self.assertEqual(rec.stdout, "10 6\n")
                monitoring = rec.result["engine"] == "monitoring"
                if monitoring:
                    self.assertEqual(rec.fids(), full.fids())
                    self.assertEqual(rec.gaps, [])
                    continue
                self.assertEqual(rec.fids(), [f for f in full.fids() if "helper" not in f])
                self.assertEqual(rec.fids(), ["only_prog:<module>#1", "only_prog:work#1", "only_prog:leaf#1",
                                              "only_prog:leaf#2", "only_prog:leaf#3", "only_prog:leaf#4",
                                              "only_prog:work#2", "only_prog:leaf#5", "only_prog:leaf#6",
                                              "only_prog:leaf#7"])
                self.assertEqual(rec.caller_of("only_prog:leaf#4"), "only_prog:work#1")
                self.assertEqual(sorted(rec.fid(i) for i in rec.gaps), ["only_prog:leaf#4", "only_prog:leaf#7"])
                self.assertEqual(rec.strays, [])
                # an expected invocation called through a function not recorded is not the one
                # expected, though its recorded callers are
                exp = record(script("only_prog.py"), engine=engine, light=True,
                             only=["only_prog:work", "only_prog:leaf"],
                             trace=[{"func": "only_prog:leaf", "index": 4}],
                             expect=[{"func": "only_prog:leaf", "index": 4,
                                      "chain": ["only_prog:<module>#1", "only_prog:work#1"], "args_fp": "~bare"}])
                self.assertEqual(exp.result["divergence"]["actual"],
                                 "callers only_prog:<module>#1 > only_prog:work#1 > (a function not recorded), args =3")
                self.assertNotIn(exp.get("only_prog:leaf#4").idx, exp.flts)
                stepped = record(script("only_prog.py"), engine=engine, light=True,
                                 only=["only_prog:work", "only_prog:leaf"],
                                 trace=[{"func": "only_prog:work", "index": 2}])
                self.assertEqual([(stepped.fid(i), f) for i, f in stepped.strays],
                                 [("only_prog:work#2", "only_prog:helper")])
                # its steps name leaf#7, which helper called: the stray record is what tells the
                # bridge that this FLT hides a call, so that it refuses it
                self.assertEqual([s[3] for s in stepped.steps("only_prog:work#2") if s[3]],
                                 [["only_prog:leaf#5"], ["only_prog:leaf#6"], ["only_prog:leaf#7"]])

    def test_only_config(self):
        from .harness import record, script
        rec = record(script("only_prog.py"), only="only_prog:work")
        self.assertEqual(rec.returncode, 2)
        self.assertIn("'only' must be a list of function names or null", rec.stderr)


class BareCalls(unittest.TestCase):
    """A first run's bare calls (config bare_after): past the first calls, a plain call deeper than
    bare_depth whose caller is not stepped is recorded without values, fingerprint or caller line,
    and the rest as before; a light run's values_of records the values of the invocations it names.
    The fixture makes 6,002 calls: main → deep(3) → deep(2) → deep(1) → deep(0) → mid → leaf ×5."""

    def test_bare_calls(self):
        for engine in (None, "profile"):
            with self.subTest(engine=engine):
                self.check_bare_calls(engine)

    def check_bare_calls(self, engine):
        from .harness import record, script
        full = record(script("bare_prog.py"), engine=engine)
        bare = record(script("bare_prog.py"), engine=engine, bare_after=3000, bare_depth=3,
                      trace=[{"func": "bare_prog:mid", "index": 500}])
        self.assertEqual(bare.returncode, 0, bare.stderr)
        self.assertEqual(bare.stdout, full.stdout)
        self.assertEqual(bare.stdout, "600 {'n': 5, 'total': 10}\n")
        self.assertEqual(bare.fids(), full.fids())
        self.assertEqual([i.caller for i in bare.order], [i.caller for i in full.order])
        # bare calls start after the batch that ends past 3,000 calls (idx 4095); mid is watched
        # (a trace selector names it), so its calls keep their values, and mid#500 is stepped
        nbare = 0
        for f, b in zip(full.order, bare.order):
            depth = 0
            c = b.caller
            while c >= 0:
                depth += 1
                c = bare.order[c].caller
            stepped_caller = b.caller >= 0 and bare.order[b.caller].fid == "bare_prog:mid#500"
            if b.idx > 4095 and depth > 3 and not stepped_caller and b.func != "bare_prog:mid":
                nbare += 1
                self.assertEqual((b.fp, b.call_line), ("~bare", 0), b.fid)
                self.assertEqual([v for _, v in b.args], ["\x01"] * len(b.args), b.fid)
                self.assertEqual(b.outcome, ("ret", "\x01"), b.fid)
            else:
                self.assertEqual((b.args, b.fp, b.call_line, b.outcome), (f.args, f.fp, f.call_line, f.outcome), b.fid)
        # leaf#2046-2050 in iteration 410; then deep(1), deep(0) and five leaves in each of the
        # last 190 iterations, except mid#500's leaves
        self.assertEqual(nbare, 5 + 190 * 7 - 5)
        # each written as a short "bare" record: idx, cid, caller, tid and the value
        self.assertEqual(sum(1 for r in bare.calls_records if r[0] == "bare"), nbare)
        self.assertEqual([len(r) for r in bare.calls_records if r[0] == "bare"][:1], [6])
        self.assertEqual(bare.get("bare_prog:deep#1643").fp, "~bare")
        self.assertEqual(bare.get("bare_prog:deep#1642").fp, "=2, 5")
        self.assertEqual(bare.get("bare_prog:leaf#2500").args, [("x", "4")])

    def test_yields_once_bare(self):
        """Once bare calls have started, T keeps how often a generator suspended but not what it
        yielded, which its FLT shows."""
        from .harness import record, script
        rec = record(script("bare_gen.py"), bare_after=100, bare_depth=3)
        self.assertEqual(rec.returncode, 0, rec.stderr)
        self.assertEqual(rec.stdout, "30\n")
        self.assertEqual(rec.get("bare_gen:count#1").events,
                         [("yield", None, 3), ("resume",)] * 3)
        stepped = record(script("bare_gen.py"), bare_after=100, bare_depth=3,
                         trace=[{"func": "bare_gen:count", "index": 1}])
        self.assertEqual(stepped.get("bare_gen:count#1").events,
                         [("yield", "0", 3), ("resume",), ("yield", "10", 3), ("resume",),
                          ("yield", "20", 3), ("resume",)])
        self.assertEqual([s[5] for s in stepped.steps("bare_gen:count#1") if s[0] == 3],
                         [{"yield": "0"}, {"resume": True}, {"yield": "10"}, {"resume": True},
                          {"yield": "20"}, {"resume": True}])

    def test_values_of(self):
        from .harness import record, script
        full = record(script("bare_prog.py"))
        light = record(script("bare_prog.py"), light=True,
                       values_of=[{"func": "bare_prog:mid", "index": 600}, {"func": "bare_prog:leaf", "index": 3}])
        self.assertEqual(light.returncode, 0, light.stderr)
        for inv in light.order:
            if inv.fid in ("bare_prog:mid#600", "bare_prog:leaf#3"):
                f = full.get(inv.fid)
                self.assertEqual((inv.args, inv.fp, inv.call_line, inv.outcome), (f.args, f.fp, f.call_line, f.outcome))
                self.assertNotEqual(inv.call_line, 0)
            else:
                self.assertEqual((inv.args, inv.call_line), ([], 0), inv.fid)


class CallerLines(unittest.TestCase):
    """A caller's line at a call (recorder._Lines) is the line the interpreter gives the
    instruction at that offset, for every instruction of big and small code objects."""

    def test_every_offset(self):
        import dis
        import os
        import sys
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        from adi_probe import recorder
        path = recorder.__file__
        with open(path) as f:
            module = compile(f.read(), path, "exec")
        codes, stack = [], [module]
        while stack:
            code = stack.pop()
            codes.append(code)
            stack.extend(c for c in code.co_consts if hasattr(c, "co_code"))
        self.assertGreater(len(codes), 100)
        checked = 0
        for code in codes:
            lines = recorder._Lines(code)
            want, line = {}, 0
            for ins in dis.get_instructions(code):
                if hasattr(ins, "positions"):  # 3.11+: the line of each instruction
                    line = ins.positions.lineno or 0
                elif ins.starts_line:  # before: the line of the instruction that starts it
                    line = ins.starts_line
                want[ins.offset] = line
            if sys.version_info[:2] == (3, 10):  # (dis carries a line over a span without one)
                for start, end, ln in code.co_lines():
                    if ln is None:
                        want.update((off, 0) for off in range(start, end, 2) if off in want)
            for offset, line in want.items():
                self.assertEqual(lines[offset], line, "%s at offset %d" % (code.co_name, offset))
                checked += 1
        self.assertGreater(checked, 5000)
