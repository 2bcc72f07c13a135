"""Pairs of classes ordered by hash(): an order that follows memory addresses."""


class A:
    pass


class B:
    pass


class C:
    pass


def busy():
    total = 0
    for i in range(12500):
        total += i
    return total


def ambiguous(a, b):
    return a is not b


def work(i):
    doubled = i * 2
    return doubled + 1


busy()
sigs = [(A, B, C), (B, C, A), (C, A, B)]
pairs = [(a, b) for a in sigs for b in sigs if hash(a) < hash(b) and ambiguous(a, b)]
for i in range(3):
    print(work(i))
