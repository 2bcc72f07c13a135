"""A program that draws from random's unseeded generator."""
import random


def busy():
    total = 0
    for i in range(12500):
        total += i
    return total


def pick(n):
    return n % 1000


def work(i):
    doubled = i * 2
    return doubled + 1


busy()
print(pick(random.randint(0, 10 ** 9)))
for i in range(3):
    print(work(i))
