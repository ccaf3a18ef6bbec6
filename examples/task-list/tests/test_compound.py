from durations import format_seconds, parse


def test_compound():
    assert parse("1h30m") == 5400


def test_round_trip():
    assert parse(format_seconds(5445)) == 5445
