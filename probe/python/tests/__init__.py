"""Tests of adi's probe. Run them from the repository root with

    python3 -m unittest discover -s probe/python/tests -t probe/python

(any CPython 3.8-3.13; the pytest test runs only with /usr/bin/python3, which has pytest).
Each test runs the probe as a subprocess on a program in tests/fixtures and checks what it
wrote: calls.bin, flt.bin and result.json (see probe/PROTOCOL.md).
"""
