"""A program whose work#2 calls one more function in every run after the first (a file it
leaves behind says it ran before)."""
import os


def busy():
    total = 0
    for i in range(12500):
        total += i
    return total


def extra():
    return 0


def work(i):
    doubled = i * 2
    if i == 1 and os.path.exists("ran.txt"):
        doubled += extra()
    return doubled + 1


busy()
for i in range(3):
    print(work(i))
open("ran.txt", "w").close()
