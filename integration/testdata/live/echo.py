import sys

for i in range(20):
    print("line", i)
    print("err", i, file=sys.stderr)
    x = i
print("done")
