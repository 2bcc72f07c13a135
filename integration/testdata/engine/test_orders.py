import orders


def test_invoice_total():
    assert orders.invoice(orders.ORDER, orders.RULES) == 26.0
