import itertools


class Plain:
    def __init__(self):
        self.items = [1]
        self.count = 0


def changes():
    l300 = list(range(300))
    l300[-1] = -1
    buf = bytearray(20)
    buf[5] = 1
    c = itertools.count()
    next(c)
    p = Plain()
    p.items.append(2)
    p.count += 1
    y = [1]
    y = [1]
    return len(l300)


changes()


def branches(x):
    if x > 1:
        x = 1
    elif x > 0:
        x = 0
    while x < 2:
        x += 1
    assert x == 2
    return x


branches(0)
