print("spinning")
while True: pass
