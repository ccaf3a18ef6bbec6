import pytest

from mixed.calc import add, div, mul, sub


def test_add() -> None:
    assert add(2, 3) == 5


def test_sub() -> None:
    assert sub(5, 3) == 2


def test_mul() -> None:
    assert mul(2, 3) == 6


@pytest.mark.parametrize("a,b,expected", [(6, 3, 2.0), (1, 4, 0.25)])
def test_div(a: int, b: int, expected: float) -> None:
    assert div(a, b) == expected
