"""Roman numerals, both ways: the kata the agent solves."""


def to_roman(number: int) -> str:
    """``1994`` -> ``"MCMXCIV"``, for 1 to 3999; ``ValueError`` outside that range."""
    raise NotImplementedError


def from_roman(numeral: str) -> int:
    """``"MCMXCIV"`` -> ``1994``; ``ValueError`` for anything that is not a canonical numeral."""
    raise NotImplementedError
