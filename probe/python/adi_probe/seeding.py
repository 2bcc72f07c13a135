"""Reproducible randomness: the same numbers from ``random``'s unseeded generators in every run.

A re-run records the FLT of an invocation the first run saw, so it must make the same calls;
a program that draws from an unseeded generator (``random.random()``, ``random.Random()``:
seeded from ``os.urandom``; sympy's polynomial factoring draws evaluation points this way)
does not. With a config ``seed`` (the bridge gives every run of a session the same one, unless
the session opts out), ``seed(n)`` seeds ``random``'s module generator with `n`, and every
generator seeded without a value (``random.Random()``, ``random.seed()``) gets the next of a
sequence of seeds derived from `n`, in the order the program asks for them. Generators the
program seeds itself are untouched, and so is ``random.SystemRandom`` (which has no state).
"""

import itertools


def seed(n):
    """Seed ``random`` and make its unseeded generators reproducible (see the module docstring)."""
    import random

    cls = random.Random
    original = cls.seed
    if getattr(original, "_adi_seeded", False):
        return
    counter = itertools.count(1)

    def seeded(self, a=None, version=2):
        if a is None:
            a = n * 1000003 + next(counter)
        return original(self, a, version)

    seeded._adi_seeded = True
    seeded.__doc__ = original.__doc__
    seeded.__name__ = original.__name__
    seeded.__qualname__ = original.__qualname__
    cls.seed = seeded
    random.seed(n)
