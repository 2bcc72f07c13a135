import pytest

import cart


def test_total():
    assert cart.total([(10, 2.0), (3, 3.0)], 0.1) == 27.0


class TestLine:
    @pytest.mark.parametrize("qty,price", [(1, 2.0), (20, 1.0)])
    def test_line(self, qty, price):
        assert cart.line_total(qty, price, 0.0) == qty * price
