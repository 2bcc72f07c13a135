"""A program that fails: docs/agents.md shows adi's answer on it (exit code 1, answer still valid)."""


def check(total):
    assert total == 26.0, total


check(29.0)
