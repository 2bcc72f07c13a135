def divide(a, b):
    return a / b


def main():
    values = [4, 2, 0]
    out = []
    for v in values:
        out.append(divide(12, v))
    print(out)


print("starting")
main()
