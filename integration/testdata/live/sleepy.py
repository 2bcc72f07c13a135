import time

print("sleeping")
time.sleep(600)
