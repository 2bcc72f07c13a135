"""A shop's checkout with a bug: the SAVE10 code takes 10 times the total off, not 10%."""

TAX = 0.2


def parse(line):
    name, qty, price = line.split(",")
    return {"name": name.strip(), "qty": int(qty), "price": float(price)}


def subtotal(items):
    total = 0
    for item in items:
        total += item["qty"] * item["price"]
    return total


def discount(total, code):
    rate = {"SAVE10": 10, "SAVE20": 0.2}.get(code, 0)
    return total * rate


def checkout(lines, code):
    items = [parse(line) for line in lines]
    total = subtotal(items)
    cut = discount(total, code)
    return round((total - cut) * (1 + TAX), 2)
