from durations import parse


def test_minutes():
    assert parse("90m") == 5400


def test_seconds():
    assert parse("45s") == 45


def test_hours():
    assert parse("2h") == 7200
