"""What the start-up leaves out is only left out: the shortcuts taken on every start answer
exactly what the long way does."""

from __future__ import annotations

import difflib
import os
import random
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.compat import tomllib
from ralph_verify.config.parser import Setting
from ralph_verify.config.pyproject import (
    KEPT_TABLE_COMMANDS,
    _close,
    _plain_settings,
    _validate_with_pydantic,
    load_table,
)
from ralph_verify.errors import ConfigError
from ralph_verify.project.toml_files import _same_types
from ralph_verify.testing import Ralph
from tests.test_startup import imported

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


# --- pyproject.toml kept by the file's whole content ---------------------------------------


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
    first = load_table(path, kept=True)
    assert first == tomllib.loads(PYPROJECT)["tool"]["ralph-verify"]
    parses.clear()
    again = load_table(path, kept=True)
    assert again == first and parses == []
    assert type(again["timeout"]) is float and type(again["max-iterations"]) is int
    assert type(again["cache"]) is bool
    again["until"] = "changed"  # the caller's own copy
    assert load_table(path, kept=True) == first


def test_any_change_of_the_text_is_read_again(tmp_path: Path, parses: list[str]) -> None:
    """Same size, same mtime, one character changed: the whole text is compared."""
    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    load_table(path, kept=True)
    before = path.stat()
    path.write_text(PYPROJECT.replace("max-iterations = 3", "max-iterations = 4"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    parses.clear()
    assert load_table(path, kept=True)["max-iterations"] == 4
    assert len(parses) == 1
    path.write_text(PYPROJECT.replace("[tool.ralph-verify]\n", "[tool.ralph-verify\n"))
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_table(path, kept=True)


def test_errors_are_raised_from_a_kept_document_too(tmp_path: Path,
                                                    parses: list[str]) -> None:
    # The document is kept, not the verdict on it: each read judges it again.
    path = tmp_path / "pyproject.toml"
    path.write_text('[tool.ralph_verify]\nuntil = "lint"\n')
    for _ in range(2):
        with pytest.raises(ConfigError, match=r"did you mean \[tool.ralph-verify\]"):
            load_table(path, kept=True)
    path.write_text('[tool]\nralph-verify = 3\n')
    for _ in range(2):
        with pytest.raises(ConfigError, match="must be a table"):
            load_table(path, kept=True)
    assert len(parses) == 2


def test_a_table_json_cannot_hold_is_parsed_each_time(tmp_path: Path,
                                                      parses: list[str]) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text("[tool.ralph-verify]\nsince = 2026-11-27T01:00:00\n")
    assert load_table(path, kept=True) == load_table(path, kept=True)
    assert len(parses) == 2


def planted(document: dict[str, Any], until: str) -> dict[str, Any]:
    """``document`` with another ``until`` in its table."""
    tool = document["tool"]
    return {**document, "tool": {**tool, "ralph-verify": {**tool["ralph-verify"],
                                                          "until": until}}}


def test_a_damaged_or_foreign_kept_document_is_not_used(tmp_path: Path,
                                                        parses: list[str]) -> None:
    import json

    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    first = load_table(path, kept=True)
    (kept,) = (tmp_path / "cache" / "pyproject").iterdir()
    good = json.loads(kept.read_text())
    assert good["document"]["tool"]["ralph-verify"] == first
    kept.write_text("{damaged")
    assert load_table(path, kept=True) == first
    assert len(parses) == 2
    for change in ({"sha256": "0" * 64}, {"format": 1}, {"path": str(tmp_path / "other")},
                   {"document": ["not", "a", "table"]}):
        kept.write_text(json.dumps({**good, "document": planted(good["document"], "planted"),
                                    **change}))
        assert load_table(path, kept=True) == first, change
    assert len(parses) == 6
    kept.write_text(json.dumps({**good, "document": planted(good["document"], "planted")}))
    assert load_table(path, kept=True)["until"] == "planted"  # the entry vouches: used
    assert len(parses) == 6


def test_a_loop_never_uses_a_kept_document(tmp_path: Path, parses: list[str]) -> None:
    """The agent runs as the user and could plant one: the commands that run or judge a loop
    read pyproject.toml itself."""
    import json

    path = tmp_path / "pyproject.toml"
    path.write_text(PYPROJECT)
    load_table(path, kept=True)
    (kept,) = (tmp_path / "cache" / "pyproject").iterdir()
    good = json.loads(kept.read_text())
    kept.write_text(json.dumps({**good, "document": planted(good["document"], "planted")}))
    assert load_table(path, kept=True)["until"] == "planted"  # what vouches: the entry
    assert load_table(path)["until"] == "tests,lint"
    assert load_table(path, kept=True)["until"] == "tests,lint"  # and the loop's read cleans it
    for command in ("run", "start", "hook", "fleet", "tasks", "slash", "init"):
        assert command not in KEPT_TABLE_COMMANDS


LAYOUT = """[project]
name = "demo"

[tool.setuptools.packages.find]
where = ["lib"]

[tool.mypy]
strict = true
"""


def test_the_layout_and_mypys_targets_read_a_kept_document_only_when_allowed(
        tmp_path: Path, parses: list[str]) -> None:
    import json

    from ralph_verify.plugins.mypy.targets import config_names_targets
    from ralph_verify.project.layout import project_packages

    root = tmp_path / "project"
    for folder in ("lib/demo", "src/other"):
        (root / folder).mkdir(parents=True)
        (root / folder / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(LAYOUT)
    assert project_packages(root, kept=True) == ["lib/demo"]
    assert not config_names_targets(root, kept=True)
    assert len(parses) == 1  # once, then kept
    (kept,) = (tmp_path / "cache" / "pyproject").iterdir()
    good = json.loads(kept.read_text())
    document = good["document"]
    document["tool"]["setuptools"]["packages"]["find"]["where"] = ["src"]
    document["tool"]["mypy"]["files"] = ["src"]
    kept.write_text(json.dumps(good))
    assert project_packages(root, kept=True) == ["src/other"]  # the entry vouches: used
    assert config_names_targets(root, kept=True)
    # A loop's read parses the file itself, and its parse replaces the planted entry.
    assert project_packages(root) == ["lib/demo"]
    assert not config_names_targets(root)
    assert len(parses) == 3
    assert project_packages(root, kept=True) == ["lib/demo"]
    assert not config_names_targets(root, kept=True)
    assert len(parses) == 3


def test_a_second_check_of_types_parses_no_toml(ralph: Ralph) -> None:
    (ralph.path / "pyproject.toml").write_text(LAYOUT)
    ralph.makefile("lib/demo/__init__.py", "def double(x: int) -> int:\n    return 2 * x\n")
    assert imported(["check", "--until", "types", "--no-cache"], ralph.path,
                    ("tomllib",)) == ["[]"]


# --- [tool.ralph-verify] settings of plain values checked without pydantic ------------


def all_settings() -> dict[str, Setting]:
    from ralph_verify.startup import collect_options, get_plugin_manager

    return collect_options(get_plugin_manager()).settings


VALUES: list[Any] = [1, 0, -1, 3, 600, 2**53, 2**53 + 1, 2**70, -2**70, 1.0, 1.5, 0.0, -0.0,
                     -0.5, 0.25, 1e300, float("inf"), float("-inf"), float("nan"), True, False,
                     "x", "10m", "90", "", "1h30m", "tests,lint", ["a"], [], ["a", 1], [["a"]],
                     [True], {"a": 1}, {}]


def pydantic_answer(table: dict[str, Any], settings: dict[str, Setting]) -> Any:
    try:
        return _validate_with_pydantic(table, settings, Path("pyproject.toml"))
    except ConfigError as exc:
        return exc


def test_plain_settings_answer_as_pydantic() -> None:
    settings = all_settings()
    fast_answers = 0
    for setting in settings.values():
        for key in {setting.key, setting.dest}:
            for value in VALUES:
                table = {key: value}
                fast = _plain_settings(table, settings)
                if fast is None:
                    continue
                fast_answers += 1
                slow = pydantic_answer(table, settings)
                assert not isinstance(slow, ConfigError), (table, slow)
                assert _same_types(fast, slow), (table, fast, slow)
    assert fast_answers > 100  # the shortcut really answers the plain cases


def test_tables_of_several_settings_answer_as_pydantic() -> None:
    settings = all_settings()
    rng = random.Random(27)
    keys = [key for setting in settings.values() for key in (setting.key, setting.dest)]
    keys += ["checks", "no-such-setting", "until"]
    plain = {key: [value for value in VALUES if _plain_settings({key: value}, settings)]
             for key in keys}
    answered = 0
    for _ in range(400):
        table: dict[str, Any] = {}
        for key in rng.sample(keys, rng.randint(1, 5)):
            if key == "checks":
                table[key] = {"lint": {"timeout": 5}} if rng.random() < 0.8 else {"lint": 1}
            elif plain[key] and rng.random() < 0.9:
                table[key] = rng.choice(plain[key])
            else:
                table[key] = rng.choice(VALUES)
        fast = _plain_settings(table, settings)
        if fast is None:
            continue
        answered += 1
        slow = pydantic_answer(table, settings)
        assert not isinstance(slow, ConfigError), (table, slow)
        assert _same_types(fast, slow), (table, fast, slow)
    assert answered > 100


def test_what_init_writes_and_common_tables_take_the_shortcut() -> None:
    settings = all_settings()
    plain: list[dict[str, Any]] = [
        {"until": "tests,lint,types"}, {"until": ["tests", "lint"]},
        {"timeout": 600, "max-iterations": 10, "cache": False},
        {"max_iterations": 3, "checks": {"lint": {"timeout": 30}}},
        {"feedback-budget": 8000, "agent": "claude"}]
    for table in plain:
        fast = _plain_settings(table, settings)
        assert fast is not None, table
        assert _same_types(fast, pydantic_answer(table, settings))
    judged: list[dict[str, Any]] = [
        {"until": 3}, {"max-iterations": 0}, {"timeout": "10m"}, {"no-such-setting": 1},
        {"max-iterations": 3, "max_iterations": 4}, {"checks": {"lint": 3}}, {"cache": 1}]
    for table in judged:
        assert _plain_settings(table, settings) is None, table


def test_a_check_of_a_project_with_a_table_does_not_import_pydantic(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.ralph-verify]\n'
        'until = "lint"\ntimeout = 600\nmax-iterations = 5\ncache = false\n')
    (tmp_path / "calc.py").write_text("x = 1\n")
    script = ("import sys\nfrom ralph_verify.cli import main\ncode = main(['check'])\n"
              "print('pydantic' in sys.modules, code)\n")
    env = {**os.environ, "RALPH_VERIFY_CACHE_DIR": str(tmp_path / "cache")}
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.stdout.strip().splitlines()[-1] == "False 0", out.stdout + out.stderr
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "demo"\nversion = "0"\n\n[tool.ralph-verify]\nuntil = "lint"\n'
        'max-iterations = 0\n')
    out = subprocess.run([sys.executable, "-m", "ralph_verify", "check"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2 and "max-iterations" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
