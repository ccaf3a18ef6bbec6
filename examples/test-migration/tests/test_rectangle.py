import unittest

from shapes import Rectangle, Square


class TestRectangle(unittest.TestCase):
    def setUp(self):
        self.rectangle = Rectangle(3, 4)

    def test_area(self):
        self.assertEqual(self.rectangle.area(), 12)

    def test_perimeter(self):
        self.assertEqual(self.rectangle.perimeter(), 14)

    def test_sides_must_be_positive(self):
        with self.assertRaises(ValueError):
            Rectangle(-1, 2)


class TestSquare(unittest.TestCase):
    def test_area(self):
        self.assertEqual(Square(5).area(), 25)

    def test_is_a_rectangle(self):
        self.assertIsInstance(Square(2), Rectangle)


if __name__ == "__main__":
    unittest.main()
