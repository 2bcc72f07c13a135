def parse(s):
    return int(s)


def main():
    values = [parse(x) for x in ["1", "2", "x"]]
    print(values)


main()
