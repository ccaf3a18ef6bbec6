from durations import format_seconds


def test_hours_and_minutes():
    assert format_seconds(5400) == "1h30m"


def test_seconds():
    assert format_seconds(45) == "45s"
