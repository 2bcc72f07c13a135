"""A program whose later frames need a re-run, with an argument derived from an address."""


def busy():
    total = 0
    for i in range(12500):
        total += i
    return total


def forget(key):
    return key % 7 >= 0


def work(i):
    doubled = i * 2
    return doubled + 1


busy()
forget(id(object()))
for i in range(3):
    print(work(i))
