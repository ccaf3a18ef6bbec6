"""What keeps integrity cheap in an iteration (issue 20): every rule reads one parse of a
file, files unchanged since the baseline are not read again (their findings are kept in the
picture by content hash, so a new process reuses them too), and within a changed test module
the unchanged tests are not walked again. Each shortcut must give what the full work gives."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ralph_verify.integrity import picture as baseline
from ralph_verify.integrity.judge import compare
from ralph_verify.integrity.rules import weakened
from ralph_verify.records.codec import encode
from ralph_verify.records.integrity import picture_of

TESTS = """\
import pytest
from shop import total


def test_total():
    assert total([1, 2]) == 3


def test_weak():
    try:
        assert total([]) == 0
    except AssertionError:
        pass


class TestMore:
    def test_self(self):
        x = total([1])
        assert x == x  # noqa: PLR0124
"""


def _project(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_an_iteration_parses_only_the_files_it_changed(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    marker = f"# {tmp_path.name}\n"  # content this process has not analysed yet
    _project(tmp_path, {"shop/__init__.py": marker + "def total(p):\n    return sum(p)\n",
                        "shop/other.py": marker + "X = 1\n", "tests/test_shop.py": marker + TESTS})
    before = picture_of(json.loads(json.dumps(encode(
        baseline.take(tmp_path, protected=[], keep=["tests/**"])))))
    _project(tmp_path, {"shop/other.py": marker + "X = 2\n"})
    parses: list[str] = []
    real = ast.parse

    def counting(text: str, *args: Any, **kwargs: Any) -> Any:
        parses.append(str(text).splitlines()[1])
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    after = baseline.take(tmp_path, protected=[], keep=["tests/**"], previous=before)
    assert parses == ["X = 2"]  # one parse of the one changed file, for every rule
    assert after.tests == before.tests
    assert after.facts is not None and before.facts is not None
    assert after.facts.files["tests/test_shop.py"] == before.facts.files["tests/test_shop.py"]
    fresh = baseline.take(tmp_path, protected=[], keep=["tests/**"])
    for key in ("tests", "markers", "test_bodies", "facts", "defined", "infra", "unparsed",
                "tools"):
        assert encode(getattr(after, key)) == encode(getattr(fresh, key)), key


def test_unchanged_tests_of_a_changed_module_are_kept_at_their_new_lines() -> None:
    old = weakened.summarise(TESTS)
    edited = TESTS.replace("import pytest\n", "import pytest\nimport os\n\n\ndef helper():\n"
                           "    return os.sep\n").replace("== 3", "== 3.0")
    kept = weakened.summarise(edited, old)
    assert kept == weakened.summarise(edited)  # the same as walking every test again
    assert kept["test_weak"].weak[0][1] == old["test_weak"].weak[0][1] + 5
    assert kept["test_total"].sha != old["test_total"].sha


def test_settings_are_resolved_again_only_when_the_tools_own_table_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ralph_verify.integrity.rules import settings
    from ralph_verify.records.integrity import Setting

    calls: list[str] = []

    Resolve = Callable[[Path, list[str], list[Setting]], dict[str, Any]]

    def counted(tool: str, real: Resolve) -> Resolve:
        def resolve(root: Path, files: list[str], found: list[Setting]) -> dict[str, Any]:
            calls.append(tool)
            return real(root, files, found)
        return resolve

    monkeypatch.setattr(settings, "_RESOLVED", {})
    monkeypatch.setattr(settings, "_RESOLVE", {tool: counted(tool, real)
                                               for tool, real in settings._RESOLVE.items()})
    pyproject = '[project]\nname = "shop"\nversion = "1.0"\n[tool.mypy]\nstrict = true\n'
    _project(tmp_path, {"pyproject.toml": pyproject, "shop/__init__.py": ""})
    before = baseline.take(tmp_path, protected=[], keep=[])
    assert sorted(calls) == ["coverage", "mypy", "pytest", "ruff"]
    calls.clear()
    _project(tmp_path, {"pyproject.toml": pyproject.replace("1.0", "1.1")})
    after = baseline.take(tmp_path, protected=[], keep=[], previous=before)
    assert calls == []  # a new version number resolves no tool again
    assert before.tools is not None and after.tools is not None
    assert after.tools.effective == before.tools.effective
    _project(tmp_path, {"pyproject.toml": pyproject.replace("strict = true", "strict = false")})
    again = baseline.take(tmp_path, protected=[], keep=[], previous=before)
    assert calls == ["mypy"]
    found = compare(before, again, tmp_path, {"types"})  # the narrowing is on the same line
    assert [f.code for f in found] == ["narrowed-setting"]
