name = input()
print("hello", name)
