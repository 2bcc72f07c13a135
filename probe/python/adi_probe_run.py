"""Entry script of adi's probe: ``python adi_probe_run.py CONFIG.json``.

It takes its own directory off the front of ``sys.path`` (the target must see the path
``python <target>`` would give it), appends it at the end so ``import adi_probe`` works (also
for debugger conditions and evaluate), and runs ``adi_probe.main``.
"""

import os
import sys


def _main():
    here = os.path.dirname(os.path.realpath(__file__))
    if sys.path and sys.path[0] and os.path.realpath(sys.path[0]) == here:
        del sys.path[0]
    if here not in sys.path:
        sys.path.append(here)
    if len(sys.argv) != 2:
        sys.stderr.write("adi: usage: %s CONFIG.json\n" % os.path.basename(sys.argv[0]))
        return 2
    import adi_probe
    return adi_probe.main(sys.argv[1])


if __name__ == "__main__":
    sys.exit(_main())
