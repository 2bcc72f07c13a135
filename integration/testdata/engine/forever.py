def spin(n):
    while True:
        n += 1


def main():
    print("spinning", flush=True)
    spin(0)


main()
