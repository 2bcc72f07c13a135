"""Issue 13 ("FLT truth"): a one-line loop, a raise inside try/finally, generators closed by
close(), garbage collection and the interpreter's exit, a property's accessors, and writes
through a ``global`` statement."""

COUNTER = 3


def add_all(seen):
    total = 0
    for y in seen: total += y
    return total


def risky(x):
    try:
        y = 10 // x
    finally:
        x = -1


def gen():
    try:
        yield 1
        yield 2
    finally:
        done = True


class Account:
    def __init__(self, balance):
        self.balance = balance

    @property
    def doubled(self):
        return self.balance * 2

    @doubled.setter
    def doubled(self, value):
        self.balance = value // 2

    @doubled.deleter
    def doubled(self):
        self.balance = 0


def bump(k):
    global COUNTER, FRESH
    COUNTER += k
    FRESH = k
    del FRESH
    return COUNTER


def main():
    add_all([5, 6])
    try:
        risky(0)
    except ZeroDivisionError:
        pass
    g = gen()
    next(g)
    g.close()
    h = gen()
    next(h)
    del h
    k = gen()
    next(k)
    a = Account(3)
    a.doubled = 10
    a.doubled
    del a.doubled
    bump(2)
    return k


kept = main()
