import pytest

from roman import from_roman, to_roman


def test_single_symbols():
    assert [to_roman(n) for n in (1, 5, 10, 50, 100, 500, 1000)] == list("IVXLCDM")


def test_additive():
    assert to_roman(3) == "III"
    assert to_roman(8) == "VIII"
    assert to_roman(2023) == "MMXXIII"


def test_subtractive():
    assert to_roman(4) == "IV"
    assert to_roman(9) == "IX"
    assert to_roman(1994) == "MCMXCIV"


@pytest.mark.parametrize("number", [0, -1, 4000])
def test_out_of_range(number):
    with pytest.raises(ValueError):
        to_roman(number)


def test_from_roman():
    assert from_roman("XIV") == 14
    assert from_roman("MCMXCIV") == 1994


@pytest.mark.parametrize("numeral", ["", "IIII", "IC", "ABC", "mcm"])
def test_not_a_numeral(numeral):
    with pytest.raises(ValueError):
        from_roman(numeral)


def test_round_trip():
    assert all(from_roman(to_roman(n)) == n for n in range(1, 4000))
