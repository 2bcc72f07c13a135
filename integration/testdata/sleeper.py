import time

time.sleep(120)
