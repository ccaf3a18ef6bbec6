import math
import unittest

from shapes import Circle


class TestCircle(unittest.TestCase):
    def setUp(self):
        self.circle = Circle(2)

    def test_area(self):
        self.assertAlmostEqual(self.circle.area(), 4 * math.pi)

    def test_perimeter(self):
        self.assertAlmostEqual(self.circle.perimeter(), 4 * math.pi)

    def test_radius_must_be_positive(self):
        self.assertRaises(ValueError, Circle, 0)


if __name__ == "__main__":
    unittest.main()
