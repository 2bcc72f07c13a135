import unittest

from cart import discount


class DiscountTest(unittest.TestCase):
    def test_save10(self):
        got = discount(50.0, "SAVE10")
        self.assertEqual(got, 5.0)


if __name__ == "__main__":
    unittest.main()
