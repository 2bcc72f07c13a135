"""T does not render the values of invocations made during an import (recorder.UNRENDERED); an
FLT renders its frame's in full."""

import unittest

from .harness import ENGINES, record, script

U = "\x00"  # the reader shows it as "<not rendered: during an import>"


class DuringAnImport(unittest.TestCase):
    def test_values_not_rendered_during_an_import(self):
        for engine in ENGINES:
            with self.subTest(engine=engine):
                rec = record(script("import_values.py"), engine=engine,
                             trace=[{"func": "import_values_mod:grow", "index": 1}])
                self.assertEqual(rec.returncode, 0, rec.stderr)
                self.assertEqual(rec.stdout, "7\n")
                got = {i.fid: (i.args, i.fp, i.outcome) for i in rec.order}
                # during the import: objects and several arguments are not rendered, a single
                # int argument and int results stay exact; the fingerprint says "~import"
                self.assertEqual(got["import_values_mod:Box.__init__#1"],
                                 ([("self", U), ("v", U)], "~import", ("ret", "None")))
                self.assertEqual(got["import_values_mod:grow#1"],
                                 ([("box", U), ("k", U)], "~import", ("ret", U)))
                self.assertEqual(got["import_values_mod:double#1"], ([("i", "1")], "=1", ("ret", "2")))
                # after it: rendered as usual
                self.assertEqual(got["import_values_mod:double#2"], ([("i", "2")], "=2", ("ret", "4")))
                args, fp, outcome = got["import_values_mod:grow#2"]
                self.assertEqual(args, [("box", "Box(v=3)"), ("k", "4")])
                self.assertRegex(fp, r"^#[0-9a-f]{16}$")
                self.assertEqual(outcome, ("ret", "Box(v=7)"))
                # the FLT of an invocation during the import renders its values in full
                flt = rec.flts[rec.get("import_values_mod:grow#1").idx]
                self.assertEqual(flt["args"], ["Box(v=1)", 2])
                self.assertEqual(flt["end"], ["return", 0])
                self.assertEqual(flt["returned"], "Box(v=3)")


if __name__ == "__main__":
    unittest.main()
