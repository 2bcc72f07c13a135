import sys


def greet(name, times=2):
    msg = ("hi " + name) * times
    return msg


if __name__ == "__main__":
    out = greet("ada", times=3)
    print(out)
    sys.exit(3)
