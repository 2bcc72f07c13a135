"""Prices an order. The total is wrong by a few euros and nothing fails: a silent bug in nested calls.

Expected: 12 apples at 0.50 with 10% off for 10 or more (5.40), 3 pears at 1.20 (3.60) and
10 melons at 2.00 with 15% off (17.00): 26.00. The program prints 29.00.
"""

BULK_QUANTITY = 10


def parse_line(line):
    name, qty, price = line.split(",")
    return {"name": name.strip(), "qty": int(qty), "price": float(price)}


def bulk_rate(qty, rate):
    if qty > BULK_QUANTITY:
        return rate
    return 0.0


def line_total(item, rules):
    rate = bulk_rate(item["qty"], rules.get(item["name"], 0.0))
    subtotal = item["qty"] * item["price"]
    discount = subtotal * rate
    return round(subtotal - discount, 2)


def price_items(items, rules):
    totals = []
    for item in items:
        totals.append(line_total(item, rules))
    return totals


def invoice(lines, rules):
    items = [parse_line(line) for line in lines]
    totals = price_items(items, rules)
    return round(sum(totals), 2)


ORDER = ["apple, 12, 0.50", "pear, 3, 1.20", "melon, 10, 2.00"]
RULES = {"apple": 0.10, "melon": 0.15}

if __name__ == "__main__":
    print("total:", invoice(ORDER, RULES))
