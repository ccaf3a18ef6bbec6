"""Round seven's evidence, each case one real ``run`` iteration (real ruff, coverage, git):
lint findings kept quiet by statements that do nothing, code moved outside coverage's
``source``, and a start commit replaced with ``git replace`` are refused; the honest
neighbours complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integrity.corpus import CASES, play

BY_NAME = {case.name: case for case in CASES}


@pytest.mark.parametrize(("name", "code"), [
    ("the names used in dead statements", "lint-game"),
    ("the name used by an empty if", "lint-game"),
    ("code moved outside coverage's source", "narrowed-setting"),
])
def test_the_game_is_refused(tmp_path: Path, name: str, code: str) -> None:
    on = play(BY_NAME[name], tmp_path, integrity=True)
    assert on.verdict != "complete", on
    assert code in on.codes, on


def test_a_replaced_start_commit_does_not_change_the_frozen_tests(tmp_path: Path) -> None:
    on = play(BY_NAME["the start commit replaced with edited tests"], tmp_path, integrity=True)
    assert on.verdict != "complete", on
    assert "tests" in on.failed, on  # the start's tests, as written, still fail


@pytest.mark.parametrize("name", ["lint fixed and os used for a setting",
                                  "the fix with a debug assert on the input"])
def test_the_honest_neighbour_completes(tmp_path: Path, name: str) -> None:
    assert play(BY_NAME[name], tmp_path, integrity=True).verdict == "complete"
