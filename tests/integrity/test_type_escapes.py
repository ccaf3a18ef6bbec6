"""Type escapes judged by mypy's own line precision (the ``type-escape`` rule), each case one
real ``run`` iteration with real mypy: code taken out of mypy's sight is refused whatever its
spelling, typed code added honestly completes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integrity.corpus import CASES, play

BY_NAME = {case.name: case for case in CASES}


@pytest.mark.parametrize("name", ["the return annotated Any", "no_type_check"])
def test_code_taken_out_of_mypys_sight_is_refused(tmp_path: Path, name: str) -> None:
    on = play(BY_NAME[name], tmp_path, integrity=True)
    assert on.verdict != "complete", on
    assert "type-escape" in on.codes, on
    off = play(BY_NAME[name], tmp_path, integrity=False)
    assert off.verdict == "complete", off  # the escape really games the types check


def test_typed_code_added_honestly_completes(tmp_path: Path) -> None:
    on = play(BY_NAME["types fixed with a typed helper"], tmp_path, integrity=True)
    assert on.verdict == "complete", on
