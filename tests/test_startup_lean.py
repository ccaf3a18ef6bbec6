"""What the start-up leaves out is only left out: the shortcuts taken on every start answer
exactly what the long way does."""

from __future__ import annotations

import difflib
import os
import random
import string
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.compat import tomllib
from ralph_verify.config.pyproject import _close, load_table
from ralph_verify.errors import ConfigError

TABLES = ["ruff", "mypy", "pytest", "coverage", "setuptools", "setuptools_scm", "black",
          "isort", "poetry", "hatch", "pyright", "codespell", "towncrier", "cibuildwheel",
          "ralph_verify", "ralphverify", "ralph-verfy", "ralph.verify", "Ralph-Verify",
          "ralph", "verify", "ralph-verify-x", "rlph-verify", "ralph-verifyy", "ralfverify",
          "pylint", "bandit", "commitizen", "uv", "pdm", "flit", "scikit-build", "ralph-ver",
          "alph-verify", "ralp-verif", "verify-ralph", "", "r", "ralph-verify-plugin"]


def by_difflib(name: str) -> bool:
    return bool(difflib.get_close_matches(name, ["ralph-verify"], n=1, cutoff=0.8))


def test_near_miss_filter_answers_as_difflib() -> None:
    rng = random.Random(24)
    letters = "ralph-verify" + string.ascii_lowercase
    names = [name.lower().replace("_", "-").replace(".", "-") for name in TABLES]
    for _ in range(3000):  # random names around the lengths that can be close (8 to 18)
        names.append("".join(rng.choice(letters) for _ in range(rng.randint(1, 22))))
    for _ in range(2000):  # one or two edits of the name itself
        name = list("ralph-verify")
        for _ in range(rng.randint(1, 2)):
            where = rng.randrange(len(name))
            change = rng.choice(("drop", "swap", "add"))
            if change == "drop" and len(name) > 1:
                del name[where]
            elif change == "swap":
                name[where] = rng.choice(letters)
            else:
                name.insert(where, rng.choice(letters))
        names.append("".join(name))
    mismatched = [name for name in names if _close(name) != by_difflib(name)]
    assert mismatched == []
    assert sum(map(by_difflib, names)) > 100  # both answers were really exercised
    assert sum(not by_difflib(name) for name in names) > 100


# --- [tool.ralph-verify] kept by the file's whole text ---------------------------------


PYPROJECT = """[project]
name = "demo"

[tool.ruff]
line-length = 99

[tool.ralph-verify]
until = "tests,lint"
timeout = 90.5
max-iterations = 3
cache = false
notify = ["a", "b"]

[tool.ralph-verify.checks.lint]
timeout = 30
"""


@pytest.fixture
def parses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the TOML reader parsed."""
    monkeypatch.setenv("RALPH_VERIFY_CACHE_DIR", str(tmp_path / "cache"))
    seen: list[str] = []
    real = tomllib.loads

    def counting(text: str, **kwargs: Any) -> dict[str, Any]:
        seen.append(text)
        return real(text, **kwargs)

    monkeypatch.setattr(tomllib, "loads", counting)
    return seen


def test_a_kept_table_is_the_parsed_one_and_the_file_is_not_parsed_again(
        tmp_path: Path, parses: list[str]) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    first = load_table(path)
    assert first == tomllib.loads(PYPROJECT)["tool"]["ralph-verify"]
    parses.clear()
    again = load_table(path)
    assert again == first and parses == []
    assert type(again["timeout"]) is float and type(again["max-iterations"]) is int
    assert type(again["cache"]) is bool
    again["until"] = "changed"  # the caller's own copy
    assert load_table(path) == first


def test_any_change_of_the_text_is_read_again(tmp_path: Path, parses: list[str]) -> None:
    """Same size, same mtime, one character changed: the whole text is compared."""
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    load_table(path)
    before = path.stat()
    path.write_text(PYPROJECT.replace("max-iterations = 3", "max-iterations = 4"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    parses.clear()
    assert load_table(path)["max-iterations"] == 4
    assert len(parses) == 1
    path.write_text(PYPROJECT.replace("[tool.ralph-verify]\n", "[tool.ralph-verify\n"))
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_table(path)


def test_errors_are_never_kept(tmp_path: Path, parses: list[str]) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.ralph_verify]\nuntil = "lint"\n')
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"did you mean \[tool.ralph-verify\]"):
            load_table(path)
    path.write_text('[tool]\nralph-verify = 3\n')
    for _ in range(2):
        with pytest.raises(ConfigError, match="must be a table"):
            load_table(path)
    assert len(parses) == 4


def test_a_table_json_cannot_hold_is_parsed_each_time(tmp_path: Path,
                                                      parses: list[str]) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.ralph-verify]\nsince = 2026-11-27T01:00:00\n")
    assert load_table(path) == load_table(path)
    assert len(parses) == 2


def test_a_damaged_or_foreign_kept_table_is_not_used(tmp_path: Path,
                                                     parses: list[str]) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    first = load_table(path)
    (kept,) = (tmp_path / "cache" / "pyproject").iterdir()
    kept.write_text("{damaged")
    assert load_table(path) == first
    data = kept.read_text().replace('"until": "tests,lint"', '"until": "planted"')
    kept.write_text(data.replace('until = \\"tests,lint\\"', 'until = \\"planted\\"')
                    .replace('"format": 1', '"format": 0'))
    assert load_table(path) == first
    assert len(parses) == 3
