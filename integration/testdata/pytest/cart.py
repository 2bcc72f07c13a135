"""A shopping cart total: items of 10 or more should get the bulk rate, but the check is > 10."""


def line_total(qty, price, rate):
    if qty > 10:
        return qty * price * (1 - rate)
    return qty * price


def total(items, rate):
    s = 0.0
    for qty, price in items:
        s += line_total(qty, price, rate)
    return s
