"""A suppression in a file its tool never reads hides nothing (issue 20, item 5): whether mypy
checks a file and whether coverage measures it follow from their effective settings, written
in whichever of their config files, resolved by the tools' own rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph_verify.integrity.judge import compare
from ralph_verify.integrity.picture import take
from ralph_verify.integrity.rules import markers
from ralph_verify.records.integrity import Gate, Picture


def _project(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _picture(root: Path) -> Picture:
    return take(root, protected=[], keep=[])


CODE = {"shop/__init__.py": "", "shop/pricing.py": "from shop import fmt\n",
        "shop/fmt.py": "", "shop/legacy.py": "", "scripts/tool.py": "",
        "tests/test_pricing.py": "from shop.pricing import total\n"}


@pytest.mark.parametrize(("config", "checked", "unchecked"), [
    # files in pyproject.toml: only the package
    ({"pyproject.toml": '[tool.mypy]\nfiles = ["shop"]\n'},
     ["shop/pricing.py"], ["scripts/tool.py", "tests/test_pricing.py"]),
    # mypy.ini wins over pyproject.toml; an excluded module no checked file imports
    ({"pyproject.toml": '[tool.mypy]\nfiles = ["."]\n',
      "mypy.ini": "[mypy]\nfiles = shop, tests\nexclude = (legacy|tool)\\.py$\n"},
     ["shop/pricing.py", "tests/test_pricing.py"], ["shop/legacy.py", "scripts/tool.py"]),
    # excluded but imported by a checked file: mypy follows the import and reports there
    ({"setup.cfg": "[mypy]\nfiles = shop/pricing.py\n"},
     ["shop/pricing.py", "shop/fmt.py"], ["shop/legacy.py", "tests/test_pricing.py"]),
    # a module whose errors a per-module section silences
    ({"pyproject.toml": '[tool.mypy]\nfiles = ["shop"]\n[[tool.mypy.overrides]]\n'
                        'module = "shop.legacy"\nignore_errors = true\n'},
     ["shop/fmt.py"], ["shop/legacy.py"]),
    # no files: the types check's own targets, the project's package
    ({"pyproject.toml": "[tool.mypy]\nstrict = true\n"},
     ["shop/pricing.py"], ["scripts/tool.py"]),
])
def test_mypy_membership_follows_its_effective_settings(
        tmp_path: Path, config: dict[str, str], checked: list[str],
        unchecked: list[str]) -> None:
    root = _project(tmp_path, {**CODE, **config})
    picture = _picture(root)
    for path in checked:
        assert markers.type_checked(root, picture, path), path
    for path in unchecked:
        assert not markers.type_checked(root, picture, path), path


@pytest.mark.parametrize(("config", "measured", "unmeasured"), [
    ({"pyproject.toml": '[tool.coverage.run]\nsource = ["shop"]\n'},
     ["shop/pricing.py"], ["scripts/tool.py"]),
    # .coveragerc wins over pyproject.toml
    ({"pyproject.toml": '[tool.coverage.run]\nsource = ["shop", "scripts"]\n',
      ".coveragerc": "[run]\nsource = shop\nomit = shop/legacy.py\n"},
     ["shop/pricing.py"], ["shop/legacy.py", "scripts/tool.py"]),
    ({"setup.cfg": "[coverage:run]\ninclude = shop/*\n"},
     ["shop/fmt.py"], ["scripts/tool.py"]),
    ({"tox.ini": "[coverage:report]\nomit = scripts/*\n"},
     ["shop/fmt.py"], ["scripts/tool.py"]),
])
def test_coverage_membership_follows_its_effective_settings(
        tmp_path: Path, config: dict[str, str], measured: list[str],
        unmeasured: list[str]) -> None:
    root = _project(tmp_path, {**CODE, **config})
    picture = _picture(root)
    for path in measured:
        assert markers.measured(root, picture, path), path
    for path in unmeasured:
        assert not markers.measured(root, picture, path), path


def test_an_unresolved_tool_counts_as_reading_every_file(tmp_path: Path) -> None:
    root = _project(tmp_path, {**CODE, "pyproject.toml": "[tool.coverage.run\n"})
    picture = _picture(root)
    assert picture.tools is not None and "error" in picture.tools.effective["coverage"]
    assert markers.measured(root, picture, "scripts/tool.py")
    assert markers.type_checked(root, Picture(), "scripts/tool.py")


CONFIGS = {"pyproject.toml": '[tool.mypy]\nfiles = ["shop"]\n',
           ".coveragerc": "[run]\nsource = shop\n"}


def _judge(root: Path, edits: dict[str, str]) -> list[tuple[str | None, str | None]]:
    before = take(root, protected=[], keep=["tests/**"])
    before.gate = Gate(["coverage", "integrity", "tests", "types"])
    _project(root, edits)
    after = take(root, protected=[], keep=["tests/**"], previous=before)
    return [(f.code, f.location) for f in compare(before, after, root)]


def test_blanket_suppressions_in_files_no_tool_reads_are_not_flagged(tmp_path: Path) -> None:
    root = _project(tmp_path, {**CODE, **CONFIGS})
    assert _judge(root, {
        "scripts/tool.py": "x: int = 'a'  # type: ignore\n"
                           "if x:  # pragma: no cover\n    print(x)\n",
    }) == []


def test_the_same_suppressions_in_files_the_tools_read_still_fail(tmp_path: Path) -> None:
    root = _project(tmp_path, {**CODE, **CONFIGS})
    assert _judge(root, {
        "shop/fmt.py": "x: int = 'a'  # type: ignore\nif x:  # pragma: no cover\n    print(x)\n",
    }) == [("new-type-ignore", "shop/fmt.py:1"), ("new-no-cover", "shop/fmt.py:2")]


def test_a_file_taken_out_of_mypy_is_a_narrowing_not_a_free_pass(tmp_path: Path) -> None:
    """Excluding the file in the same iteration does not make its suppression free: the
    exclusion itself is judged by its effect (narrowed-setting)."""
    root = _project(tmp_path, {**CODE, **CONFIGS})
    before = take(root, protected=[], keep=["tests/**"])
    gate = {"coverage", "integrity", "tests", "types"}
    before.gate = Gate(sorted(gate))
    _project(root, {"pyproject.toml": '[tool.mypy]\nfiles = ["shop"]\nexclude = "fmt"\n',
                    "shop/fmt.py": "x: int = 'a'  # type: ignore\n"})
    after = take(root, protected=[], keep=["tests/**"], previous=before)
    found = compare(before, after, root, gate)
    assert [(f.code, f.path) for f in found] == [
        ("new-type-ignore", "shop/fmt.py"), ("narrowed-setting", "pyproject.toml")]
    assert "mypy no longer checks 1 file(s)" in found[1].message
