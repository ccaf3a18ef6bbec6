"""Durations as people write them: 90m, 45s, 2h, 1h30m."""


def parse(text: str) -> int:
    """Seconds in ``text``."""
    raise NotImplementedError


def format_seconds(seconds: int) -> str:
    """``5400`` -> ``1h30m``."""
    raise NotImplementedError
