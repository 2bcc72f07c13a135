import sys


def down(n):
    return down(n + 1)


def depth():
    try:
        down(0)
    except RecursionError as exc:
        return str(exc)


def reached():
    frames = [0]

    def count(k):
        frames[0] = k
        count(k + 1)

    try:
        count(1)
    except RecursionError:
        pass
    return frames[0]


def after(x):
    return x * 2


def main():
    message = depth()
    print(message, reached(), after(21), sys.getrecursionlimit())


main()
