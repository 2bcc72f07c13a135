"""python -m adi_bridge ARGS: runs adi ARGS, with the same arguments and exit status."""

import os
import sys

from . import find_adi_bin


def main():
    try:
        adi = find_adi_bin()
    except FileNotFoundError as e:
        print("adi: %s" % e, file=sys.stderr)
        return 1
    argv = [adi] + sys.argv[1:]
    if os.name == "posix":
        os.execv(adi, argv)  # this process becomes adi: its stdio, signals and exit status
    import subprocess

    return subprocess.call(argv)


if __name__ == "__main__":
    sys.exit(main())
