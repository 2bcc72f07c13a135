from cart import checkout


def test_checkout_save10():
    assert checkout(["apple, 2, 1.50", "pear, 1, 2.00"], "SAVE10") == 5.4
