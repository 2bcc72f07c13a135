import time


def hour():
    return time.localtime().tm_hour


def greeting():
    h = hour()
    if h < 12:
        return "good morning"
    return "good evening"
