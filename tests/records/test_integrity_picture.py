"""The integrity picture as a typed record: it survives its JSON file, a file written by an
older version still reads and compares, and a file that is not a picture is one clear error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph_verify.integrity.judge import compare
from ralph_verify.integrity.picture import take
from ralph_verify.plugins.integrity import read_baseline, write_baseline
from ralph_verify.records.codec import encode
from ralph_verify.records.integrity import Picture, picture_of

TESTS = "def test_add():\n    assert 1 + 1 == 2\n\n\ndef test_sub():\n    assert 2 - 1 == 1\n"


def _project(root: Path) -> Path:
    (root / "tests").mkdir()
    (root / "tests/test_calc.py").write_text(TESTS)
    (root / "calc.py").write_text("def add(a, b):\n    return a + b  # noqa: E501\n")
    (root / "pyproject.toml").write_text("[tool.coverage.report]\nfail_under = 90\n"
                                         "[tool.ruff.lint]\nselect = ['E', 'F']\n")
    return root


def test_a_picture_reads_back_as_it_was_written(tmp_path: Path) -> None:
    picture = take(_project(tmp_path), protected=["calc.py"], keep=["tests/**"], session="s1")
    write_baseline(tmp_path, picture)
    again = read_baseline(tmp_path)
    assert again is not None and again.session == "s1" and again.test_total == 2
    assert [s.key for s in again.settings] == [s.key for s in picture.settings]
    written = json.loads((tmp_path / ".ralph/integrity-baseline.json").read_text())
    assert encode(again) == written


def test_a_picture_of_an_older_version_still_compares(tmp_path: Path) -> None:
    """Before infra, sources and the per-file facts were kept: the parts
    it lacks are left out of the comparison, per-file findings of another version are found
    afresh."""
    old = {"version": 1, "session": "s0", "tests": {"tests/test_calc.py": {
        "test_add": 1, "test_sub": 5}}, "markers": {}, "settings": [], "hashes": {},
        "facts": {"version": 0, "files": {"calc.py": ["another", "shape"]}},
        "analysed": {"version": 0, "files": {"calc.py": 3}}}
    before = picture_of(old)
    assert before.infra is None and before.facts is None
    root = _project(tmp_path)
    (root / "tests/test_calc.py").write_text(TESTS.split("\n\n\n")[0] + "\n")
    (root / "pyproject.toml").unlink()  # the old picture has no settings
    after = take(root, protected=[], keep=["tests/**"], previous=before)
    assert [f.code for f in compare(before, after, root)] == ["fewer-tests", "removed-test"]


@pytest.mark.parametrize(("data", "said"), [
    ([], "not an integrity picture"),
    ({"tests": {"tests/test_a.py": {"test_a": "one"}}}, "tests.tests/test_a.py.test_a is text"),
    ({"tests": {}, "gate": {"checks": "tests"}}, "gate.checks is text"),
])
def test_a_file_that_is_not_a_picture_is_one_clear_error(tmp_path: Path, data: object,
                                                         said: str) -> None:
    (tmp_path / ".ralph").mkdir()
    (tmp_path / ".ralph/integrity-baseline.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match="is not an integrity baseline") as caught:
        read_baseline(tmp_path)
    assert said in str(caught.value)


def test_an_empty_picture_has_every_part_empty() -> None:
    assert picture_of({"tests": {}}) == Picture()
