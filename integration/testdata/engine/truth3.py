def counter(n):
    for i in range(n):
        yield i


def gens():
    a = counter(2)
    b = counter(3)
    total = sum(b) + sum(a)
    never = counter(4)
    return total


print(gens())
