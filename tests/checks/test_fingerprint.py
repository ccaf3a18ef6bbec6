"""Fingerprints fold what varies between runs and keep what identifies the problem."""

from __future__ import annotations

import pytest

from ralph_verify.checks.fingerprint import fingerprint, normalise


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("assert 3 == 4", "assert 10 == 12"),
        ("object at 0x7f3a2b1c9d00", "object at 0x55d0c0ffee00"),
        ("failed at 2026-11-21T23:57:56.123Z", "failed at 2025-01-02 03:04:05"),
        ("in /tmp/pytest-of-root/pytest-12/test_a0/x.py", "in /tmp/pytest-of-bob/pytest-3/b/y.py"),
        ("took 12:01:02", "took 00:00:09"),
        ("id 123e4567-e89b-12d3-a456-426614174000", "id 00000000-1111-2222-3333-444444444444"),
        ("commit deadbeef12", "commit 0123abcd99"),
        ("No module named 'src/pkg/mod.py'", "No module named 'lib/other/thing.py'"),
    ],
)
def test_varying_parts_are_normalised(a: str, b: str) -> None:
    assert normalise(a) == normalise(b)
    assert fingerprint("tests", a) == fingerprint("tests", b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("assert 3 == 4", "assert 3 != 4"),
        ("NameError: name 'x' is not defined", "NameError: name 'y' is not defined"),
        ("E501 line too long", "F401 unused import"),
    ],
)
def test_different_problems_differ(a: str, b: str) -> None:
    assert fingerprint("tests", a) != fingerprint("tests", b)


def test_check_name_and_code_take_part() -> None:
    assert fingerprint("lint", "x") != fingerprint("types", "x")
    assert fingerprint("lint", "x", "E501") != fingerprint("lint", "x", "F401")


def test_identifiers_with_digits_are_kept() -> None:
    assert normalise("utf8 codec and sha256") == "utf8 codec and sha256"


def test_a_fingerprinted_failure_is_the_failure_replace_gives() -> None:
    from dataclasses import dataclass, replace

    from ralph_verify.checks.api import CheckResult, Failure, Status

    @dataclass(frozen=True)
    class Noted(Failure):
        note: str = ""

        def __post_init__(self) -> None:
            object.__setattr__(self, "note", f"seen {self.fingerprint}")

    plain = Failure("E1 bad", location="a.py:1", code="E1", path="a.py", line=1, source="x")
    noted = Noted("E2 worse", code="E2")
    result = CheckResult("lint", "lint", Status.FAILED, "2 errors", failures=[plain, noted])
    first, second = result.failures
    assert first == replace(plain, fingerprint=first.fingerprint) and first.fingerprint
    assert first.source == "x" and plain.fingerprint == ""  # a copy: the original unchanged
    assert type(second) is Noted and second.note == f"seen {second.fingerprint}"


def test_a_rule_skipped_for_what_its_pattern_needs_would_have_changed_nothing() -> None:
    # normalise() skips a pattern when the text lacks what it cannot match without; every
    # pattern applied always gives the same text, on messages built from the parts that
    # matter (digits ASCII and not, separators, hex, temp folders, addresses).
    import random

    from ralph_verify.checks import fingerprint as module

    def every_rule(message: str) -> str:
        text = message[:module.MAX_CHARS]
        for pattern, replacement, _ in module._RULES:
            text = pattern.sub(replacement, text)
        return module._SPACE.sub(" ", text).strip()

    parts = ["1", "42", "2026-11-27", "12:30:05", "T", " ", "-", ":", ".", ",", "/", "\\",
             "0x", "deadbeef", "c0ffee42", "1e5", "+", "/tmp/x", "C:\\Temp\\y", "pytest-of-u",
             "a", "Z", "\u0663", "\u0661\u0662", "_", "'", ")", "src/app.py", "\n",
             "123e4567-e89b-12d3-a456-426614174000", "x", "F401", "line", "é"]
    rng = random.Random(24)
    messages = ["".join(rng.choice(parts) for _ in range(rng.randint(0, 14)))
                for _ in range(20_000)]
    assert [module.normalise(m) for m in messages] == [every_rule(m) for m in messages]
    assert sum(module.normalise(m) != m for m in messages) > 10_000  # the rules did work
