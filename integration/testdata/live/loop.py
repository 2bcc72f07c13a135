total = 0
for i in range(10 ** 9):
    total += i
