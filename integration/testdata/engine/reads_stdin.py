import sys


def total(lines):
    return sum(int(x) for x in lines)


def main():
    data = sys.stdin.read().split()
    print("got", len(data), "numbers; total", total(data))


main()
